// One pace for the model calls of every process on a queue: four real `agentdevel worker`
// processes on a real Redis run a tool-loop agent on Claude against the fake Messages API, which
// enforces one request rate for the key (a token bucket). The workers keep to it together.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, removeDir, repoRoot, tempDir } from '../helpers/workspace.ts';
import { until } from '../helpers/waits.ts';
import { startRedisServer, stopAll } from '../helpers/redis.ts';

const PASSWORD = 'pace-pw-31c8e07d';
const QUEUE_KEY = 'pace-queue-key-8d2f64a1b9';
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');
/** The key's limit at the fake: 600 requests a minute (10 a second), at most 5 at once after a pause. */
const PER_SECOND = 10;
const BURST = 5;

let scratch: string;
let redis: ChildProcess | null = null;
let port: number;
const workers: Array<{ child: ChildProcess; log: () => string }> = [];

beforeAll(async () => {
  scratch = tempDir('agentdevel-queue-pace-');
  port = await freePort();
  redis = await startRedisServer({ port, password: PASSWORD }, scratch);
}, 30_000);

afterAll(async () => {
  await stopAll([...workers.map((w) => w.child), ...(redis ? [redis] : [])]);
  if (scratch) removeDir(scratch);
});

/** The most requests (accepted or refused) that reached the fake in any `windowMs` stretch. */
function mostInAnyWindow(arrivals: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < arrivals.length; last += 1) {
    while ((arrivals[last] as number) - (arrivals[first] as number) >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('four workers on one API key', () => {
  let server: FakeAnthropic;

  it('keep to the key\'s one limit together, with no infrastructure error', async () => {
    server = await startFakeAnthropic(mockBrain, { requestsPerMinute: PER_SECOND * 60, burst: BURST, latencyMs: 50 });
    const url = `redis://:${PASSWORD}@127.0.0.1:${port}/2`;
    try {
      for (let i = 0; i < 4; i += 1) {
        const child = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', '4', '--cache', path.join(scratch, `cache-${i}`)], {
          env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-worker-shared-key-0123' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let log = '';
        child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
        workers.push({ child, log: () => log });
      }
      await until(() => workers.every((w) => w.log().includes('taking case-trials')), 60_000, 'the workers');
      const dir = await exampleWorkspace();
      const configFile = path.join(dir, 'agentdevel.config.json');
      const config = JSON.parse(readFileSync(configFile, 'utf8')) as { models: Record<string, string> };
      config.models.agent = 'claude-sonnet-5-5';
      writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qam', 'the agent on Claude'], { cwd: dir });

      const result = await cliAsync(['run', '-C', dir, '--queue', url, '--json'], {
        env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-ant-coordinator-0123456789', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY },
      });
      expect(result.code, result.stderr + workers.map((w) => w.log()).join('\n')).toBe(0);
      const { infraErrors, graded } = JSON.parse(result.stdout) as { infraErrors: number; graded: number };
      expect(infraErrors).toBe(0);
      expect(graded).toBeGreaterThan(0);

      // Every worker made calls: the limit was shared, not met by one process alone.
      const arrivals = server.limited.arrivals.map((a) => a.at);
      expect(arrivals.length).toBeGreaterThanOrEqual(150);
      const spanS = ((arrivals.at(-1) as number) - (arrivals[0] as number)) / 1000;
      // A token bucket lets through at most its burst plus its rate over any stretch. Requests
      // sent (refused ones too) stay within that plus one more burst, over any second and any
      // five seconds: the workers' calls wait for one another. Each pacing itself, four workers
      // reading the same `remaining` each send it again, four times the burst at each refill.
      expect(mostInAnyWindow(arrivals, 1000)).toBeLessThanOrEqual(PER_SECOND + 2 * BURST);
      expect(mostInAnyWindow(arrivals, 5000)).toBeLessThanOrEqual(5 * PER_SECOND + 2 * BURST);
      // Few were refused, and the limit was used: the run took about what the limit allows.
      expect(server.limited.refused).toBeLessThanOrEqual(Math.max(5, server.limited.accepted * 0.05));
      expect(spanS).toBeLessThan((server.limited.accepted / PER_SECOND) * 1.5 + 5);
    } finally {
      await server.close();
    }
  }, 240_000);
});
