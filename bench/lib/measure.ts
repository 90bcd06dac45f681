// Runs agentdevel (or any command) as a user would, in a child process, and reads what the
// kernel says it cost: wall time, CPU time and peak resident memory (GNU time, /usr/bin/time).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const agentdevelBin = path.join(repoRoot, 'bin', 'agentdevel.mjs');

export interface Cost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const TIME = '/usr/bin/time';

/** Runs `command args` and measures it. Without GNU time only the wall time is known. */
export function measure(command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Cost {
  const env = { ...process.env, CI: 'true', ...options.env } as NodeJS.ProcessEnv;
  const gnuTime = existsSync(TIME);
  const report = path.join(repoRoot, `.bench-time-${process.pid}`);
  const started = performance.now();
  const result = gnuTime
    ? spawnSync(TIME, ['-o', report, '-f', '%e %U %S %M', command, ...args], { cwd: options.cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    : spawnSync(command, [...args], { cwd: options.cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - started;
  let cpuMs = Number.NaN;
  let peakRssMb = Number.NaN;
  if (gnuTime) {
    const fields = readFileSync(report, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
    cpuMs = ((fields[1] ?? Number.NaN) + (fields[2] ?? Number.NaN)) * 1000;
    peakRssMb = (fields[3] ?? Number.NaN) / 1024;
    spawnSync('rm', ['-f', report]);
  }
  return { wallMs, cpuMs, peakRssMb, code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

export function agentdevel(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Cost {
  return measure(process.execPath, [agentdevelBin, ...args], options);
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The machine's load while measuring: the figures are only comparable at similar loads. */
export const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
