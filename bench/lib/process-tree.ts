// Memory of a whole process tree, read from /proc while it runs: agentdevel and every process
// it starts (tool hosts, spawn helpers, agents). GNU time's %M is the largest single process,
// which leaves out the children; this sums them.
//
// Each process counts its PSS (proportional set size, /proc/<pid>/smaps_rollup) when it is
// readable: a page shared by N processes (node's own code, mapped by every host) counts 1/N in
// each, so the sum is what the tree holds. Where smaps_rollup cannot be read, VmRSS counts
// instead (an upper bound: shared pages then count once per process). The RSS sum is
// printed beside it.
//
// The tree is sampled every `intervalMs`: a peak shorter than that can be missed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One process as one sample saw it. */
interface ProcessMemory {
  readonly pid: number;
  readonly name: string;
  readonly rssKb: number;
  /** Null when smaps_rollup could not be read. */
  readonly pssKb: number | null;
  /** CPU time so far (user + sys), in clock ticks. */
  readonly cpuTicks: number;
}

export interface TreePeak {
  /** Largest sum over the tree of PSS (RSS where PSS was not readable), in MB. */
  readonly treeMb: number;
  /** Largest sum over the tree of RSS, in MB (counts shared pages once per process). */
  readonly treeRssMb: number;
  /** Whether every process of every sample had a readable PSS. */
  readonly pssEverywhere: boolean;
  /** The largest RSS any one process reached, and which. */
  readonly largestProcess: { readonly name: string; readonly rssMb: number };
  /** The most processes the tree had at once, and how many it had in all. */
  readonly mostProcesses: number;
  readonly processesSeen: number;
  /** The peak's make-up: MB per kind of process (by name) in the sample of the largest sum. */
  readonly atPeak: ReadonlyArray<{ readonly name: string; readonly count: number; readonly mb: number }>;
  /** CPU seconds per kind of process, as last sampled (the last interval of each process is missed). */
  readonly cpuByKind: ReadonlyArray<{ readonly name: string; readonly count: number; readonly cpuS: number }>;
  readonly samples: number;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // The process ended between listing and reading: it is simply not in this sample.
    return null;
  }
}

/** Parent of every live process (from /proc/<pid>/stat: the field after the parenthesized name). */
function parents(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readText(`/proc/${entry}/stat`);
    if (stat === null) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  return children;
}

/** The pids of `root` and all its descendants. */
function treeOf(root: number): number[] {
  const children = parents();
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

const field = (text: string, name: string): number | null => {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : null;
};

/** A short name: the command and, for node, the script it runs (agentdevel.mjs, host-entry.mjs, …). */
function nameOf(pid: number): string {
  const argv = (readText(`/proc/${pid}/cmdline`) ?? '').split('\0').filter((arg) => arg !== '');
  const command = (argv[0] ?? '?').split('/').at(-1) ?? '?';
  // A sandboxed child runs sandbox-entry.mjs first; what it runs is the script after it.
  const script = argv.slice(1).find((arg) => /\.(m?js|ts)$/.test(arg) && !arg.endsWith('sandbox-entry.mjs'));
  return script && command.startsWith('node') ? `${command} ${script.split('/').at(-1)}` : command;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux everywhere it runs). */
const TICKS_PER_S = 100;

function sampleProcess(pid: number, names: Map<number, string>): ProcessMemory | null {
  const stat = readText(`/proc/${pid}/stat`);
  // Fields after the parenthesized name: state is the first, utime the 12th, stime the 13th.
  const fields = stat === null ? [] : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuTicks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  const status = readText(`/proc/${pid}/status`);
  if (status === null) return null;
  const rssKb = field(status, 'VmRSS');
  // A zombie has no memory left to count.
  if (rssKb === null) return null;
  const rollup = readText(`/proc/${pid}/smaps_rollup`);
  const pssKb = rollup === null ? null : field(rollup, 'Pss');
  // Read at every sample: a child seen between fork and exec still bears its parent's name, and
  // the sandbox's shell becomes node. The last name a process had is the one it is counted under.
  // A process on its way out has no command line any more: it keeps the name it had.
  const fresh = nameOf(pid);
  if (fresh !== '?') names.set(pid, fresh);
  const name = names.get(pid) ?? '?';
  return { pid, name, rssKb, pssKb, cpuTicks };
}

export interface TreeRun {
  readonly wallMs: number;
  /** CPU time (user + sys) of the command and every child it waited for (GNU time), or NaN without GNU time. */
  readonly cpuMs: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly peak: TreePeak;
}

const TIME = '/usr/bin/time';

/**
 * Runs `command args`, sampling the memory of its process tree until it exits. It runs under GNU
 * time when there is one, for the CPU time of the tree (the time process, 1 MB, is counted too).
 */
export function runSampled(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; intervalMs?: number } = {},
): Promise<TreeRun> {
  const intervalMs = options.intervalMs ?? 50;
  const gnuTime = existsSync(TIME);
  const report = path.join(tmpdir(), `agentdevel-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const [file, argv] = gnuTime ? [TIME, ['-o', report, '-f', '%U %S', command, ...args]] : [command, [...args]];
  const started = performance.now();
  const child = spawn(file, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const names = new Map<number, string>();
  const largest = new Map<number, number>();
  const cpu = new Map<number, number>();
  let peak = { treeKb: 0, treeRssKb: 0, atPeak: [] as ProcessMemory[] };
  let pssEverywhere = true;
  let mostProcesses = 0;
  let samples = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    const tree = treeOf(child.pid)
      .map((pid) => sampleProcess(pid, names))
      .filter((p): p is ProcessMemory => p !== null);
    if (tree.length === 0) return;
    samples += 1;
    mostProcesses = Math.max(mostProcesses, tree.length);
    let treeKb = 0;
    let treeRssKb = 0;
    for (const p of tree) {
      if (p.pssKb === null) pssEverywhere = false;
      treeKb += p.pssKb ?? p.rssKb;
      treeRssKb += p.rssKb;
      largest.set(p.pid, Math.max(largest.get(p.pid) ?? 0, p.rssKb));
      cpu.set(p.pid, p.cpuTicks);
    }
    if (treeKb > peak.treeKb) peak = { treeKb, treeRssKb, atPeak: tree };
    peak = { ...peak, treeRssKb: Math.max(peak.treeRssKb, treeRssKb) };
  };
  const timer = setInterval(sample, intervalMs);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      const wallMs = performance.now() - started;
      let cpuMs = Number.NaN;
      if (gnuTime) {
        const [user, sys] = (readText(report) ?? '').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
        cpuMs = ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000;
        rmSync(report, { force: true });
      }
      const [largestPid, largestKb] = [...largest].reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
      const groups = new Map<string, { count: number; kb: number }>();
      for (const p of peak.atPeak) {
        const group = groups.get(p.name) ?? { count: 0, kb: 0 };
        groups.set(p.name, { count: group.count + 1, kb: group.kb + (p.pssKb ?? p.rssKb) });
      }
      const cpuGroups = new Map<string, { count: number; ticks: number }>();
      for (const [pid, ticks] of cpu) {
        const name = names.get(pid) ?? '?';
        const group = cpuGroups.get(name) ?? { count: 0, ticks: 0 };
        cpuGroups.set(name, { count: group.count + 1, ticks: group.ticks + ticks });
      }
      resolve({
        wallMs,
        cpuMs,
        code: code ?? (signal ? 128 : -1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        peak: {
          treeMb: peak.treeKb / 1024,
          treeRssMb: peak.treeRssKb / 1024,
          pssEverywhere,
          largestProcess: { name: names.get(largestPid) ?? '?', rssMb: largestKb / 1024 },
          mostProcesses,
          processesSeen: largest.size,
          atPeak: [...groups].map(([name, g]) => ({ name, count: g.count, mb: g.kb / 1024 })).sort((a, b) => b.mb - a.mb),
          cpuByKind: [...cpuGroups].map(([name, g]) => ({ name, count: g.count, cpuS: g.ticks / TICKS_PER_S })).sort((a, b) => b.cpuS - a.cpuS),
          samples,
        },
      });
    });
  });
}
