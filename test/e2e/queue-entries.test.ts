// The queue's entries over a real Redis, with workers in this process playing scripted results:
// a result an earlier run left is reused (an infrastructure error is not), and only what the
// shared key tags is trusted (an altered result, a worker with another key, a malformed entry).
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { openCaseTrialQueue, QUEUE_NAME, startCaseTrialWorker } from '../../src/adapters/queue/bullmq.ts';
import { collectCaseTrial, defaultCoordinatorSettings } from '../../src/adapters/queue/executor.ts';
import type { CaseTrialJob } from '../../src/adapters/queue/job.ts';
import { parseQueueUrl } from '../../src/domain/queue-address.ts';
import { freePort } from '../helpers/free-port.ts';
import { redisCommand, startRedisServer, stopAll } from '../helpers/redis.ts';
import { until } from '../helpers/waits.ts';
import { removeDir, tempDir } from '../helpers/workspace.ts';

const PASSWORD = 'queue-entries-pw-4e81b2';
/** The key coordinator and workers share; never in Redis. */
const key = Buffer.from('queue-entries-key-93c0d7a1f5');

let scratch: string;
let port: number;
let redis: ChildProcess | null = null;

const redisCli = (...args: string[]): string => redisCommand({ port, password: PASSWORD }, ...args);
const queueUrl = () => `redis://:${PASSWORD}@127.0.0.1:${port}`;

/**
 * Waits until BullMQ's stalled-job check has run `times` more times on database `db`: each run
 * stamps its key with the time it ran (and it expires before the next run), so every new stamp
 * is one more check.
 */
async function stallChecks(db: string, times: number): Promise<void> {
  const stamp = () => redisCli('-n', db, 'GET', `bull:${QUEUE_NAME}:stalled-check`);
  const before = stamp();
  const seen = new Set<string>();
  await until(() => {
    const now = stamp();
    if (now !== '' && now !== before) seen.add(now);
    return seen.size >= times;
  }, 30_000, `${times} stalled-job checks`);
}

beforeAll(async () => {
  scratch = tempDir('agentdevel-queue-entries-');
  port = await freePort();
  redis = await startRedisServer({ port, password: PASSWORD }, scratch);
}, 30_000);

afterAll(async () => {
  await stopAll(redis ? [redis] : []);
  if (scratch) removeDir(scratch);
});

describe('results an earlier run left in the queue', () => {
  it('reuses a result, without counting its cost again, but runs an infrastructure error again', async () => {
    // A database of its own, so the workers started above never see these jobs; a scripted worker.
    const address = parseQueueUrl(`${queueUrl()}/5`, 'test');
    const settings = { concurrency: 1, lockDurationMs: 5000, stalledIntervalMs: 2500, maxStalledCount: 1 };
    const usage = [{ role: 'agent' as const, model: 'claude-x', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 } }];
    let played = 0;
    const worker = await startCaseTrialWorker(
      address,
      settings,
      key,
      async () => {
        played += 1;
        return played === 1
          ? { kind: 'infra_error', events: [], message: 'the model API is down', usage, worker: 'scripted' }
          : { kind: 'ran', events: [], output: { answer: played }, observation: null, usage, worker: 'scripted' };
      },
      () => undefined,
    );
    const job = { schema: 1, caseId: 'c1', trial: 0 } as unknown as CaseTrialJob;
    const collect = async () => {
      const queue = await openCaseTrialQueue(address, defaultCoordinatorSettings, key);
      try {
        return await collectCaseTrial(queue, job);
      } finally {
        await queue.close();
      }
    };
    try {
      // The first run meets the outage.
      expect(await collect()).toMatchObject({ result: { kind: 'infra_error' }, paidHere: true });
      // A rerun does not take that error back: the case-trial runs again.
      expect(await collect()).toMatchObject({ result: { kind: 'ran', output: { answer: 2 } }, paidHere: true });
      // A further rerun reuses the good result, already paid for.
      expect(await collect()).toMatchObject({ result: { kind: 'ran', output: { answer: 2 } }, paidHere: false });
      expect(played).toBe(2);
    } finally {
      await worker.close();
    }
  }, 60_000);
});

describe('the queue trusts only what the shared key tags', () => {
  const settings = { concurrency: 2, lockDurationMs: 2000, stalledIntervalMs: 500, maxStalledCount: 1 };
  const jobKey = (id: string) => `bull:${QUEUE_NAME}:${id}`;

  it('refuses a result altered in Redis and runs the case-trial again; refuses the results of a worker with another key', async () => {
    const address = parseQueueUrl(`${queueUrl()}/6`, 'test');
    let played = 0;
    const worker = await startCaseTrialWorker(address, settings, key, async () => {
      played += 1;
      return { kind: 'ran', events: [], output: { pass: false, answer: played }, observation: null, usage: [], worker: 'honest' };
    }, () => undefined);
    const job = { schema: 2, caseId: 'altered', trial: 0 } as unknown as CaseTrialJob;
    const collect = async (withKey: Buffer) => {
      const queue = await openCaseTrialQueue(address, defaultCoordinatorSettings, withKey);
      try {
        return await collectCaseTrial(queue, job);
      } finally {
        await queue.close();
      }
    };
    try {
      expect(await collect(key)).toMatchObject({ result: { output: { answer: 1 } }, paidHere: true });
      // Someone with write access to Redis turns the failing result into a passing one, tag kept.
      const id = redisCli('-n', '6', '--scan', '--pattern', `bull:${QUEUE_NAME}:*`).split('\n').find((k) => /:[0-9a-f]{64}$/.test(k)) as string;
      const stored = JSON.parse(redisCli('-n', '6', 'HGET', id, 'returnvalue')) as { body: string; tag: string };
      const forged = { ...stored, body: stored.body.replace('"pass":false', '"pass":true') };
      expect(forged.body).not.toBe(stored.body);
      redisCli('-n', '6', 'HSET', id, 'returnvalue', JSON.stringify(forged));
      // The forged result is refused: the case-trial runs again, and the honest result counts.
      const again = await collect(key);
      expect(again).toMatchObject({ result: { output: { pass: false, answer: 2 } }, paidHere: true });
      expect(played).toBe(2);
    } finally {
      await worker.close();
    }
    // A worker that does not hold the key: it refuses the jobs (failed once, with the reason), and
    // the coordinator says that the keys differ.
    const rogueAddress = parseQueueUrl(`${queueUrl()}/7`, 'test');
    let rogueRan = 0;
    const rogue = await startCaseTrialWorker(rogueAddress, settings, Buffer.from('another-key-0123456789'), async () => {
      rogueRan += 1;
      return { kind: 'ran', events: [], output: { pass: true }, observation: null, usage: [], worker: 'rogue' };
    }, () => undefined);
    try {
      const queue = await openCaseTrialQueue(rogueAddress, defaultCoordinatorSettings, key);
      try {
        const error = await collectCaseTrial(queue, { ...job, caseId: 'rogue' } as unknown as CaseTrialJob).then(() => null, (e: unknown) => e);
        // A misconfiguration named as one (exit 2), never a model outage nor a verdict.
        expect(error).toMatchObject({ code: 'QUEUE_KEY_MISMATCH', exitCode: 2 });
        expect((error as Error).message).toMatch(/does not match that worker's AGENTDEVEL_QUEUE_KEY, so it was started with another key than this command/);
      } finally {
        await queue.close();
      }
    } finally {
      await rogue.close();
    }
    expect(rogueRan).toBe(0);
  }, 60_000);

  it('fails a malformed entry once, with its reason, instead of taking it again and again', async () => {
    const address = parseQueueUrl(`${queueUrl()}/8`, 'test');
    // Entries written straight into Redis, by someone without the key (BullMQ's own client, no agentdevel code).
    const raw = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port, password: PASSWORD, db: 8 } });
    try {
      await raw.add('case-trial', { body: '{}', tag: 'forged' }, { jobId: 'untagged', attempts: 3 });
      await raw.add('case-trial', { anything: 1 }, { jobId: 'garbled', attempts: 3 });
      await raw.add('case-trial', { anything: 1 }, { jobId: 'not-json', attempts: 3 });
    } finally {
      await raw.close();
    }
    redisCli('-n', '8', 'HSET', jobKey('not-json'), 'data', '{"body": "unterminated');
    let ran = 0;
    const worker = await startCaseTrialWorker(address, settings, key, async () => {
      ran += 1;
      return null;
    }, () => undefined);
    try {
      const failed = () => Number(redisCli('-n', '8', 'ZCARD', `bull:${QUEUE_NAME}:failed`));
      await until(() => failed() === 3, 20_000, 'the malformed entries to fail');
      // Three stalled-job checks later, none was taken again.
      await stallChecks('8', 3);
      expect(failed()).toBe(3);
      const field = (id: string, name: string) => redisCli('-n', '8', 'HGET', jobKey(id), name);
      expect(field('untagged', 'failedReason')).toMatch(/tag does not match/);
      expect(field('garbled', 'failedReason')).toMatch(/a malformed entry: not a tagged case-trial job/);
      expect(field('not-json', 'failedReason')).toMatch(/a malformed entry: .*JSON/);
      for (const id of ['untagged', 'garbled', 'not-json']) {
        expect(field(id, 'ats') || '1', id).toBe('1');
        expect(field(id, 'stc') || '0', id).toBe('0');
      }
      expect(ran).toBe(0);
    } finally {
      await worker.close();
    }
  }, 60_000);
});

describe('a command waiting on a queue with no worker', () => {
  it('says once that no worker is connected to its database (a worker on another database does not count), and not while one is', async () => {
    const workerSettings = { concurrency: 1, lockDurationMs: 5000, stalledIntervalMs: 2500, maxStalledCount: 1 };
    const connectedOn = (db: string) => redisCli('CLIENT', 'LIST').split('\n').some((line) => line.includes(` db=${db} `) && line.includes(' name=bull:'));
    // A worker of this queue on database 7 only: Redis lists it to every client of the server.
    const elsewhere = await startCaseTrialWorker(parseQueueUrl(`${queueUrl()}/7`, 'test'), workerSettings, key, async () => null, () => undefined);
    await until(() => connectedOn('7'), 10_000, 'the worker on database 7 to be listed');
    const notes: string[] = [];
    const queue = await openCaseTrialQueue(parseQueueUrl(`${queueUrl()}/6`, 'test'), { ...defaultCoordinatorSettings, noWorkerHintMs: 300 }, key, (message) => notes.push(message));
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let here: Awaited<ReturnType<typeof startCaseTrialWorker>> | null = null;
    try {
      const waiting = collectCaseTrial(queue, { schema: 1, caseId: 'nobody', trial: 0 } as unknown as CaseTrialJob).catch(() => null);
      await until(() => notes.length > 0, 10_000, 'the hint');
      expect(notes[0]).toMatch(/^no worker is connected to the queue at redis:\/\/:\[redacted\]@127\.0\.0\.1:\d+\/6: the case-trials wait for one .*gives up after 10 minutes without one$/);
      expect(notes.join('\n')).not.toContain(PASSWORD);
      // A worker on this database takes the job and holds it, quiet: nothing more is said.
      let taken = false;
      here = await startCaseTrialWorker(parseQueueUrl(`${queueUrl()}/6`, 'test'), workerSettings, key, async () => {
        taken = true;
        await held;
        return null;
      }, () => undefined);
      await until(() => taken, 10_000, 'the job to be taken');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(notes).toHaveLength(1);
      void waiting;
    } finally {
      release();
      await queue.close();
      await here?.close();
      await elsewhere.close();
    }
  }, 30_000);
});
