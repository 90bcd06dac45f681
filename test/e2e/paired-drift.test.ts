// The gate's confirmation runs each case's baseline and candidate trials as a pair, so a provider
// that changes in the middle of a round touches both sides alike. The agent here is a `command`
// script whose pass chances fall by AGENT_DROP at the moment the first side's block of the first
// confirmation round would end: the first fresh trial (number 3, after the three records) notes
// which version ran it in a marker file, and from the first fresh trial of the other version on,
// every trial of both versions passes less often. Had one side's whole request run before the
// other's (as at `concurrency: 1` it once did), every first fresh pair would differ the same way
// and the paired test would reject an unchanged candidate. The draws are seeded (AGENT_SEED, the
// trial, the case and the script's own text), so the suite is deterministic. A shell script, not
// node, keeps each case-trial a few milliseconds.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git, runMain, tempDir, writeFileIn } from '../helpers/workspace.ts';
import { SHELL_AGENT as AGENT } from '../helpers/shell-agent.ts';


/** 40 cases that pass 60% of the time: about half of them move at the screen, by noise alone. */
const CASES = 40;
const id = (i: number) => `c${String(i).padStart(2, '0')}`;
const GATES = 10;

let dir: string;
let markers: string;

const agentdevel = (args: string[], env: Record<string, string>) => runMain([...args, '-C', dir], { cwd: dir, env: { AGENT_SEED: '0', AGENT_MARKER: path.join(markers, 'none'), AGENT_DROP: '0', ...env } });

beforeAll(async () => {
  const root = tempDir('agentdevel-paired-');
  dir = path.join(root, 'ws');
  markers = path.join(root, 'markers');
  writeFileIn(markers, 'README', 'one marker per gate\n');
  writeFileIn(dir, 'agentdevel.config.json', JSON.stringify({ blueprint: 'adder', task: 'sums', concurrency: 1, models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, command: { passEnv: ['AGENT_SEED', 'AGENT_MARKER', 'AGENT_DROP'] } }, null, 2));
  writeFileIn(dir, 'blueprints/adder/blueprint.json', JSON.stringify({ runtime: 'command', command: ['sh', 'agent.sh'], timeoutMs: 20_000 }));
  writeFileIn(dir, 'blueprints/adder/agent.sh', AGENT);
  writeFileIn(dir, 'rubrics/sums/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer' }] }));
  writeFileIn(dir, 'rubrics/sums/rubric.md', 'Answer with the sum of a and b.\n');
  writeFileIn(dir, 'rubrics/sums/train.jsonl', Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: id(i), a: i, b: 2 * i, permille: 600, expected: { answer: 3 * i } })).join('\n') + '\n');
  writeFileIn(dir, 'rubrics/sums/test.jsonl', `${JSON.stringify({ id: 't0', a: 1, b: 1, permille: 1000, expected: { answer: 2 } })}\n`);
  writeFileIn(dir, '.gitignore', '.agentdevel/\ntraces/\n');
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'a noisy adder');
  // Unchanged candidates: each a comment-only edit, so each draws its own screen.
  for (let gate = 0; gate <= GATES; gate += 1) {
    git(dir, 'checkout', '-q', '-b', `comment-${gate}`, 'main');
    writeFileIn(dir, 'blueprints/adder/agent.sh', `# unchanged, edit ${gate}\n${AGENT}`);
    git(dir, 'commit', '-qam', `comment ${gate}`);
  }
  git(dir, 'checkout', '-q', 'main');
  // The release's three records, taken once before any drift (trials 0 to 2) and reused by every gate.
  expect((await agentdevel(['run'], {})).code).toBe(0);
  const warmUp = await agentdevel(['gate', '--candidate', 'comment-0', '--json'], {});
  expect(warmUp.code, warmUp.stderr).toBeLessThanOrEqual(1);
}, 120_000);

describe('a provider that changes inside a confirmation round, at concurrency 1', () => {
  it('touches both sides of each pair alike: an unchanged candidate is accepted in at least 9 of 10 gates when pass chances fall by 0.6', async () => {
    const decisions: string[] = [];
    for (let gate = 1; gate <= GATES; gate += 1) {
      const marker = path.join(markers, `gate-${gate}`);
      rmSync(`${marker}.dropped`, { force: true });
      const result = await agentdevel(['gate', '--candidate', `comment-${gate}`, '--json'], { AGENT_SEED: String(gate), AGENT_MARKER: marker, AGENT_DROP: '600' });
      const json = JSON.parse(result.stdout) as { decision: string; baselineScreen: string | null; reasons: string[] };
      expect(json.baselineScreen).toMatch(/3 records, 3 reused from this store; no baseline case-trial ran/);
      // The drop happened inside this gate's first round (the marker saw both versions).
      expect(() => execFileSync('test', ['-f', `${marker}.dropped`])).not.toThrow();
      decisions.push(json.decision);
    }
    expect(decisions.filter((d) => d === 'accept').length, decisions.join(', ')).toBeGreaterThanOrEqual(9);
  }, 300_000);
});
