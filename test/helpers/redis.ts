// A real redis-server for the queue's tests: on 127.0.0.1, behind a password, keeping nothing on
// disk, and redis-cli to look into it as an operator would.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { stopped, until } from './waits.ts';

export interface RedisServer {
  readonly port: number;
  readonly password: string;
}

/** redis-cli against `server`: its answer, trimmed. */
export function redisCommand(server: RedisServer, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(server.port), '-a', server.password, '--no-auth-warning', ...args], { encoding: 'utf8' }).stdout.trim();
}

/** Starts redis-server on `server.port` (its working folder `dir`) and resolves once it answers PING. */
export async function startRedisServer(server: RedisServer, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(server.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--requirepass', server.password], { stdio: 'ignore' });
  await until(() => redisCommand(server, 'ping') === 'PONG', 10_000, 'redis-server');
  return child;
}

/** Stops each process (SIGTERM), waiting at most 5 s for each before killing it. */
export async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => stopped(child, 5000)));
}
