// The gate on a mature agent, through the CLI: 85% of the cases pass 97% of the time, 10% pass
// 70%, 5% pass 20%. A candidate under which one case that nearly always passed now fails half the
// time is the regression users fear most, and one screen trial misses it half the time; the
// second look at cases every record passed (gate.secondLook, auto on such an agent) selects it
// three times in four, and on such an agent a possible regression whose records all passed is
// sized for .97 → .5 and stops for futility only below half the usual bar (confirmation.ts). The
// agent's draws are seeded (test/helpers/shell-agent.ts), so the test gives the same result every
// time. Over seeds 1 to 24 this design rejected and named the case in 13 gates, the design before
// it (K for a drop of 0.6 only, the usual futility bar) in 11; on seeds 3 to 10, the ones used
// here, 4 against 3, so this test fails on that design (it stopped gate 3's case as futile).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git, runMain, tempDir, writeFileIn } from '../helpers/workspace.ts';
import { SHELL_AGENT } from '../helpers/shell-agent.ts';

const CASES = 40;
const id = (i: number) => `c${String(i).padStart(2, '0')}`;
/** c00 to c33 pass 97% of the time, c34 to c37 70%, c38 and c39 20%. */
const permille = (i: number) => (i < 34 ? 970 : i < 38 ? 700 : 200);
const BROKEN = id(0);
const GATES = 8;
/** The first gate's seed (and candidate): seeds 3 to 10. */
const FIRST = 3;

let dir: string;

const agentdevel = (args: string[], seed: number) =>
  runMain([...args, '-C', dir], { cwd: dir, env: { AGENT_SEED: String(seed), AGENT_MARKER: path.join(dir, '..', 'marker'), AGENT_DROP: '0' } });

beforeAll(async () => {
  dir = path.join(tempDir('agentdevel-mature-'), 'ws');
  writeFileIn(dir, 'agentdevel.config.json', JSON.stringify({ blueprint: 'adder', task: 'sums', models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, command: { passEnv: ['AGENT_SEED', 'AGENT_MARKER', 'AGENT_DROP'] } }, null, 2));
  writeFileIn(dir, 'blueprints/adder/blueprint.json', JSON.stringify({ runtime: 'command', command: ['sh', 'agent.sh'], timeoutMs: 20_000 }));
  writeFileIn(dir, 'blueprints/adder/agent.sh', SHELL_AGENT);
  writeFileIn(dir, 'rubrics/sums/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer' }] }));
  writeFileIn(dir, 'rubrics/sums/rubric.md', 'Answer with the sum of a and b.\n');
  writeFileIn(dir, 'rubrics/sums/train.jsonl', Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: id(i), a: i, b: 2 * i, permille: permille(i), expected: { answer: 3 * i } })).join('\n') + '\n');
  writeFileIn(dir, 'rubrics/sums/test.jsonl', `${JSON.stringify({ id: 't0', a: 1, b: 1, permille: 1000, expected: { answer: 2 } })}\n`);
  writeFileIn(dir, '.gitignore', '.agentdevel/\ntraces/\n');
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'a mature adder');
  // Each candidate breaks the same case, with its own comment so that each draws its own screen.
  for (const gate of [0, ...Array.from({ length: GATES }, (_, i) => FIRST + i)]) {
    git(dir, 'checkout', '-q', '-b', `soft-break-${gate}`, 'main');
    writeFileIn(dir, 'blueprints/adder/agent.sh', `# soft break, edit ${gate}\n${SHELL_AGENT.replace('# chances\n', `# chances\ncase "$id" in ${BROKEN}) chance=500;; esac\n`)}`);
    git(dir, 'commit', '-qam', `soft break ${gate}`);
  }
  git(dir, 'checkout', '-q', 'main');
  // The release's three records, taken once and reused by every gate.
  expect((await agentdevel(['run'], 0)).code).toBe(0);
  expect((await agentdevel(['gate', '--candidate', 'soft-break-0', '--json'], 0)).code).toBeLessThanOrEqual(1);
}, 120_000);

describe('the gate on a mature agent', () => {
  it('confirms a case that fell from .97 to .5 in at least 6 of 8 gates, and rejects and names it in at least 4', async () => {
    const outcomes: string[] = [];
    let confirmed = 0;
    for (let gate = FIRST; gate < FIRST + GATES; gate += 1) {
      const result = await agentdevel(['gate', '--candidate', `soft-break-${gate}`, '--json'], gate);
      const json = JSON.parse(result.stdout) as { decision: string; p2f: string[]; tests: Array<{ caseId: string }> };
      if (json.tests.some((t) => t.caseId === BROKEN)) confirmed += 1;
      outcomes.push(`${json.decision} [${json.p2f.join(' ')}]`);
    }
    const caught = outcomes.filter((o) => o.startsWith('reject') && o.includes(BROKEN)).length;
    // One screen trial selects it half the time; the second look, three times in four.
    expect(confirmed, outcomes.join('; ')).toBeGreaterThanOrEqual(6);
    expect(caught, outcomes.join('; ')).toBeGreaterThanOrEqual(4);
  }, 300_000);
});
