// What the queue's failures say, through the real CLI over a real (plain-text) redis-server:
// rediss:// to a server that does not speak TLS names the TLS handshake, not only a timeout; a
// worker that holds another AGENTDEVEL_QUEUE_KEY is named as a key mismatch (exit 2, on the
// command, and in the worker's log), never as the model API being down.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { startRedisServer, stopAll } from '../helpers/redis.ts';
import { until } from '../helpers/waits.ts';
import { cliWithin, exampleWorkspace, removeDir, repoRoot, tempDir } from '../helpers/workspace.ts';

const PASSWORD = 'queue-messages-pw-5c2e91';
const QUEUE_KEY = 'queue-messages-key-7a1f03c8e2';
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');

let scratch: string;
let port: number;
let redis: ChildProcess | null = null;

beforeAll(async () => {
  scratch = tempDir('agentdevel-queue-messages-');
  port = await freePort();
  redis = await startRedisServer({ port, password: PASSWORD }, scratch);
}, 30_000);

afterAll(async () => {
  await stopAll(redis ? [redis] : []);
  if (scratch) removeDir(scratch);
});

describe('the queue says what is wrong', () => {
  it('rediss:// to a plain-text Redis says that the TLS handshake failed and why, on a command and on a worker', async () => {
    const dir = await exampleWorkspace();
    const url = `rediss://:${PASSWORD}@127.0.0.1:${port}`;
    const env = { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY };
    const [run, worker] = await Promise.all([
      cliWithin(['run', '-C', dir, '--queue', url], 30_000, { env }),
      cliWithin(['worker', '--queue', url, '--cache', path.join(scratch, 'tls-cache')], 30_000, { env }),
    ]);
    for (const result of [run, worker]) {
      expect(result.overran).toBe(false);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(
        /QUEUE_UNAVAILABLE: the queue at rediss:\/\/:\[redacted\]@127\.0\.0\.1:\d+ did not answer within 5 s \(the TLS handshake failed: the server on that port speaks plain Redis, not TLS \(use a redis:\/\/ URL for it, or enable TLS on the server\)\)/,
      );
      expect(result.stderr).not.toContain(PASSWORD);
    }
  }, 60_000);

  it('a worker with another queue key is named as a key mismatch (exit 2), never as the model API', async () => {
    const dir = await exampleWorkspace();
    // A database of its own, so no other test's jobs meet this worker.
    const url = `redis://:${PASSWORD}@127.0.0.1:${port}/4`;
    const worker = spawn(process.execPath, [bin, 'worker', '--queue', url, '--cache', path.join(scratch, 'rogue-cache')], {
      env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: 'another-key-of-another-team-0123' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    worker.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    try {
      await until(() => log.includes('taking case-trials'), 20_000, 'the worker');
      const run = await cliWithin(['run', '-C', dir, '--queue', url], 60_000, { env: { ANTHROPIC_API_KEY: '', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY } });
      expect(run.overran).toBe(false);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^error QUEUE_KEY_MISMATCH: a worker refused a case-trial: the job's tag does not match that worker's AGENTDEVEL_QUEUE_KEY, so it was started with another key than this command/m);
      expect(run.stderr).toMatch(/same AGENTDEVEL_QUEUE_KEY/);
      expect(run.stderr).not.toMatch(/MODEL_UNAVAILABLE|model API/);
      expect(log).toMatch(/refused job [0-9a-f]+: a job whose tag does not match this worker's AGENTDEVEL_QUEUE_KEY/);
      expect(run.stderr + log).not.toContain(QUEUE_KEY);
    } finally {
      await stopAll([worker]);
    }
  }, 90_000);
});
