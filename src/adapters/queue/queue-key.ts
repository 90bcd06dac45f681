// The queue's trust: Redis is a courier, never an authority. Coordinator and workers share a key
// (AGENTDEVEL_QUEUE_KEY, from each process's own environment) that is never written to Redis,
// and every job and every result carries an HMAC-SHA256 under it. A worker runs only jobs a
// holder of the key wrote; a coordinator grades only results a holder of the key wrote, for
// that very job. Whoever can write to Redis without the key can delay a run (refused entries
// are run again, then count as infrastructure errors), never change its verdicts.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AgentdevelError } from '../../domain/errors.ts';

export const QUEUE_KEY_VARIABLE = 'AGENTDEVEL_QUEUE_KEY';

/**
 * A worker's reason for refusing a job whose tag its key does not prove. It travels back through
 * Redis as the job's failed reason, where the coordinator recognizes it: a worker with another
 * key is a misconfiguration (exit 2), not a model outage.
 */
export const KEY_MISMATCH_REASON = `a job whose tag does not match this worker's ${QUEUE_KEY_VARIABLE} (written without the key, altered in Redis, or this worker has another key)`;
const MIN_KEY_LENGTH = 16;

/** The shared key, from the environment; exit 2 naming the variable when it is missing or short. */
export function queueKeyFrom(env: Readonly<Record<string, string | undefined>>): Buffer {
  const value = env[QUEUE_KEY_VARIABLE];
  if (value === undefined || value.length < MIN_KEY_LENGTH) {
    throw new AgentdevelError(
      'USAGE',
      `${QUEUE_KEY_VARIABLE}: ${value === undefined ? 'not set' : `too short (${value.length} characters)`}; a queue needs a key of at least ${MIN_KEY_LENGTH} characters, the same for the coordinator and every worker (for example: export ${QUEUE_KEY_VARIABLE}=$(openssl rand -hex 32)). It is never sent to Redis.`,
    );
  }
  return Buffer.from(value, 'utf8');
}

/** The environment without the key: nothing a job runs (a `command` agent's passEnv included) can read it. */
export function withoutQueueKey(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const copy = { ...env };
  delete copy[QUEUE_KEY_VARIABLE];
  return copy;
}

function mac(key: Buffer, ...parts: readonly string[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(`${part.length}:`).update(part);
  return hmac.digest('base64url');
}

function same(a: string, b: unknown): boolean {
  if (typeof b !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The tag of a job: its id and its exact body. */
export const jobTag = (key: Buffer, jobId: string, body: string): string => mac(key, 'job', jobId, body);
export const jobTagHolds = (key: Buffer, jobId: string, body: string, tag: unknown): boolean => same(jobTag(key, jobId, body), tag);

/** The tag of a result: bound to the job it answers, so a result cannot be moved to another job. */
export const resultTag = (key: Buffer, jobId: string, body: string): string => mac(key, 'result', jobId, body);
export const resultTagHolds = (key: Buffer, jobId: string, body: string, tag: unknown): boolean => same(resultTag(key, jobId, body), tag);

/** The tag of the version a coordinator published last (what a starting worker prepares). */
export const versionTag = (key: Buffer, body: string): string => mac(key, 'version', body);
export const versionTagHolds = (key: Buffer, body: string, tag: unknown): boolean => same(versionTag(key, body), tag);

/**
 * What Redis holds for a job, and for its result: the exact JSON text and its tag under the
 * shared key. The text is checked as written, so nothing is parsed before it is proven.
 */
export interface Tagged {
  readonly body: string;
  readonly tag: string;
}

export const isTagged = (value: unknown): value is Tagged =>
  value !== null && typeof value === 'object' && typeof (value as Tagged).body === 'string' && typeof (value as Tagged).tag === 'string';
