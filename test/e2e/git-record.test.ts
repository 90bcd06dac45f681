// Git is the record, the store a cache: a fresh clone replays each recorded iteration to the
// same release, reuses the release's recorded screen in a gate, and reads without a key.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';
const BP = 'support-agent';

let server: FakeAnthropic;
/** The workspace two iterations were recorded in (shared: it is the expensive part). */
let original: string;
let cassette: string;

beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
  original = await exampleWorkspace();
  const configFile = path.join(original, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = { agent: CLAUDE, critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  keepTrainCases(original, (_id, index) => index < 16);
  git(original, 'add', '-A');
  git(original, 'commit', '-qm', 'every role on Claude; 16 train cases');
  cassette = path.join(tempDir(), 'cassette');
  const recorded = await cliAsync(['iterate', '--max-iterations', '2', '--record', cassette, '-C', original], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY } });
  if (recorded.code !== 0) throw new Error(`recording failed (${recorded.code}): ${recorded.stderr}`);
}, 240_000);

afterAll(async () => {
  await server.close();
});

/** No key, and a base URL where nothing listens: any request that leaves is an error. */
const OFFLINE = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined };

async function log(dir: string): Promise<Array<Record<string, unknown>>> {
  const result = await cliAsync(['log', '--json', '-C', dir], { env: OFFLINE });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const auditRef = (iteration: number) => `refs/agentdevel/rc/${BP}/iter-${String(iteration).padStart(3, '0')}`;

/** The decision document of an iteration, read from its audit ref. */
function decisionOf(dir: string, iteration: number): { outcome: string; release: string | null; baseline: { commit: string }; candidate: { commit: string }; gate: { f2p: string[]; p2f: string[] } } {
  const ref = auditRef(iteration);
  const folder = git(dir, 'ls-tree', '-r', '--name-only', ref, `releases/${BP}`)
    .split('\n')
    .filter((f) => f.endsWith('/decision.json'))
    .map((f) => ({ f, d: JSON.parse(git(dir, 'show', `${ref}:${f}`)) as { iteration: number } }))
    .find((x) => x.d.iteration === iteration);
  if (!folder) throw new Error(`no decision of iteration ${iteration} on ${ref}`);
  return folder.d as never;
}

/**
 * A clone as a new user makes it (`git clone`, then a fetch of refs/agentdevel/* for the
 * RC refs), put back to the moment iteration N started: the line at that iteration's baseline,
 * and the refs and tags of iteration N and later removed.
 */
async function cloneBefore(iteration: number): Promise<string> {
  const copy = path.join(tempDir(), 'clone');
  git(path.dirname(copy), 'clone', '-q', original, copy);
  // What `agentdevel sync --fetch-only` fetches, done with git so that no agentdevel command
  // opens the clone (and rebuilds its store) before it is put back.
  git(copy, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
  const baseline = decisionOf(copy, iteration).baseline.commit;
  for (const entry of await log(original)) {
    if (Number(entry.iteration) < iteration) continue;
    if (entry.tag) git(copy, 'tag', '-d', String(entry.tag));
    git(copy, 'update-ref', '-d', auditRef(Number(entry.iteration)));
  }
  git(copy, 'reset', '-q', '--hard', baseline);
  return copy;
}

describe('a fresh clone rebuilds its store from git', () => {
  it('replays each of two recorded iterations in a clone to the same release, and no request reaches a server', async () => {
    const recorded = await log(original);
    expect(recorded).toHaveLength(2);
    // What the decision recorded beside decision.json: the runs the gate used and the taxonomy.
    const first = decisionOf(original, 1);
    const folder = first.outcome === 'promoted' ? `releases/${BP}/${String(first.release).split('/').at(-1)}` : `releases/${BP}/rejected/iter-001`;
    const runs = JSON.parse(git(original, 'show', `${auditRef(1)}:${folder}/runs.json`)) as { schema: string; runs: Array<{ purpose: string; records: Array<{ trace: unknown }> }> };
    expect(runs.schema).toBe('agentdevel/runs@2');
    expect(runs.runs.map((r) => r.purpose)).toEqual(expect.arrayContaining(['baseline', 'candidate']));
    const taxonomy = JSON.parse(git(original, 'show', `${auditRef(1)}:${folder}/taxonomy.json`)) as { schema: string; labels: Array<{ label: string }> };
    expect(taxonomy.schema).toBe('agentdevel/taxonomy@1');
    expect(taxonomy.labels.length).toBeGreaterThan(0);

    const before = server.requests.length;
    for (const iteration of [1, 2]) {
      const copy = await cloneBefore(iteration);
      const replayed = await cliAsync(['iterate', '--max-iterations', '1', '--replay', cassette, '-C', copy], { env: OFFLINE });
      expect(replayed.stderr).not.toMatch(/internal error|REPLAY_MISS/);
      expect(replayed.code, replayed.stderr).toBe(0);
      const mine = decisionOf(copy, iteration);
      const theirs = decisionOf(original, iteration);
      expect([mine.outcome, mine.release, mine.gate.f2p, mine.gate.p2f]).toEqual([theirs.outcome, theirs.release, theirs.gate.f2p, theirs.gate.p2f]);
      // The same RC: the same blueprint, byte for byte.
      expect(git(copy, 'rev-parse', `${mine.candidate.commit}:blueprints/${BP}`)).toBe(git(original, 'rev-parse', `${theirs.candidate.commit}:blueprints/${BP}`));
    }
    expect(server.requests.length).toBe(before);
  }, 300_000);
});

describe('CI reuses the release’s recorded screen', () => {
  it('gates a branch in a fresh clone without running one baseline case-trial, and the summary and report say so', async () => {
    // A branch cut from the current release, with a one-line change to the prompt.
    const work = path.join(tempDir(), 'work');
    git(path.dirname(work), 'clone', '-q', original, work);
    git(work, 'checkout', '-q', '-b', 'shorter-greeting');
    const prompt = path.join(work, `blueprints/${BP}/system.hbs`);
    writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nKeep replies short.\n`);
    git(work, 'commit', '-qam', 'keep replies short');
    git(work, 'push', '-q', 'origin', 'shorter-greeting');

    // The CI checkout: a clone, the RC refs fetched as `agentdevel sync --fetch-only` does.
    const ci = path.join(tempDir(), 'ci');
    git(path.dirname(ci), 'clone', '-q', original, ci);
    const synced = await cliAsync(['sync', '--fetch-only', '-C', ci], { env: OFFLINE });
    expect(synced.code, synced.stderr).toBe(0);
    const from = server.requests.length;
    const summary = path.join(ci, '.agentdevel', 'summary.md');
    const gated = await cliAsync(['gate', '--candidate', 'origin/shorter-greeting', '--json', '--summary', summary, '-C', ci], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY },
    });
    expect(gated.stderr).not.toMatch(/internal error/);
    expect([0, 1]).toContain(gated.code);
    const result = JSON.parse(gated.stdout) as { baselineScreen: string; reports: string[] };
    expect(result.baselineScreen).toMatch(/3 records, 3 recorded in git with earlier decisions .*; no baseline case-trial ran/);
    // The summary and report.md escape every punctuation mark of the text they quote; read them as they render.
    const rendered = (file: string) => readFileSync(file, 'utf8').replace(/\\([!-/:-@[-`{-~])/g, '$1');
    expect(rendered(summary)).toMatch(/no baseline case-trial ran/);
    const report = result.reports.find((f) => f.endsWith('report.md'));
    expect(rendered(String(report))).toMatch(/\| Baseline screen \| .*no baseline case-trial ran \|/);

    // Every agent conversation the server saw starts with one user message: one per case-trial.
    // They are exactly the candidate's screen and both sides' fresh confirmation trials.
    const conversations = server.requests.slice(from).filter((r) => r.role === 'agent' && (r.body as { messages: unknown[] }).messages.length === 1).length;
    const { openSql } = await import('../../src/adapters/store/sqlite.ts');
    const sql = openSql(path.join(ci, '.agentdevel', 'state.db'));
    try {
      const local = sql.all<{ purpose: string; n: number }>(
        `SELECT runs.purpose AS purpose, COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.origin = 'local' GROUP BY runs.purpose`,
      );
      expect(local.map((r) => r.purpose)).not.toContain('baseline');
      expect(local.find((r) => r.purpose === 'candidate')?.n).toBe(16);
      expect(conversations).toBe(local.reduce((sum, r) => sum + Number(r.n), 0));
    } finally {
      sql.close();
    }
  }, 180_000);
});

describe('read-only commands never ask for a key', () => {
  it('evaluate-test on a sealed release, log, show, report and prompts work with ANTHROPIC_API_KEY unset, in the workspace and in a fresh clone', async () => {
    const sealed = await cliAsync(['evaluate-test', '--json', '-C', original], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY } });
    expect(sealed.code, sealed.stderr).toBe(0);
    const first = JSON.parse(sealed.stdout) as { passRate: number; repeated: boolean };
    expect(first.repeated).toBe(false);

    const clone = path.join(tempDir(), 'reader');
    git(path.dirname(clone), 'clone', '-q', original, clone);
    const before = server.requests.length;
    for (const dir of [original, clone]) {
      const again = await cliAsync(['evaluate-test', '--json', '-C', dir], { env: OFFLINE });
      expect(again.stderr).not.toMatch(/API_KEY_MISSING/);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ passRate: first.passRate, repeated: true });
      for (const args of [['log'], ['show', 'train-001'], ['report', '--out', path.join(tempDir(), 'report')], ['prompts', '--role', 'critic']]) {
        const read = await cliAsync([...args, '-C', dir], { env: OFFLINE });
        expect(read.stderr, args.join(' ')).not.toMatch(/API_KEY_MISSING|internal error/);
        expect(read.code, `${args.join(' ')}: ${read.stderr}`).toBe(0);
      }
    }
    expect(server.requests.length).toBe(before);
    // A release that is not sealed yet still needs the key, and says so before running anything.
    const unsealed = path.join(tempDir(), 'unsealed');
    git(path.dirname(unsealed), 'clone', '-q', original, unsealed);
    git(unsealed, 'commit', '-q', '--allow-empty', '-m', 'a later commit on the line');
    const needsKey = await cliAsync(['evaluate-test', '-C', unsealed], { env: OFFLINE });
    expect(needsKey.code).toBe(2);
    expect(needsKey.stderr).toMatch(/API_KEY_MISSING/);
  }, 180_000);
});

describe('one vocabulary that can be curated', () => {
  it('`labels merge` records an alias in git: `labels` and the synthesizer’s enum see one label, `log` shows earlier decisions as recorded', async () => {
    const dir = path.join(tempDir(), 'curated');
    git(path.dirname(dir), 'clone', '-q', original, dir);
    git(dir, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
    const listed = await cliAsync(['labels', '--json', '-C', dir], { env: OFFLINE });
    expect(listed.code, listed.stderr).toBe(0);
    const before = (JSON.parse(listed.stdout) as { labels: Array<{ label: string; cases: number }> }).labels;
    expect(before.length).toBeGreaterThanOrEqual(2);
    const [a, b] = before.map((l) => l.label) as [string, string];
    const logBefore = (await cliAsync(['log', '--json', '-C', dir], { env: OFFLINE })).stdout;

    const merged = await cliAsync(['labels', 'merge', a, b, '--into', 'merged_symptom', '-C', dir], { env: OFFLINE });
    expect(merged.code, merged.stderr).toBe(0);
    const alias = JSON.parse(git(dir, 'show', `refs/agentdevel/labels/${BP}:labels.json`)) as { schema: string; aliases: Array<{ from: string; to: string }> };
    expect(alias.schema).toBe('agentdevel/labels@2');
    expect(alias.aliases.map((x) => [x.from, x.to])).toEqual([[a, 'merged_symptom'], [b, 'merged_symptom']]);

    const after = (JSON.parse((await cliAsync(['labels', '--json', '-C', dir], { env: OFFLINE })).stdout) as { labels: Array<{ label: string; cases: number; aliases: string[] }> }).labels;
    expect(after.map((l) => l.label)).not.toContain(a);
    expect(after.find((l) => l.label === 'merged_symptom')).toMatchObject({ aliases: [a, b] });
    const prompt = await cliAsync(['prompts', '--role', 'synthesizer', '-C', dir], { env: OFFLINE });
    expect(prompt.code, prompt.stderr).toBe(0);
    // The intent's targets: the vocabulary (the edits' types have an enum of their own).
    const enumText = /"targets": \{[^{]*"items": \{\s*"type": "string",\s*"enum": \[([^\]]*)\]/.exec(prompt.stdout)?.[1] ?? '';
    expect(enumText).toContain('"merged_symptom"');
    expect(enumText).not.toContain(`"${a}"`);
    expect(enumText).not.toContain(`"${b}"`);
    expect((await cliAsync(['log', '--json', '-C', dir], { env: OFFLINE })).stdout).toBe(logBefore);
    // A label that was never recorded is refused, and nothing is written.
    const unknown = await cliAsync(['labels', 'merge', a, 'never_seen_label', '-C', dir], { env: OFFLINE });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"never_seen_label" is not in the taxonomy/);
  }, 120_000);
});

describe('aliases scoped in time', () => {
  it('replays iteration 2 in a clone after `labels merge` was recorded: its critic sees the taxonomy as it stood, so no REPLAY_MISS', async () => {
    // Two labels iteration 1 recorded (so iteration 2's critic was shown both), merged after both iterations.
    const first = decisionOf(original, 1);
    const folder = first.outcome === 'promoted' ? `releases/${BP}/${String(first.release).split('/').at(-1)}` : `releases/${BP}/rejected/iter-001`;
    const recorded = (JSON.parse(git(original, 'show', `${auditRef(1)}:${folder}/taxonomy.json`)) as { labels: Array<{ label: string }> }).labels.map((l) => l.label);
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    const merged = await cliAsync(['labels', 'merge', recorded[0] as string, recorded[1] as string, '-C', original], { env: OFFLINE });
    expect(merged.code, merged.stderr).toBe(0);
    const alias = JSON.parse(git(original, 'show', `refs/agentdevel/labels/${BP}:labels.json`)) as { aliases: Array<{ effective: unknown }> };
    expect(alias.aliases[0]?.effective).toEqual({ iteration: 3, stage: 'start' });

    const copy = await cloneBefore(2);
    expect(git(copy, 'rev-parse', `refs/agentdevel/labels/${BP}`)).toBe(git(original, 'rev-parse', `refs/agentdevel/labels/${BP}`));
    const before = server.requests.length;
    const replayed = await cliAsync(['iterate', '--max-iterations', '1', '--replay', cassette, '-C', copy], { env: OFFLINE });
    expect(replayed.stderr).not.toMatch(/REPLAY_MISS|internal error/);
    expect(replayed.code, replayed.stderr).toBe(0);
    const mine = decisionOf(copy, 2);
    const theirs = decisionOf(original, 2);
    expect([mine.outcome, mine.release, mine.gate.f2p, mine.gate.p2f]).toEqual([theirs.outcome, theirs.release, theirs.gate.f2p, theirs.gate.p2f]);
    expect(server.requests.length).toBe(before);
    // Outside the loop the merge is in effect: `labels` in the clone lists one label.
    const labels = JSON.parse((await cliAsync(['labels', '--json', '-C', copy], { env: OFFLINE })).stdout) as { labels: Array<{ label: string }> };
    expect(labels.labels.map((l) => l.label)).not.toContain(recorded[1]);
  }, 240_000);
});
