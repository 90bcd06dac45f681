// A redis-server of a bench's own, on a free port, that ends with the bench however the bench
// ends, killed from outside included: the server runs below a shell that holds the read end of a
// pipe from the bench, and stops the server once that pipe closes (the bench's `stop`, or its
// death). The shell ends when the server does, so a server that cannot start is said at once.
// Needs redis-server and redis-cli on PATH.
import { spawn, spawnSync } from 'node:child_process';
import { freePort } from '../../test/helpers/free-port.ts';

export interface BenchRedis {
  readonly port: number;
  readonly url: string;
  /** One redis-cli command; its output, trimmed. */
  cli(...args: string[]): string;
  /** Stops the server and waits for it: killed after 5 s. */
  stop(): Promise<void>;
}

// The pipe is fd 3 for the background reader (a background job's stdin is /dev/null); the
// server's pid goes out first, for `stop` to kill it if it does not end in time. Once the server
// is gone the reader is ended too, so it never signals a pid the system has given another process.
const HOLDER = 'exec 3<&0; redis-server "$@" >/dev/null & server=$!; echo "$server"; { read -r _ <&3; kill "$server" 2>/dev/null; } >/dev/null & reader=$!; wait "$server"; kill "$reader" 2>/dev/null';
const STOP_MS = 5000;

/** Starts the server (no persistence, files in `dir`) and waits, at most 10 s, until it answers. */
export async function startBenchRedis(dir: string): Promise<BenchRedis> {
  const port = await freePort();
  const holder = spawn('sh', ['-c', HOLDER, 'sh', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  let failed: Error | null = null;
  holder.once('error', (error) => (failed = error));
  const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  let serverPid: number | null = null;
  holder.stdout?.setEncoding('utf8').once('data', (text: string) => (serverPid = Number.parseInt(text, 10) || null));
  const cli = (...args: string[]) => {
    const result = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
    if (result.error) throw new Error(`redis-cli: ${result.error.message} (apt-get install redis-tools)`);
    return result.stdout.trim();
  };
  const stop = async () => {
    holder.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_MS)))]);
    clearTimeout(timer);
    if (ended) return;
    if (serverPid !== null) {
      try {
        process.kill(serverPid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    holder.kill('SIGKILL');
    await exited;
  };
  const startedAt = Date.now();
  for (;;) {
    const answer = await Promise.resolve().then(() => cli('ping')).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
    if (answer === 'PONG') break;
    if (failed || holder.exitCode !== null || Date.now() - startedAt > 10_000) {
      await stop();
      throw new Error(`redis-server on port ${port} ${failed ? `could not be started: ${(failed as Error).message}` : holder.exitCode !== null ? 'ended at its start' : 'did not answer within 10 s'} (is it installed? apt-get install redis-server)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, url: `redis://127.0.0.1:${port}`, cli, stop };
}
