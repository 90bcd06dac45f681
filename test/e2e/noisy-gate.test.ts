// The gate end to end on a noisy agent: a `command` blueprint that answers each case right with
// a fixed per-case chance. Its randomness is seeded from AGENT_SEED, the trial number and its
// own source, so a comment-only edit draws afresh while the suite stays deterministic.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { git, lineState, tempDir } from '../helpers/workspace.ts';

const AGENT = `import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
// Cases this version gets wrong on purpose (none in the release).
const broken = new Set([]);
const input = JSON.parse(readFileSync(0, 'utf8'));
const self = createHash('sha256').update(readFileSync(new URL(import.meta.url))).digest('hex');
const draw = createHash('sha256').update([process.env.AGENT_SEED, process.env.AGENTDEVEL_TRIAL, input.id, self].join(':')).digest();
const right = !broken.has(input.id) && draw.readUInt32BE(0) / 2 ** 32 < input.chance;
console.log(JSON.stringify({ type: 'final', output: { answer: input.a + input.b + (right ? 0 : 1) } }));
`;

/** 30 cases: 12 always right, 6 never, 12 right with chances from 0.2 to 0.8. */
function cases(): string {
  const chances = [...Array(12).fill(1), ...Array(6).fill(0), ...Array.from({ length: 12 }, (_, i) => 0.2 + (0.6 * i) / 11)];
  return chances.map((chance, i) => JSON.stringify({ id: `c${String(i).padStart(2, '0')}`, a: i, b: 2 * i, chance, expected: { answer: 3 * i } })).join('\n') + '\n';
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;

async function agentdevel(dir: string, args: string[], seed: number): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const out = new Writable({
    write: (chunk, _encoding, done) => {
      stdout += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  const code = await main([...args, '-C', dir], { stdout: out, stderr: quiet(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AGENT_SEED: String(seed) }, cwd: dir, clock: { now: () => new Date() } });
  return { code, stdout };
}

let dir: string;
const alwaysRight = ['c00', 'c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08', 'c09', 'c10', 'c11'];

beforeAll(() => {
  dir = path.join(tempDir('agentdevel-noisy-'), 'ws');
  write(dir, 'agentdevel.config.json', JSON.stringify({ blueprint: 'adder', task: 'sums', models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, command: { passEnv: ['AGENT_SEED'] } }, null, 2));
  write(dir, 'blueprints/adder/blueprint.json', JSON.stringify({ runtime: 'command', command: ['node', 'agent.mjs'], timeoutMs: 20_000 }));
  write(dir, 'blueprints/adder/agent.mjs', AGENT);
  write(dir, 'rubrics/sums/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer' }] }));
  write(dir, 'rubrics/sums/rubric.md', 'Answer with the sum of a and b.\n');
  write(dir, 'rubrics/sums/train.jsonl', cases());
  write(dir, 'rubrics/sums/test.jsonl', `${JSON.stringify({ id: 't0', a: 1, b: 1, chance: 1, expected: { answer: 2 } })}\n`);
  write(dir, '.gitignore', '.agentdevel/\ntraces/\n');
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'a noisy adder');
  const agent = path.join(dir, 'blueprints/adder/agent.mjs');
  git(dir, 'checkout', '-q', '-b', 'comment-only');
  writeFileSync(agent, `// Adds two numbers.\n${AGENT}`);
  git(dir, 'commit', '-qam', 'a comment');
  git(dir, 'checkout', '-q', '-b', 'breaks-three', 'main');
  writeFileSync(agent, AGENT.replace('new Set([])', "new Set(['c02', 'c05', 'c09'])"));
  git(dir, 'commit', '-qam', 'break three cases');
  git(dir, 'checkout', '-q', 'main');
});

function freshStore(): void {
  rmSync(path.join(dir, '.agentdevel'), { recursive: true, force: true });
  rmSync(path.join(dir, 'traces'), { recursive: true, force: true });
}

describe('the gate on a noisy command agent', () => {
  it('accepts a comment-only change in at least 18 of 20 fresh gates, and leaves the line alone', async () => {
    const before = lineState(dir);
    const outcomes: string[] = [];
    for (let seed = 1; seed <= 20; seed += 1) {
      freshStore();
      const result = await agentdevel(dir, ['gate', '--candidate', 'comment-only', '--json'], seed);
      const json = JSON.parse(result.stdout) as { decision: string; p2f: string[]; flaky: string[]; screening: { p2f: string[]; f2p: string[] } };
      expect(result.code).toBe(json.decision === 'accept' ? 0 : 1);
      outcomes.push(json.decision);
      // Nothing the candidate did not do is named: the always-right and never-right cases never move.
      for (const id of json.p2f) expect(alwaysRight).not.toContain(id);
    }
    expect(outcomes.filter((o) => o === 'accept').length).toBeGreaterThanOrEqual(18);
    expect(lineState(dir)).toBe(before);
  }, 300_000);

  it('rejects a candidate that breaks three always-right cases, naming exactly those three', async () => {
    freshStore();
    const result = await agentdevel(dir, ['gate', '--candidate', 'breaks-three', '--json'], 7);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { decision: string; p2f: string[]; tests: Array<{ caseId: string; outcome: string; confirmation: unknown }> };
    expect(json.decision).toBe('reject');
    expect(json.p2f).toEqual(['c02', 'c05', 'c09']);
    for (const id of json.p2f) expect(json.tests.find((t) => t.caseId === id)).toMatchObject({ outcome: 'confirmed' });
  }, 120_000);
});
