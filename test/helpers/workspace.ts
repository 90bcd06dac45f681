import { spawn as spawnChild, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../src/domain/ports/clock.ts';
import { scaffoldExample } from '../../src/app/example.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');

export function tempDir(prefix = 'agentdevel-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A fresh copy of the bundled example as a git repository with one commit on main. */
export async function exampleWorkspace(): Promise<string> {
  const dir = path.join(tempDir(), 'workspace');
  await scaffoldExample(dir);
  return dir;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Keeps only the train cases `keep` accepts (by id and position) and drops the example's
 * must-pass entry, which would name no case of a cut split (refused at load, as it should be).
 */
export function keepTrainCases(dir: string, keep: (id: string, index: number) => boolean): void {
  const train = path.join(dir, 'rubrics/orders/train.jsonl');
  const lines = readFileSync(train, 'utf8').trim().split('\n');
  writeFileSync(train, `${lines.filter((line, index) => keep((JSON.parse(line) as { id: string }).id, index)).join('\n')}\n`);
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as { gate?: { layers?: Array<{ layer: string; mustPass?: string[] }> } };
  for (const layer of config.gate?.layers ?? []) delete layer.mustPass;
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
}

/** Runs the real CLI in a subprocess, as a user would. */
export function cli(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): CliResult {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, CI: 'true', ...options.env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs the CLI's `main` in this process, as the library's callers and the sources are (no bundle,
 * no subprocess): its output is collected, and it sees only PATH and the environment given.
 */
export async function runMain(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  // Loaded on first use, so the tests that only spawn the CLI never load its sources.
  const { main } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const sink = (into: (text: string) => void) => new Writable({ write: (chunk, _encoding, done) => (into(chunk.toString()), done()) }) as unknown as NodeJS.WriteStream;
  const code = await main(args, {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    cwd: options.cwd,
    clock: systemClock,
  });
  return { code, stdout, stderr };
}

/** Writes `text` to `file` under `dir`, making the folders it needs. */
export function writeFileIn(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

/** Real git, with an identity of its own so tests pass on machines without a git config (CI). */
export function git(dir: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=agentdevel-test', '-c', 'user.email=test@agentdevel.invalid', ...args], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** The refs that make up the line: branches, tags and agentdevel's audit refs, with their values. */
export function lineState(dir: string): string {
  return git(dir, 'for-each-ref', '--format=%(refname) %(objectname)');
}

/** Starts the real CLI; `done` settles with its exit code and output once it has exited. */
export function startCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawnChild(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, CI: 'true', ...options.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  return { child, done };
}

/** The objects of NDJSON output (`--json`), one a line. */
export function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Which decision log to read: another line's (`--line`), with more environment for the CLI. */
export interface LogOptions {
  readonly line?: string;
  readonly env?: Record<string, string | undefined>;
}

const logArgs = (dir: string, options: LogOptions): string[] => ['log', '--json', ...(options.line ? ['--line', options.line] : []), '-C', dir];

function decisionLogOf(dir: string, result: CliResult): Array<Record<string, unknown>> {
  if (result.code !== 0) throw new Error(`agentdevel log --json -C ${dir} exited ${result.code}: ${result.stderr}`);
  return parseJsonLines(result.stdout);
}

/** The workspace's decision log as `agentdevel log --json` prints it, one object per decision. */
export function decisionLog(dir: string, options: LogOptions = {}): Array<Record<string, unknown>> {
  return decisionLogOf(dir, cli(logArgs(dir, options), options.env ? { env: options.env } : {}));
}

/** decisionLog without blocking this process (for tests that serve HTTP themselves). */
export async function decisionLogAsync(dir: string, options: LogOptions = {}): Promise<Array<Record<string, unknown>>> {
  return decisionLogOf(dir, await cliAsync(logArgs(dir, options), options.env ? { env: options.env } : {}));
}

/** Runs the real CLI without blocking this process (needed when the test serves HTTP itself). */
export function cliAsync(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

export interface BoundedResult extends CliResult {
  /** True when the command had not ended by itself within the bound (it was then stopped, and the test fails). */
  readonly overran: boolean;
  readonly ms: number;
}

/**
 * Runs the real CLI and waits at most `boundMs` for it to end by itself. A command still running
 * at the bound is reported as overrun (and only then stopped, so the suite itself never hangs).
 */
export function cliWithin(args: readonly string[], boundMs: number, options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<BoundedResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawnChild(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, CI: 'true', ...options.env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let overran = false;
    const bound = setTimeout(() => {
      overran = true;
      process.kill(-(child.pid as number), 'SIGKILL');
    }, boundMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let ms = 0;
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(bound);
      resolve({ code: code ?? -1, stdout, stderr, overran, ms: ms || Date.now() - started });
    };
    child.on('exit', (code) => {
      ms = Date.now() - started;
      clearTimeout(bound);
      // Its output pipes close with it, unless something it started keeps them open.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code);
      }, 2000).unref();
    });
    child.on('close', (code) => finish(code));
  });
}

/** Processes whose command line mentions `text` (children a command may have left running), read from /proc. */
export function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue; // The process ended while we looked.
    }
    if (commandLine.includes(text)) found.push(`${pid} ${commandLine}`);
  }
  return found;
}
