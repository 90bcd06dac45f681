// `agentdevel worker`: a process that takes case-trial jobs from the queue. Wires the job handler
// (runtimes, the engines, the shared pace) to a BullMQ worker, with the queue's key kept from
// everything a job runs.
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import type { Redactor } from '../domain/environment.ts';
import type { Checkpoint } from '../domain/ports/checkpoint.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { QueueAddress } from '../domain/queue-address.ts';
import { QueueUnreachable, startCaseTrialWorker, type WorkerSettings } from '../adapters/queue/bullmq.ts';
import { queueKeyFrom, withoutQueueKey } from '../adapters/queue/queue-key.ts';
import { caseTrialHandler } from '../adapters/queue/worker.ts';
import { whenParentEnds } from '../adapters/process/parent-watch.ts';
import { agentdevelCacheDir } from '../adapters/process/cache-folder.ts';

export type { WorkerSettings } from '../adapters/queue/bullmq.ts';

export interface QueueWorkerRequest {
  readonly address: QueueAddress;
  readonly settings: WorkerSettings;
  /** The worker's own environment: the queue's key, its credentials, what `passEnv` names. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where checkouts of snapshots are kept; null: `worker/` in agentdevel's cache folder. */
  readonly cacheDir: string | null;
  readonly redact: Redactor;
  readonly name: string;
  readonly cassette: { readonly mode: 'record' | 'replay'; readonly dir: string } | null;
  readonly clock: Clock;
  readonly checkpoint: Checkpoint;
  /** A failure of the worker's connection or of a job outside its result (it goes on). */
  readonly onError: (error: Error) => void;
  /** A line for the worker's log: what it checked out and prepared. */
  readonly onNote: (message: string) => void;
}

export interface QueueWorker {
  /** Settles when the worker has stopped (SIGTERM, Ctrl-C, its parent process gone). */
  readonly stopped: Promise<void>;
  /** Closes what the jobs opened (runtimes, the shared pace), once the worker has stopped. */
  close(): Promise<void>;
  /** Takes no more jobs and puts the ones it holds back in the queue, for another worker now (a worker about to end). How many went back. */
  handBack(): Promise<number>;
}

/** Starts taking case-trial jobs; an unreachable Redis is QUEUE_UNAVAILABLE (exit 3), at once. */
export async function startQueueWorker(request: QueueWorkerRequest): Promise<QueueWorker> {
  const key = queueKeyFrom(request.env);
  const handler = caseTrialHandler({
    // Nothing a job runs can read the queue key.
    env: withoutQueueKey(request.env),
    cacheDir: request.cacheDir ?? path.join(agentdevelCacheDir(request.env), 'worker'),
    redact: request.redact,
    name: request.name,
    cassette: request.cassette,
    clock: request.clock,
    concurrency: request.settings.concurrency,
    sharedPaceAt: request.address,
    checkpoint: request.checkpoint,
    note: request.onNote,
  });
  let worker;
  try {
    worker = await startCaseTrialWorker(request.address, request.settings, key, (data, context) => handler.handle(data, context), request.onError, (source) => handler.prepare(source));
  } catch (error) {
    await handler.close();
    if (error instanceof QueueUnreachable) throw new AgentdevelError('QUEUE_UNAVAILABLE', error.message, { cause: error });
    throw error;
  }
  // A worker started as a shell job outlives the job's end as an orphan (parent-watch.ts): it
  // stops as it would on SIGTERM, the jobs it runs handed back to the queue for another worker.
  const stopWatching = whenParentEnds(() => {
    request.onError(
      new Error(
        'the process that started it has ended (a shell job stopped, or a script that started it with `&` or nohup ended): stopping. To keep a worker up, run it under a service manager (a systemd unit, a container entry point)',
      ),
    );
    void worker.handBack().finally(() => worker.close());
  });
  return { stopped: worker.stopped.finally(stopWatching), close: () => handler.close(), handBack: () => worker.handBack() };
}
