// One pace for the model calls of every process on a queue: the coordinator and each worker
// keep the pace of each API and key (pace.ts: the rate-limit buckets, the window of calls in
// flight, the retry-after pause, the learned bucket) in one Redis hash instead of each its own,
// so four workers on one key keep to the key's limit together instead of four times over.
//
// A change is read, computed here and written back only if no other process wrote in between
// (a version number checked by a script), else read again: the state's rules live in one place
// (pace.ts), in TypeScript, and are the same as for a process on its own. Time is Redis's
// (TIME), so machines whose clocks differ agree on when a pause ends. The hash is named by a
// hash of the API's URL and of the key, never by the key. If Redis does not answer, the change
// applies to this process's own pace until it does: a model call never waits on Redis longer
// than a command's time limit.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { initialPace, type PaceState } from '../engines/anthropic/pace.ts';
import { createRateLimiter, localPaceStore, systemRateLimitClock, type PaceFor, type PaceStore, type RateLimitClock, type RateLimiter } from '../engines/anthropic/rate-limits.ts';
import { openRedis, type RedisLink } from './redis.ts';
import type { QueueAddress } from '../../domain/queue-address.ts';

/** Bumped when the state's shape changes: processes of another version keep a pace of their own. */
const STATE_VERSION = 1;
/** A pace no process has used for this long is dropped. */
const STATE_TTL_MS = 3_600_000;
/** Reads and writes tried before a change applies to this process's own pace (Redis too contended). */
const ATTEMPTS = 20;

/** The state, its version, and Redis's time (seconds, microseconds). */
const READ = `
local v = redis.call('HMGET', KEYS[1], 'state', 'version')
local t = redis.call('TIME')
return {v[1] or '', v[2] or '0', t[1], t[2]}`;

/** Writes the state if the version is still ARGV[1]: 1, else 0. */
const WRITE = `
if (redis.call('HGET', KEYS[1], 'version') or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

/** The Redis key of the pace of one API and key: hashes only. */
export function paceKey(apiKey: string, baseURL: string | null): string {
  const keyId = createHash('sha256').update(apiKey).digest('hex');
  const id = createHash('sha256').update(`${baseURL ?? 'default'}\0${keyId}`).digest('hex').slice(0, 32);
  return `agentdevel:pace:${STATE_VERSION}:${id}`;
}

/** A state as read from Redis; a missing or unreadable one is a fresh pace (Redis is not trusted with more than the pace's speed). */
function stateOf(json: string): PaceState {
  if (json === '') return initialPace;
  try {
    const state = JSON.parse(json) as PaceState;
    const shaped =
      typeof state === 'object' && state !== null && typeof state.window === 'number' && typeof state.seq === 'number' && typeof state.calls === 'object' && typeof state.learner === 'object';
    return shaped ? state : initialPace;
  } catch {
    return initialPace;
  }
}

/** The pace of one API and key in Redis, with this process's own as the fallback. */
export function redisPaceStore(redis: RedisLink, key: string, fallback: PaceStore): PaceStore {
  return {
    shared: true,
    async update(change) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        let read: unknown;
        try {
          read = await redis.script(READ, [key], []);
        } catch {
          return fallback.update(change);
        }
        const [json, version, seconds, micros] = read as [string, string, string, string];
        const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
        const [next, result] = change(stateOf(json), now);
        let written: unknown;
        try {
          written = await redis.script(WRITE, [key], [version, JSON.stringify(next), String(Number(version) + 1), STATE_TTL_MS]);
        } catch {
          return fallback.update(change);
        }
        if (written === 1) return result;
      }
      return fallback.update(change);
    },
  };
}

export interface SharedPace {
  /** The pace of an API and key, shared through Redis (one limiter per API and key in this process). */
  readonly pace: PaceFor;
  close(): Promise<void>;
}

/** The pace shared by the processes of the queue at `address` (a connection of its own, opened at the first call). */
export function openSharedPace(address: QueueAddress, clock: RateLimitClock = systemRateLimitClock): SharedPace {
  const redis = openRedis(address);
  // This process, in the shared state: the calls of one that stops being heard of are dropped.
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const limiters = new Map<string, RateLimiter>();
  return {
    pace: (apiKey, baseURL) => {
      const key = paceKey(apiKey, baseURL);
      let limiter = limiters.get(key);
      if (!limiter) {
        limiter = createRateLimiter(clock, redisPaceStore(redis, key, localPaceStore(clock)), owner);
        limiters.set(key, limiter);
      }
      return limiter;
    },
    close: () => redis.close(),
  };
}
