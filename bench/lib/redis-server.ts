// A redis-server of a bench's own, on a free port, that ends with the bench however the bench
// ends, killed from outside included: the server runs below a shell that holds the read end of a
// pipe from the bench, and stops the server once that pipe closes (the bench's `stop`, or its
// death). Needs redis-server and redis-cli on PATH.
import { spawn, spawnSync } from 'node:child_process';
import { freePort } from '../../test/helpers/free-port.ts';

export interface BenchRedis {
  readonly port: number;
  readonly url: string;
  /** One redis-cli command; its output, trimmed. */
  cli(...args: string[]): string;
  /** Stops the server and waits for it (at most 5 s). */
  stop(): Promise<void>;
}

const HOLDER = 'redis-server "$@" & server=$!; read -r _; kill "$server" 2>/dev/null; wait "$server"';

/** Starts the server (no persistence, files in `dir`) and waits, at most 10 s, until it answers. */
export async function startBenchRedis(dir: string): Promise<BenchRedis> {
  const port = await freePort();
  const holder = spawn('sh', ['-c', HOLDER, 'sh', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  const cli = (...args: string[]) => {
    const result = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
    if (result.error) throw new Error(`redis-cli: ${result.error.message} (apt-get install redis-tools)`);
    return result.stdout.trim();
  };
  const stop = async () => {
    holder.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
  };
  const startedAt = Date.now();
  for (;;) {
    const answer = await Promise.resolve().then(() => cli('ping')).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
    if (answer === 'PONG') break;
    if (holder.exitCode !== null || Date.now() - startedAt > 10_000) {
      await stop();
      throw new Error(`redis-server on port ${port} did not answer within 10 s (is it installed? apt-get install redis-server)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, url: `redis://127.0.0.1:${port}`, cli, stop };
}
