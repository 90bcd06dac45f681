// A `command` workspace whose answers live outside `expected`: the numeric scorer reads them
// from `key.sum` (expectedFromCase), and each case carries its own requirement. Its agent writes
// the case exactly as it received it on stdin into its trace, so a test can see what it saw.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliAsync, git, tempDir } from './workspace.ts';

/** The sums the scorer reads from the cases: numbers found nowhere else in a case. */
export const ANSWERS: Readonly<Record<string, number>> = { 'sum-1': 73_421, 'sum-2': 58_163, 'sum-t1': 91_357 };

const ECHO_AGENT = `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const emit = (event) => process.stdout.write(JSON.stringify(event) + '\\n');
  emit({ type: 'message', role: 'user', text: input });
  const [, a, b] = /(\\d+) \\+ (\\d+)/.exec(JSON.parse(input).question);
  emit({ type: 'final', output: { answer: Number(a) + Number(b) } });
});
`;

function caseLine(id: string, a: number): string {
  const sum = ANSWERS[id] as number;
  return JSON.stringify({ id, question: `What is ${a} + ${sum - a}?`, key: { sum, note: 'kept' }, requirements: [{ id: `says-${id}`, text: `Answers ${sum} and nothing else` }] });
}

/** Scaffolds it with `agentdevel init --runtime command` and commits it on main. */
export async function answerKeyWorkspace(): Promise<string> {
  const dir = path.join(tempDir('agentdevel-answers-'), 'answers');
  mkdirSync(dir);
  git(dir, 'init', '-q', '--initial-branch=main');
  const init = await cliAsync(['init', '--runtime', 'command', '-C', dir]);
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  const task = path.join(dir, 'rubrics/arithmetic');
  writeFileSync(path.join(task, 'task.json'), `${JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'key.sum' }] }, null, 2)}\n`);
  writeFileSync(path.join(task, 'train.jsonl'), `${caseLine('sum-1', 1000)}\n${caseLine('sum-2', 2000)}\n`);
  writeFileSync(path.join(task, 'test.jsonl'), `${caseLine('sum-t1', 3000)}\n`);
  writeFileSync(path.join(dir, 'blueprints/my-agent/agent.mjs'), ECHO_AGENT);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'answers under key.sum');
  return dir;
}
