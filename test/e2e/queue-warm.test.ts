// Warm workers over a real Redis and real `agentdevel worker` processes: a worker that starts
// prepares the version the coordinator published last before it takes a job, reuses its checkout
// run after run while the version is the same, undoes what a run wrote into it, and still checks
// out another version when a job names one. The worker's log counts the checkouts it made.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { redisCommand, startRedisServer, stopAll } from '../helpers/redis.ts';
import { cliAsync, git, removeDir, repoRoot, tempDir } from '../helpers/workspace.ts';
import { stopped, until } from '../helpers/waits.ts';
import { spawnersOf } from '../helpers/processes.ts';

const PASSWORD = 'warm-pw-61c0e2d9';
const QUEUE_KEY = 'warm-key-0d3b8e41a9c7f25e';
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');

let scratch: string;
let port: number;
let redis: ChildProcess | null = null;
const children: ChildProcess[] = [];

const queueUrl = () => `redis://:${PASSWORD}@127.0.0.1:${port}`;

/** An agent that answers `answer`, and says whether a file an earlier case-trial leaves in its folder was there. */
const agent = (answer: number) =>
  `read -r _case || true\nif [ -f left-behind ]; then seen=1; else seen=0; fi\ntouch left-behind\nprintf '{"type":"final","output":{"answer":${answer},"seen":%s}}\\n' "$seen"\n`;

function workspace(): string {
  const dir = path.join(scratch, 'workspace');
  const json = (file: string, value: unknown) => writeFileSync(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  mkdirSync(path.join(dir, 'blueprints', 'marker'), { recursive: true });
  mkdirSync(path.join(dir, 'rubrics', 'marks'), { recursive: true });
  json('agentdevel.config.json', { blueprint: 'marker', task: 'marks', models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, trials: 1, concurrency: 1 });
  json('blueprints/marker/blueprint.json', { runtime: 'command', command: ['sh', 'agent.sh'], timeoutMs: 30_000 });
  writeFileSync(path.join(dir, 'blueprints', 'marker', 'agent.sh'), agent(42));
  json('rubrics/marks/task.json', {
    rubric: 'rubric.md',
    scorers: [
      { kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer', tolerance: 0 },
      { kind: 'numeric', path: 'seen', expectedFromCase: 'expected.seen', tolerance: 0 },
    ],
  });
  writeFileSync(path.join(dir, 'rubrics', 'marks', 'rubric.md'), '# Marks\n\nAnswer 42 in a clean folder.\n');
  const cases = Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `case-${i}`, question: 'What is 40 + 2?', expected: { answer: 42, seen: 0 } }));
  writeFileSync(path.join(dir, 'rubrics', 'marks', 'train.jsonl'), `${cases.join('\n')}\n`);
  writeFileSync(path.join(dir, 'rubrics', 'marks', 'test.jsonl'), `${cases[0]}\n`);
  writeFileSync(path.join(dir, '.gitignore'), '.agentdevel/\ntraces/\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'workspace');
  return dir;
}

function startWorker(cache: string): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, [bin, 'worker', '--queue', queueUrl(), '--concurrency', '2', '--cache', path.join(scratch, cache)], {
    env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  return { child, log: () => log };
}

/** One case per run: job ids are their content, so each run's case is new to the queue. */
async function runCase(dir: string, id: string): Promise<{ graded: number; passed: number }> {
  const result = await cliAsync(['run', '-C', dir, '--queue', queueUrl(), '--case', id, '--json'], { env: { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { graded: number; passed: number };
}

const checkouts = (log: string) => [...log.matchAll(/checked out ([0-9a-f]{12})/g)].map((m) => m[1]);

beforeAll(async () => {
  scratch = tempDir('agentdevel-queue-warm-');
  port = await freePort();
  redis = await startRedisServer({ port, password: PASSWORD }, scratch);
}, 30_000);

afterAll(async () => {
  await stopAll([...children, ...(redis ? [redis] : [])]);
  if (scratch) removeDir(scratch);
});

it('a worker prepares the version published last before its first job, keeps its checkout clean across runs, and checks out another version when a job names one', async () => {
  const dir = workspace();
  const first = startWorker('cache-first');
  await until(() => first.log().includes('taking case-trials'), 30_000, 'the first worker');
  // Run 1 leaves a file in the agent's folder of the checkout; run 2 comes to it idle: it is
  // made afresh, so its agent finds the folder as committed (seen = 0: a pass).
  expect(await runCase(dir, 'case-0')).toEqual(expect.objectContaining({ graded: 1, passed: 1 }));
  expect(await runCase(dir, 'case-1')).toEqual(expect.objectContaining({ graded: 1, passed: 1 }));
  expect(first.log()).toMatch(/afresh \(a run had changed its files\); checkouts made: 2, afresh: 1/);
  first.child.kill('SIGTERM');
  await stopped(first.child, 5000);

  // A new worker with an empty cache: the version the last run published is checked out and its
  // runtime started before it says it takes case-trials.
  const second = startWorker('cache-second');
  await until(() => second.log().includes('taking case-trials'), 30_000, 'the second worker');
  // Its spawner is running already (the agent's launcher, or agentdevel's spawner where no launcher is built).
  expect(spawnersOf(second.child.pid as number).length).toBeGreaterThan(0);
  const [tree] = checkouts(first.log());
  const startLog = second.log();
  expect(startLog.indexOf(`checked out ${tree}`)).toBeGreaterThanOrEqual(0);
  expect(startLog.indexOf(`prepared ${tree}`)).toBeLessThan(startLog.indexOf('taking case-trials'));
  expect(startLog.indexOf(`prepared ${tree}`)).toBeGreaterThan(startLog.indexOf(`checked out ${tree}`));
  // Its first job on that version checks nothing out again.
  expect(await runCase(dir, 'case-2')).toEqual(expect.objectContaining({ graded: 1, passed: 1 }));
  expect(checkouts(second.log())).toEqual([tree]);

  // Another commit: the job names it, and the worker checks it out and runs it (it answers 41: a fail).
  writeFileSync(path.join(dir, 'blueprints', 'marker', 'agent.sh'), agent(41));
  git(dir, 'commit', '-qam', 'answer 41');
  expect(await runCase(dir, 'case-3')).toEqual(expect.objectContaining({ graded: 1, passed: 0 }));
  const trees = checkouts(second.log());
  expect(trees).toHaveLength(2);
  expect(trees[1]).not.toBe(tree);
  expect(redisCommand({ port, password: PASSWORD }, 'exists', 'agentdevel:last-version')).toBe('1');
}, 120_000);
