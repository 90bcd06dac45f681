// The one module that imports ioredis (house rule 6), for what agentdevel keeps in Redis beside
// BullMQ's queue (bullmq.ts makes BullMQ's own connections): the pace of model calls shared by
// the coordinator and the workers (redis-pace.ts). Scripts run atomically in Redis; every
// command has a time limit, so a lost Redis is an error in a bounded time, never a hang.
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import type { QueueAddress } from '../../domain/queue-address.ts';
import { redisEndpoint } from './redis-endpoint.ts';

/** A command not answered within this long fails (the caller decides what then). */
const COMMAND_TIMEOUT_MS = 2000;

export interface RedisLink {
  /** Runs a Lua script atomically (sent once, then called by its hash). */
  script(lua: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects at the first command: a command that never uses Redis this way never connects. */
export function openRedis(address: QueueAddress): RedisLink {
  let closing = false;
  const redis = new Redis({
    ...redisEndpoint(address),
    lazyConnect: true,
    connectTimeout: 5000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: (times: number) => (closing ? null : Math.min(200 * times, 2000)),
  });
  // Failures reach the caller of each command; an unhandled 'error' event would end the process.
  redis.on('error', () => undefined);
  const loaded = new Map<string, string>();
  return {
    async script(lua, keys, args) {
      let sha = loaded.get(lua);
      if (sha === undefined) {
        sha = createHash('sha1').update(lua).digest('hex');
        loaded.set(lua, sha);
      }
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        // Not loaded yet on this server (or a server restarted since): send the script itself.
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await redis.eval(lua, keys.length, ...keys, ...args);
      }
    },
    async close() {
      closing = true;
      if (redis.status === 'wait' || redis.status === 'end') {
        redis.disconnect();
        return;
      }
      // QUIT within a bound; past it (Redis gone), the connection is dropped.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([redis.quit().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, COMMAND_TIMEOUT_MS)))]);
      clearTimeout(timer);
      redis.disconnect();
    },
  };
}
