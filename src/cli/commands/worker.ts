import { hostname } from 'node:os';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { makeRedactor, secretValues } from '../../domain/environment.ts';
import { startQueueWorker, type WorkerSettings } from '../../app/queue-worker.ts';
import { parseQueueUrl, queueSecrets } from '../../domain/queue-address.ts';
import type { Io } from '../io.ts';
import { collapsingRepeats } from '../repeated-lines.ts';
import { beforeInterruptExit } from '../interrupt-steps.ts';
import { checkpointOf } from '../../app/command-options.ts';
import type { WorkerOptions } from './worker.options.ts';

function wholeNumber(value: string | undefined, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new AgentdevelError('USAGE', `${option}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** The worker's settings from its options; BullMQ's defaults where none is given. */
export function workerSettings(options: WorkerOptions): WorkerSettings {
  const lockDurationMs = wholeNumber(options.lockDuration, '--lock-duration', 30_000, 500, 3_600_000);
  return {
    concurrency: wholeNumber(options.concurrency, '--concurrency', 4, 1, 256),
    lockDurationMs,
    stalledIntervalMs: wholeNumber(options.stalledInterval, '--stalled-interval', Math.max(250, Math.floor(lockDurationMs / 2)), 250, 3_600_000),
    maxStalledCount: wholeNumber(options.maxStalled, '--max-stalled', 2, 0, 10),
  };
}

/**
 * `agentdevel worker --queue URL`: takes case-trial jobs until it is stopped (SIGTERM, Ctrl-C:
 * the jobs it was running go back to the queue, for another worker, within 3 s; killed, its
 * jobs are taken over once their locks expire).
 */
export async function workerCommand(io: Io, options: WorkerOptions): Promise<number> {
  if (!options.queue) throw new AgentdevelError('USAGE', 'worker: --queue URL is required (redis://HOST:PORT or rediss://…)');
  if (options.record && options.replay) throw new AgentdevelError('USAGE', '--record and --replay cannot be used together');
  const address = parseQueueUrl(options.queue, '--queue');
  const settings = workerSettings(options);
  const redact = makeRedactor([...secretValues(io.env), ...queueSecrets(options.queue)]);
  const name = `${hostname()}:${process.pid}`;
  const cassetteDir = options.record ?? options.replay;
  // The same failure again and again (Redis down: every reconnection) is said once, then counted.
  const log = collapsingRepeats((line) => io.stderr.write(redact(`worker ${name}: ${line}\n`)), io.clock);
  const worker = await startQueueWorker({
    address,
    settings,
    env: io.env,
    // --cache, else the user's cache folder.
    cacheDir: options.cache ? path.resolve(io.cwd, options.cache) : null,
    redact,
    name,
    cassette: cassetteDir ? { mode: options.record ? 'record' : 'replay', dir: path.resolve(io.cwd, cassetteDir) } : null,
    clock: io.clock,
    checkpoint: checkpointOf(io),
    onError: (error) => log.repeating(error.message),
    onNote: (message) => log.once(message),
  });
  io.stderr.write(`worker ${name}: taking case-trials from ${address.shown} (concurrency ${settings.concurrency})\n`);
  // Interrupted (SIGTERM, Ctrl-C): the jobs it holds go back to the queue at once, for another
  // worker, instead of waiting out their locks; their agents are stopped as the process exits.
  const stopHandingBack = beforeInterruptExit(async () => {
    const count = await worker.handBack();
    if (count > 0) log.once(`handed ${count} case-trial${count === 1 ? '' : 's'} back to the queue`);
  });
  try {
    await worker.stopped;
  } finally {
    stopHandingBack();
    await worker.close();
  }
  return 0;
}
