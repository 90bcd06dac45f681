// The memory limit of sandboxed Node processes beyond the V8 heap. `--max-old-space-size` bounds
// only the JavaScript heap; Buffers, typed arrays and native allocations live outside it. So the
// child also runs under RLIMIT_DATA (`ulimit -d`, set by /bin/sh before it execs node), which
// bounds every private writable mapping: heap, Buffers, malloc, thread stacks. It works without
// root on any Linux. Node's own baseline differs between versions (Node 24 reserves its JIT
// code range writable, about 500 MB of address space it never fills), so the baseline is
// measured once per agentdevel process by starting a bare Node the same way, and the limit is
// that baseline plus `memoryMb` plus a margin for V8's young generation and code.
//
// Where the shell or /proc is missing (not Linux), the limit falls back to the V8 heap alone.
// Where `setpriv` (util-linux) exists, the child also gets SIGKILL as its parent-death signal,
// so it dies with agentdevel even when agentdevel itself is killed with SIGKILL.
import { runProcess } from './runner.ts';

/** Headroom above the V8 heap for the young generation, compiled code and native buffers. */
export const MARGIN_MB = 64;

const SHELL = '/bin/sh';
const SETPRIV = '/usr/bin/setpriv';
/** Exit code of the launcher when the shell refuses the limit (never a Node exit code). */
export const LIMIT_REFUSED_EXIT = 125;
const LAUNCH_SCRIPT = `ulimit -d "$1" || exit ${LIMIT_REFUSED_EXIT}; shift; exec "$@"`;

export interface Launcher {
  /** Node's own data-segment size, in kB, measured at startup; null when it cannot be limited. */
  readonly baselineKb: number | null;
  /** The hard limit the shell may not raise the data segment above, in kB (null: unlimited). */
  readonly hardLimitKb: number | null;
  readonly setpriv: boolean;
}

const PROBE = `require('node:fs').promises.access('/').then(() => {
  const match = /VmData:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
  process.stdout.write(match ? match[1] : 'none');
});`;

/** Prints the hard limit of the data segment, then execs the probe. */
const PROBE_SCRIPT = `printf '%s\\n' "$(ulimit -H -d)" || exit ${LIMIT_REFUSED_EXIT}; exec "$@"`;

let measured: Promise<Launcher> | null = null;

async function measure(): Promise<Launcher> {
  const env = { PATH: '/nonexistent' };
  // Two bare Node starts, at once: each is most of a command's wait before its first case-trial.
  const [probe, setpriv] = await Promise.all([
    runProcess({ command: SHELL, args: ['-c', PROBE_SCRIPT, 'agentdevel-probe', process.execPath, '-e', PROBE], env, timeoutMs: 20_000 }),
    runProcess({ command: SETPRIV, args: ['--pdeathsig', 'KILL', '--', process.execPath, '-e', ''], env, timeoutMs: 20_000 }),
  ]);
  const [hard, baseline] = probe.stdout.trim().split('\n');
  const baselineKb = probe.exitCode === 0 && /^\d+$/.test(baseline ?? '') ? Number(baseline) : null;
  const hardLimitKb = /^\d+$/.test(hard ?? '') ? Number(hard) : null;
  return { baselineKb, hardLimitKb, setpriv: setpriv.exitCode === 0 };
}

/** How sandboxed children are launched on this machine (measured once, then remembered). */
export function launcher(): Promise<Launcher> {
  measured ??= measure();
  return measured;
}

/** The data-segment limit for a child with this heap limit, in kB (never above the hard limit). */
export function dataLimitKb(found: Pick<Launcher, 'hardLimitKb'>, baselineKb: number, memoryMb: number): number {
  const wanted = baselineKb + (memoryMb + MARGIN_MB) * 1024;
  return found.hardLimitKb === null ? wanted : Math.min(wanted, found.hardLimitKb);
}

/** Wraps `node ...args` so that it starts under the memory limit (and dies with its parent). */
export function limitedCommand(found: Launcher, memoryMb: number, nodeArgs: readonly string[]): { command: string; args: string[] } {
  const node = [...(found.setpriv ? [SETPRIV, '--pdeathsig', 'KILL', '--'] : []), process.execPath, ...nodeArgs];
  if (found.baselineKb === null) {
    const [command, ...args] = node;
    return { command: command as string, args };
  }
  return { command: SHELL, args: ['-c', LAUNCH_SCRIPT, 'agentdevel-sandbox', String(dataLimitKb(found, found.baselineKb, memoryMb)), ...node] };
}

/** Whether a child's stderr says it ran out of memory (V8 heap, Buffers or native allocations). */
export function ranOutOfMemory(stderr: string): boolean {
  return /heap out of memory|Allocation failed|allocation failed|Cannot allocate memory|std::bad_alloc|out of memory|MemoryError/i.test(stderr);
}
