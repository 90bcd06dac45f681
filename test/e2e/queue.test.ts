// Case-trials on BullMQ workers over a real Redis: a real redis-server on 127.0.0.1 (with a
// password, so every output is checked for it), real `agentdevel worker` processes, the real CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from '../helpers/free-port.ts';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { readTrace } from '../../src/stages/run/trace-file.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { QUEUE_NAME } from '../../src/adapters/queue/bullmq.ts';
import { bundleSnapshot, checkoutFromRemote } from '../../src/adapters/git/snapshot.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { ANSWERS, answerKeyWorkspace } from '../helpers/answer-keys.ts';
import { cliAsync, exampleWorkspace, removeDir, repoRoot, tempDir, type CliResult } from '../helpers/workspace.ts';
import { stopped, until } from '../helpers/waits.ts';
import { redisCommand, startRedisServer, stopAll } from '../helpers/redis.ts';

const PASSWORD = 'queue-pw-7f3a9c21e5';
/** The key coordinator and workers share; never in Redis, never in any output. */
const QUEUE_KEY = 'queue-key-5be1d0c94a7e2f86';
const key = Buffer.from(QUEUE_KEY);
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');
const clock = { now: () => new Date() };

let scratch: string;
let port: number;
let redis: ChildProcess | null = null;
const workers: Array<{ child: ChildProcess; log: () => string }> = [];
const outputs: string[] = [];

async function startRedis(): Promise<void> {
  redis = await startRedisServer({ port, password: PASSWORD }, scratch);
}

const redisCli = (...args: string[]): string => redisCommand({ port, password: PASSWORD }, ...args);

const completedJobs = () => Number(redisCli('ZCARD', 'bull:agentdevel-case-trials:completed'));

const queueUrl = () => `redis://:${PASSWORD}@127.0.0.1:${port}`;

function startWorker(url = queueUrl(), env: Record<string, string> = {}, shortLocks = true): { child: ChildProcess; log: () => string } {
  // Short locks, so a killed worker's jobs are taken over within seconds.
  const locks = shortLocks ? ['--lock-duration', '2000', '--stalled-interval', '1000'] : [];
  const child = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', '4', '--cache', path.join(scratch, `cache-${workers.length}`), ...locks], {
    env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const worker = { child, log: () => log };
  workers.push(worker);
  return worker;
}

async function agentdevel(args: readonly string[]): Promise<CliResult> {
  const result = await cliAsync(args, { env: { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

function runRecords(dir: string, runId: string): CaseRecord[] {
  const store = Store.open(dir, clock);
  try {
    return store.records(runId);
  } finally {
    store.close();
  }
}

function runStatus(dir: string, runId: string): string | undefined {
  const store = Store.open(dir, clock);
  try {
    return store.run(runId)?.status;
  } finally {
    store.close();
  }
}

/** pass/fail (or infra_error) per case-trial. */
function verdicts(records: readonly CaseRecord[]): Record<string, string> {
  return Object.fromEntries(records.map((r) => [`${r.caseId}#${r.trial}`, r.status === 'ok' ? String(r.pass) : r.status]));
}

/** A trace without what differs between two runs of the same version: timings. */
function withoutTimings(trace: readonly TraceEvent[]): unknown[] {
  return trace.map((event) => JSON.parse(JSON.stringify(event, (key, value: unknown) => (/latency|ms$|At$/i.test(key) ? undefined : value))) as unknown);
}

async function traceOf(dir: string, record: CaseRecord): Promise<unknown[]> {
  const trace = await readTrace(path.join(dir, 'traces'), record.traceRef);
  expect(trace, `trace of ${record.caseId}#${record.trial}`).not.toBeNull();
  return withoutTimings(trace ?? []);
}

let local: { dir: string; runId: string; records: CaseRecord[] };

beforeAll(async () => {
  scratch = tempDir('agentdevel-queue-');
  port = await freePort();
  await startRedis();
  startWorker();
  startWorker();
  // The local baseline: three trials, so the queue runs below compare case-trial by case-trial.
  const dir = await exampleWorkspace();
  const result = await agentdevel(['run', '-C', dir, '--trials', '3', '--json']);
  expect(result.code, result.stderr).toBe(0);
  const runId = (JSON.parse(result.stdout) as { runId: string }).runId;
  local = { dir, runId, records: runRecords(dir, runId) };
}, 120_000);

afterAll(async () => {
  await stopAll([...workers.map((w) => w.child), ...(redis ? [redis] : [])]);
  if (scratch) removeDir(scratch);
});

describe('snapshots from the workspace\'s git remote', () => {
  it('a worker fetches the version by commit from a local bare remote; a commit the remote lacks falls back to the bundle', async () => {
    const dir = await exampleWorkspace();
    const remote = path.join(scratch, 'remote.git');
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    // A blueprint whose bundle is large (over 1 MB): the remote is asked first (a small one is read from Redis).
    writeFileSync(path.join(dir, 'blueprints', 'support-agent', 'reference.bin'), randomBytes(1200 * 1024));
    expect(git('add', '-A').status).toBe(0);
    expect(git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'a large file').status).toBe(0);
    expect(git('clone', '-q', '--bare', dir, remote).status).toBe(0);
    expect(git('remote', 'add', 'origin', remote).status).toBe(0);
    const head = git('rev-parse', 'HEAD').stdout.trim();
    // The check a worker makes: the remote's commit rebuilds exactly the snapshot's tree (the splits left out).
    const folders = ['blueprints/support-agent', 'rubrics/orders'];
    const splits = ['rubrics/orders/train.jsonl', 'rubrics/orders/test.jsonl'];
    const bundle = await bundleSnapshot(dir, [...folders, ...splits.map((s) => `:(exclude)${s}`)], path.join(scratch, 'bundles'));
    const cache = path.join(scratch, 'remote-check');
    expect(await checkoutFromRemote({ url: remote, commit: head }, folders, splits, bundle.tree, path.join(cache, 'remote.git'), path.join(cache, 'snapshot'))).toBe(true);
    expect(readFileSync(path.join(cache, 'snapshot', 'rubrics', 'orders', 'rubric.md'), 'utf8')).toBe(readFileSync(path.join(dir, 'rubrics', 'orders', 'rubric.md'), 'utf8'));
    expect(spawnSync('find', [path.join(cache, 'snapshot'), '-name', '*.jsonl'], { encoding: 'utf8' }).stdout.trim()).toBe('');
    // A user's hooks never run on a worker's checkout (a post-checkout hook that fails, here).
    const hooks = path.join(scratch, 'user-hooks');
    mkdirSync(hooks, { recursive: true });
    writeFileSync(path.join(hooks, 'post-checkout'), '#!/bin/sh\necho hook ran >&2\nexit 1\n', { mode: 0o755 });
    writeFileSync(path.join(scratch, 'user.gitconfig'), `[core]\n\thooksPath = ${hooks}\n`);
    const globalConfig = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = path.join(scratch, 'user.gitconfig');
    try {
      expect(await checkoutFromRemote({ url: remote, commit: head }, folders, splits, bundle.tree, path.join(cache, 'remote.git'), path.join(cache, 'with-hooks'))).toBe(true);
    } finally {
      if (globalConfig === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = globalConfig;
    }
    // The remote's folders must give exactly the snapshot's tree: other contents are never used.
    expect(await checkoutFromRemote({ url: remote, commit: head }, folders, splits, 'a'.repeat(40), path.join(cache, 'remote.git'), path.join(cache, 'mismatch'))).toBe(false);
    expect(existsSync(path.join(cache, 'mismatch'))).toBe(false);
    const unpushed = 'f'.repeat(40);
    expect(await checkoutFromRemote({ url: remote, commit: unpushed }, folders, splits, bundle.tree, path.join(cache, 'remote.git'), path.join(cache, 'other'))).toBe(false);

    // End to end: a fresh worker on a queue of its own checks the version out from the remote.
    const url = `${queueUrl()}/3`;
    const worker = startWorker(url);
    const cacheDir = path.join(scratch, `cache-${workers.length - 1}`);
    try {
      const result = await agentdevel(['run', '-C', dir, '--queue', url, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const { runId } = JSON.parse(result.stdout) as { runId: string };
      expect(verdicts(runRecords(dir, runId))).toEqual(verdicts(local.records.filter((r) => r.trial === 0)));
      expect(spawnSync('git', ['--git-dir', path.join(cacheDir, 'remote.git'), 'cat-file', '-e', `${head}^{commit}`]).status).toBe(0);
      expect(worker.log()).toMatch(/checked out [0-9a-f]{12} from the remote/);
    } finally {
      worker.child.kill('SIGTERM');
      await stopped(worker.child, 5000);
    }
  }, 120_000);
});

describe('rediss:// (TLS)', () => {
  it('connects to a TLS Redis whose certificate a private CA signed when that CA is named, and refuses it when not', async () => {
    const tls = path.join(scratch, 'tls');
    const openssl = (...args: string[]) => expect(spawnSync('openssl', args, { cwd: tls, encoding: 'utf8' }).status).toBe(0);
    spawnSync('mkdir', ['-p', tls]);
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=agentdevel test CA');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    writeFileSync(path.join(tls, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'ext.cnf');
    const tlsPort = await freePort();
    const server = spawn('redis-server', ['--port', '0', '--tls-port', String(tlsPort), '--bind', '127.0.0.1', '--tls-cert-file', 'server.crt', '--tls-key-file', 'server.key', '--tls-ca-cert-file', 'ca.crt', '--tls-auth-clients', 'no', '--requirepass', PASSWORD, '--save', '', '--appendonly', 'no'], { cwd: tls, stdio: 'ignore' });
    try {
      const ping = () => spawnSync('redis-cli', ['--tls', '--cacert', path.join(tls, 'ca.crt'), '-p', String(tlsPort), '-a', PASSWORD, '--no-auth-warning', 'ping'], { encoding: 'utf8' }).stdout.trim();
      await until(() => ping() === 'PONG', 10_000, 'the TLS redis-server');
      const url = `rediss://:${PASSWORD}@127.0.0.1:${tlsPort}`;
      const withCa = { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY, NODE_EXTRA_CA_CERTS: path.join(tls, 'ca.crt') };
      // Without the CA: the certificate is refused, an infrastructure failure (exit 3) that says why.
      const refused = await cliAsync(['run', '-C', local.dir, '--queue', url], { env: { ...withCa, NODE_EXTRA_CA_CERTS: undefined } });
      outputs.push(refused.stdout, refused.stderr);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/QUEUE_UNAVAILABLE: the queue at rediss:\/\/:\[redacted\]@127\.0\.0\.1:\d+ .*(self[- ]signed|certificate)/i);
      // With it: a worker and a run over TLS.
      const worker = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', '4', '--cache', path.join(tls, 'cache')], { env: { ...process.env, CI: 'true', ...withCa }, stdio: ['ignore', 'pipe', 'pipe'] });
      let log = '';
      worker.stderr?.on('data', (d: Buffer) => (log += d.toString()));
      try {
        const dir = await exampleWorkspace();
        const result = await cliAsync(['run', '-C', dir, '--queue', url, '--json'], { env: withCa });
        outputs.push(result.stdout, result.stderr, log);
        expect(result.code, result.stderr).toBe(0);
        expect(log).toMatch(/taking case-trials from rediss:/);
        const { runId } = JSON.parse(result.stdout) as { runId: string };
        expect(verdicts(runRecords(dir, runId))).toEqual(verdicts(local.records.filter((r) => r.trial === 0)));
      } finally {
        worker.kill('SIGTERM');
        await stopped(worker, 5000);
      }
    } finally {
      server.kill('SIGTERM');
      await stopped(server, 5000);
    }
  }, 120_000);
});

describe('--record and --replay through the queue', () => {
  it('a worker records the agent\'s model calls; a worker replaying them, with no network and no key, gives the same records', async () => {
    const server = await startFakeAnthropic(mockBrain);
    const cassette = path.join(scratch, 'cassette');
    const spawnWorker = (url: string, env: Record<string, string | undefined>, mode: string[]) => {
      const child = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', '4', '--cache', path.join(scratch, `cache-replay-${mode[0]}`), ...mode], {
        env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
      return { child, log: () => log };
    };
    try {
      const dir = await exampleWorkspace();
      const configFile = path.join(dir, 'agentdevel.config.json');
      const config = JSON.parse(readFileSync(configFile, 'utf8')) as { models: Record<string, string> };
      config.models.agent = 'claude-sonnet-5-5';
      writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
      const git = (cwd: string, ...args: string[]) => expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' }).status).toBe(0);
      git(dir, 'commit', '-qam', 'the agent on Claude');
      // Workspaces live outside the scratch folder, which holds only what workers and Redis write.
      const copy = path.join(tempDir(), 'replay-copy');
      git(path.dirname(copy), 'clone', '-q', dir, copy);
      // The coordinator never calls the agent's model: a dead address proves it.
      const coordinatorEnv = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-ant-coordinator-0123456789', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY };

      const recordUrl = `${queueUrl()}/9`;
      const recorder = spawnWorker(recordUrl, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-worker-0123456789' }, ['--record', cassette]);
      let recorded: CaseRecord[];
      try {
        const result = await cliAsync(['run', '-C', dir, '--queue', recordUrl, '--json'], { env: coordinatorEnv });
        outputs.push(result.stdout, result.stderr, recorder.log());
        expect(result.code, result.stderr + recorder.log()).toBe(0);
        recorded = runRecords(dir, (JSON.parse(result.stdout) as { runId: string }).runId);
      } finally {
        recorder.child.kill('SIGTERM');
        await stopped(recorder.child, 5000);
      }
      const agentCalls = server.requests.filter((r) => r.role === 'agent').length;
      expect(agentCalls).toBeGreaterThan(0);

      const replayUrl = `${queueUrl()}/10`;
      const replayer = spawnWorker(replayUrl, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined }, ['--replay', cassette]);
      try {
        const result = await cliAsync(['run', '-C', copy, '--queue', replayUrl, '--json'], { env: coordinatorEnv });
        outputs.push(result.stdout, result.stderr, replayer.log());
        expect(result.code, result.stderr + replayer.log()).toBe(0);
        const { runId, infraErrors } = JSON.parse(result.stdout) as { runId: string; infraErrors: number };
        expect(infraErrors).toBe(0);
        const replayed = runRecords(copy, runId);
        expect(verdicts(replayed)).toEqual(verdicts(recorded));
        expect(replayed.map((r) => r.output)).toEqual(recorded.map((r) => r.output));
      } finally {
        replayer.child.kill('SIGTERM');
        await stopped(replayer.child, 5000);
      }
      expect(server.requests.filter((r) => r.role === 'agent').length).toBe(agentCalls);
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('run --queue', () => {
  it('records the same pass/fail per case-trial and the same trace events as a local run', async () => {
    const dir = await exampleWorkspace();
    const result = await agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { runId, simulated } = JSON.parse(result.stdout) as { runId: string; simulated: boolean };
    expect(simulated).toBe(true);
    const records = runRecords(dir, runId);
    const localTrial0 = local.records.filter((r) => r.trial === 0);
    expect(records).toHaveLength(localTrial0.length);
    expect(verdicts(records)).toEqual(verdicts(localTrial0));
    const byKey = new Map(localTrial0.map((r) => [`${r.caseId}#${r.trial}`, r]));
    for (const record of records) {
      const twin = byKey.get(`${record.caseId}#${record.trial}`) as CaseRecord;
      expect(record.output).toEqual(twin.output);
      expect(record.scorer).toEqual(twin.scorer);
      expect(await traceOf(dir, record)).toEqual(await traceOf(local.dir, twin));
    }
    // The coordinator alone writes: the workers' checkouts hold no traces and no store.
    expect(spawnSync('find', [scratch, '-name', 'state.db', '-o', '-name', '*.jsonl', '-path', '*traces*'], { encoding: 'utf8' }).stdout.trim()).toBe('');
    // Grading stays with the coordinator: no job in Redis holds an expected value, and no
    // checkout (made from the bundle in Redis) holds a split.
    const train = readFileSync(path.join(dir, 'rubrics', 'orders', 'train.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; expected: unknown });
    const jobKeys = redisCli('--scan', '--pattern', `bull:${QUEUE_NAME}:*`).split('\n').filter((k) => /:[0-9a-f]{64}$/.test(k));
    const jobs = jobKeys.map((k) => JSON.parse(JSON.parse(redisCli('HGET', k, 'data')).body as string) as { testCase: Record<string, unknown> });
    expect(jobs.length).toBeGreaterThanOrEqual(train.length);
    for (const job of jobs) {
      expect(job.testCase).not.toHaveProperty('expected');
      const twin = train.find((c) => c.id === job.testCase.id);
      expect(twin, `a job for ${String(job.testCase.id)}`).toBeDefined();
      expect(JSON.stringify(job)).not.toContain(JSON.stringify(twin?.expected).slice(1, -1));
    }
    const checkouts = spawnSync('find', [scratch, '-path', '*snapshots*', '-name', 'rubric.md'], { encoding: 'utf8' }).stdout.trim();
    expect(checkouts).not.toBe('');
    expect(spawnSync('find', [scratch, '-path', '*snapshots*', '-name', '*.jsonl'], { encoding: 'utf8' }).stdout.trim()).toBe('');
  });

  it('--fresh runs every case-trial again on the workers; without it, a run of the same version takes the results left in Redis', async () => {
    // A database of its own, with a worker of its own: no other test's jobs are counted.
    const url = `${queueUrl()}/9`;
    startWorker(url);
    /** Jobs of the queue a worker took at or after `since` (ms). */
    const processedSince = (since: number) =>
      Number(
        redisCli(
          '-n',
          '9',
          'EVAL',
          "local n = 0 for _, k in ipairs(redis.call('keys', ARGV[1])) do if string.match(k, ':%x+$') and string.len(k) > 64 then local p = redis.call('hget', k, 'processedOn') if p and tonumber(p) >= tonumber(ARGV[2]) then n = n + 1 end end end return n",
          '0',
          `bull:${QUEUE_NAME}:*`,
          String(since),
        ),
      );
    const origin = await exampleWorkspace();
    let clones = 0;
    const runOnce = async (...extra: string[]) => {
      // Each run in a clone of its own (the same commit): its store has no run to reuse, only Redis may have results.
      const dir = path.join(scratch, `fresh-${(clones += 1)}`);
      expect(spawnSync('git', ['clone', '-q', origin, dir]).status).toBe(0);
      const since = Date.now();
      const result = await agentdevel(['run', '-C', dir, '--queue', url, '--json', ...extra]);
      expect(result.code, result.stderr).toBe(0);
      const { runId } = JSON.parse(result.stdout) as { runId: string };
      return { records: runRecords(dir, runId), processed: processedSince(since) };
    };
    await runOnce();
    const again = await runOnce();
    expect(again.processed).toBe(0);
    const fresh = await runOnce('--fresh');
    expect(fresh.records.length).toBeGreaterThan(0);
    expect(fresh.processed).toBe(fresh.records.length);
    expect(verdicts(fresh.records)).toEqual(verdicts(again.records));
  }, 120_000);

  it('a job carries no answer a scorer reads from anywhere in the case (expectedFromCase "key.sum"), nor its requirements', async () => {
    const dir = await answerKeyWorkspace();
    const result = await agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { runId } = JSON.parse(result.stdout) as { runId: string };
    // Graded on the coordinator against key.sum: both pass.
    expect(verdicts(runRecords(dir, runId))).toEqual({ 'sum-1#0': 'true', 'sum-2#0': 'true' });
    const jobKeys = redisCli('--scan', '--pattern', `bull:${QUEUE_NAME}:*`).split('\n').filter((k) => /:[0-9a-f]{64}$/.test(k));
    const bodies = jobKeys.map((k) => JSON.parse(redisCli('HGET', k, 'data')).body as string);
    const jobs = bodies.map((body) => JSON.parse(body) as { testCase: Record<string, unknown> }).filter((job) => String(job.testCase.id) in ANSWERS);
    expect(jobs.map((job) => job.testCase.id).sort()).toEqual(['sum-1', 'sum-2']);
    for (const job of jobs) {
      expect(job.testCase).toEqual({ id: job.testCase.id, question: expect.any(String), key: { note: 'kept' } });
      expect(JSON.stringify(job)).not.toContain(String(ANSWERS[String(job.testCase.id)]));
    }
  }, 120_000);

  it('survives kill -9 of a worker that holds jobs: every case-trial recorded once, none failed by the kill', async () => {
    const dir = await exampleWorkspace();
    // A third worker, paused by the test hook as soon as it holds a job, is killed there.
    const marker = path.join(scratch, 'victim-paused');
    const victim = startWorker(queueUrl(), { AGENTDEVEL_TEST_PAUSE_AT: 'worker-took-job', AGENTDEVEL_TEST_PAUSE_FILE: marker });
    await until(() => victim.log().includes('taking case-trials'), 60_000, 'the third worker');
    const running = agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--trials', '3', '--json']);
    await until(() => existsSync(marker), 60_000, 'the third worker to take a job');
    expect(readFileSync(marker, 'utf8')).toBe(`worker-took-job ${victim.child.pid}\n`);
    victim.child.kill('SIGKILL');
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    const { runId, infraErrors } = JSON.parse(result.stdout) as { runId: string; infraErrors: number };
    expect(infraErrors).toBe(0);
    const records = runRecords(dir, runId);
    expect(records).toHaveLength(local.records.length);
    expect(new Set(records.map((r) => `${r.caseId}#${r.trial}`)).size).toBe(records.length);
    expect(verdicts(records)).toEqual(verdicts(local.records));
    // BullMQ's stalled-job handling did the work: some job lost its worker and was finished by the other.
    const jobKeys = redisCli('--scan', '--pattern', 'bull:agentdevel-case-trials:*').split('\n').filter((k) => /:[0-9a-f]{64}$/.test(k));
    const stalled = jobKeys.filter((key) => Number(redisCli('HGET', key, 'stc') || '0') > 0 || Number(redisCli('HGET', key, 'ats') || '0') > 1);
    expect(stalled.length).toBeGreaterThan(0);
  }, 120_000);

  it('a worker stopped with SIGTERM hands the jobs it holds back: another takes them at once, not when its 30 s locks expire', async () => {
    const dir = await exampleWorkspace();
    // A worker with the default locks (30 s), paused by the test hook as soon as it holds a job.
    const marker = path.join(scratch, 'handing-back-paused');
    const leaving = startWorker(queueUrl(), { AGENTDEVEL_TEST_PAUSE_AT: 'worker-took-job', AGENTDEVEL_TEST_PAUSE_FILE: marker }, false);
    await until(() => leaving.log().includes('taking case-trials'), 60_000, 'the leaving worker');
    /** Jobs of the queue whose lock expired while a worker held them (BullMQ's stall count). */
    const stalledJobs = () =>
      Number(redisCli('EVAL', "local n = 0 for _, k in ipairs(redis.call('keys', ARGV[1])) do if string.match(k, ':%x+$') and string.len(k) > 64 and tonumber(redis.call('hget', k, 'stc') or '0') > 0 then n = n + 1 end end return n", '0', `bull:${QUEUE_NAME}:*`));
    const stalledBefore = stalledJobs();
    const running = agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--trials', '2', '--fresh', '--json']);
    await until(() => existsSync(marker), 60_000, 'the leaving worker to take a job');
    const stoppedAt = Date.now();
    leaving.child.kill('SIGTERM');
    await stopped(leaving.child, 10_000);
    expect(leaving.child.exitCode, leaving.log()).toBe(143);
    expect(leaving.log()).toMatch(/handed \d+ case-trials? back to the queue/);
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    // Well before the 30 s lock would have let the stalled-job check give the job to another worker.
    expect(Date.now() - stoppedAt).toBeLessThan(20_000);
    const { runId, infraErrors } = JSON.parse(result.stdout) as { runId: string; infraErrors: number };
    expect(infraErrors).toBe(0);
    const records = runRecords(dir, runId);
    expect(new Set(records.map((r) => `${r.caseId}#${r.trial}`)).size).toBe(records.length);
    expect(verdicts(records)).toEqual(verdicts(local.records.filter((r) => r.trial < 2)));
    // Handed back, not stalled: no job's stall count grew.
    expect(stalledJobs()).toBe(stalledBefore);
  }, 120_000);

  it('exits 3 when Redis stops mid-run, and a rerun once it is back completes without duplicates', async () => {
    const dir = await exampleWorkspace();
    const before = completedJobs();
    const running = agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--trials', '3', '--json']);
    await until(() => completedJobs() > before + 30, 60_000, 'the run under way');
    (redis as ChildProcess).kill('SIGKILL');
    await stopped(redis as ChildProcess, 5000);
    const broken = await running;
    expect(broken.code).toBe(3);
    expect(broken.stderr).toMatch(/QUEUE_UNAVAILABLE: the queue at redis:\/\/:\[redacted\]@127\.0\.0\.1:\d+ was lost/);
    await startRedis();
    const rerun = await agentdevel(['run', '-C', dir, '--queue', queueUrl(), '--trials', '3', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { runId } = JSON.parse(rerun.stdout) as { runId: string };
    const records = runRecords(dir, runId);
    expect(records).toHaveLength(local.records.length);
    expect(new Set(records.map((r) => `${r.caseId}#${r.trial}`)).size).toBe(records.length);
    expect(verdicts(records)).toEqual(verdicts(local.records));
    expect(runStatus(dir, runId)).toBe('complete');
  }, 120_000);

  it('exits 3 with a clear message when Redis is unreachable at start (a command and a worker)', async () => {
    const closed = await freePort();
    const url = `redis://agent:${PASSWORD}@127.0.0.1:${closed}`;
    const [run, worker] = await Promise.all([agentdevel(['run', '-C', local.dir, '--queue', url, '--trials', '2']), agentdevel(['worker', '--queue', url])]);
    for (const result of [run, worker]) {
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/error QUEUE_UNAVAILABLE: the queue at redis:\/\/agent:\[redacted\]@127\.0\.0\.1:\d+ did not answer within 5 s \(connect ECONNREFUSED/);
    }    // A worker reads --record and --replay like every command that calls models.
    const both = await agentdevel(['worker', '--queue', url, '--record', tempDir(), '--replay', tempDir()]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--record and --replay cannot be used together/);
  });

  it('refuses a queue without the shared key (exit 2, naming the variable), on the coordinator and on a worker', async () => {
    const env = { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: undefined };
    const [run, worker] = await Promise.all([cliAsync(['run', '-C', local.dir, '--queue', queueUrl()], { env }), cliAsync(['worker', '--queue', queueUrl()], { env })]);
    outputs.push(run.stdout, run.stderr, worker.stdout, worker.stderr);
    for (const result of [run, worker]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/AGENTDEVEL_QUEUE_KEY: not set; a queue needs a key of at least 16 characters/);
    }
  });

  it('interrupted (Ctrl-C), takes back the case-trials waiting for a worker: nothing is left to run for nobody', async () => {
    // A database no worker serves: every job this run sends waits.
    const db = '11';
    const waiting = () => Number(redisCli('-n', db, 'LLEN', `bull:${QUEUE_NAME}:wait`));
    const jobHashes = () => redisCli('-n', db, '--scan', '--pattern', `bull:${QUEUE_NAME}:*`).split('\n').filter((k) => /:[0-9a-f]{64}$/.test(k));
    const run = spawn(process.execPath, [bin, 'run', '-C', local.dir, '--queue', `${queueUrl()}/${db}`, '--trials', '2'], {
      env: { ...process.env, CI: 'true', ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    run.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    let sent = 0;
    try {
      await until(() => waiting() > 0, 30_000, 'the run to send its case-trials');
      // Every batch sent: the count holds still.
      for (let before = -1; sent !== before; ) {
        before = sent;
        await new Promise((resolve) => setTimeout(resolve, 300));
        sent = waiting();
      }
      expect(jobHashes()).toHaveLength(sent);
      run.kill('SIGINT');
      await stopped(run, 10_000);
    } finally {
      run.kill('SIGKILL');
    }
    outputs.push(stderr);
    expect(run.exitCode, stderr).toBe(130);
    const taken = Number(/took (\d+) waiting case-trials? back out of the queue/.exec(stderr)?.[1]);
    expect(taken, stderr).toBeGreaterThanOrEqual(sent);
    expect(waiting()).toBe(0);
    expect(jobHashes()).toEqual([]);
  });

  it('a worker started as a shell job stops when the job is ended, and on SIGHUP', async () => {
    // As `npx agentdevel worker … &` runs it: a shell between the job and node. Ending the job
    // ends the shell, never node; the worker sees its parent gone and stops.
    const worker = (env: Record<string, string> = {}) => {
      const args = [bin, 'worker', '--queue', queueUrl(), '--cache', path.join(scratch, `cache-job-${workers.length}`)].map((a) => `'${a}'`).join(' ');
      const shell = spawn('/bin/sh', ['-c', `'${process.execPath}' ${args} & echo $! >&2; wait`], { env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let log = '';
      shell.stderr?.on('data', (d: Buffer) => (log += d.toString()));
      workers.push({ child: shell, log: () => log });
      return { shell, log: () => log, pid: () => Number(/^(\d+)$/m.exec(log)?.[1]) };
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const job = worker();
    await until(() => /taking case-trials/.test(job.log()), 30_000, 'the worker to start');
    const pid = job.pid();
    expect(alive(pid)).toBe(true);
    job.shell.kill('SIGKILL');
    await until(() => !alive(pid), 10_000, `worker ${pid} to stop once its shell is gone`);

    // SIGHUP (a closed terminal) ends it as SIGTERM does: through the exit hooks, with its own code.
    const hup = startWorker();
    await until(() => /taking case-trials/.test(hup.log()), 30_000, 'the worker to start');
    hup.child.kill('SIGHUP');
    await stopped(hup.child, 10_000);
    expect(hup.child.exitCode, hup.log()).toBe(129);
    expect(hup.log()).toMatch(/SIGHUP: stopping/);
  });

  it('never shows the password of the queue URL, nor the queue key', () => {
    const everything = [...outputs, ...workers.map((w) => w.log())].join('\n');
    expect(everything).toContain('[redacted]');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(QUEUE_KEY);
    // Nor does Redis hold the key, in any form.
    const dump = redisCli('--scan').split('\n').filter((k) => k.startsWith('bull:') && /:[0-9a-f]{64}$/.test(k)).map((k) => redisCli('HGETALL', k)).join('\n');
    expect(dump.length).toBeGreaterThan(0);
    expect(dump).not.toContain(QUEUE_KEY);
    expect(dump).not.toContain(key.toString('base64'));
  });
});
