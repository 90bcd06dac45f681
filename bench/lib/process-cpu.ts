// CPU time of processes and their whole trees, read from /proc (Linux), for benches that run
// agentdevel as several processes (a coordinator, workers, their spawners and agents).
//
// What counts, and how:
// - A process's own CPU is utime + stime of /proc/<pid>/stat (all its threads).
// - A process that has exited and was reaped by its parent is in that parent's cutime + cstime
//   (the kernel adds a reaped child's own and children's time to its parent's), so a tree's CPU
//   at one moment is the sum over its live processes of utime + stime + cutime + cstime: every
//   descendant that exited early is counted once, through whichever live ancestor reaped it.
//   (A descendant that outlives its parent is re-parented to init and falls out of the tree:
//   measure a tree while its root is alive, or let the root reap everything before it exits.)
// - The main thread alone: /proc/<pid>/task/<pid>/schedstat, its time on a CPU in nanoseconds.
// - Children of this process that exited: /proc/self/stat cutime + cstime (what a shell's
//   `times` prints), so a command run to completion is measured with all its descendants.
// /proc/*/stat counts in clock ticks (USER_HZ, 100 on Linux: 10 ms).
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10;

interface Stat {
  readonly pid: number;
  readonly ppid: number;
  /** When it started (clock ticks since boot): with the pid, names one process even when pids are reused. */
  readonly startTicks: number;
  /** utime + stime, ms. */
  readonly selfMs: number;
  /** cutime + cstime (reaped descendants), ms. */
  readonly reapedMs: number;
}

/** Fields of /proc/<pid>/stat; null when the process is gone. The name (field 2) may hold spaces and parentheses. */
function readStat(pid: number | 'self'): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17); index = field - 3.
  const at = (field: number) => Number(fields[field - 3]);
  return { pid: pid === 'self' ? process.pid : pid, ppid: at(4), startTicks: at(22), selfMs: (at(14) + at(15)) * TICK_MS, reapedMs: (at(16) + at(17)) * TICK_MS };
}

function allProcesses(): Stat[] {
  const stats: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

export interface TreeCpu {
  /** The root process's own CPU (all its threads). */
  readonly rootMs: number;
  /** Its descendants: live ones' own CPU plus every reaped one's (cutime/cstime) at any level. */
  readonly descendantsMs: number;
  /** Of those: its live children's own CPU (for a worker, its spawners). */
  readonly liveChildrenMs: number;
  /** Of those: what lives or lived below its live children (for a worker, the agents). */
  readonly grandchildrenMs: number;
  /**
   * The same two by live child (`<pid>@<start>`, one process even when pids are reused): its own
   * CPU, and what lives or lived below it. A child that exits moves all of it into the root's
   * reaped CPU, so a split over time is taken child by child.
   */
  readonly byChild: ReadonlyMap<string, { readonly selfMs: number; readonly belowMs: number }>;
  readonly totalMs: number;
  /** Live processes in the tree, root included. */
  readonly processes: number;
}

/** The CPU of `root` and every descendant, now. Null when the root is gone. */
export function treeCpu(root: number): TreeCpu | null {
  const stats = allProcesses();
  const byParent = new Map<number, Stat[]>();
  for (const stat of stats) byParent.set(stat.ppid, [...(byParent.get(stat.ppid) ?? []), stat]);
  const rootStat = stats.find((s) => s.pid === root);
  if (!rootStat) return null;
  let descendantsMs = rootStat.reapedMs;
  let liveChildrenMs = 0;
  let processes = 1;
  const byChild = new Map<string, { selfMs: number; belowMs: number }>();
  for (const child of byParent.get(root) ?? []) {
    let belowMs = child.reapedMs;
    const stack = [...(byParent.get(child.pid) ?? [])];
    for (let stat = stack.pop(); stat; stat = stack.pop()) {
      belowMs += stat.selfMs + stat.reapedMs;
      processes += 1;
      stack.push(...(byParent.get(stat.pid) ?? []));
    }
    byChild.set(`${child.pid}@${child.startTicks}`, { selfMs: child.selfMs, belowMs });
    descendantsMs += child.selfMs + belowMs;
    liveChildrenMs += child.selfMs;
    processes += 1;
  }
  const grandchildrenMs = descendantsMs - rootStat.reapedMs - liveChildrenMs;
  return { rootMs: rootStat.selfMs, descendantsMs, liveChildrenMs, grandchildrenMs, byChild, totalMs: rootStat.selfMs + descendantsMs, processes };
}

/** The main thread's time on a CPU, ms (nanosecond resolution); null when the process is gone. */
export function mainThreadMs(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** CPU of this process's children that exited and were reaped, with all their reaped descendants, ms. */
export function reapedChildrenMs(): number {
  return readStat('self')?.reapedMs ?? 0;
}

/** Redis's own CPU (user + sys, all its threads) from `INFO cpu`, ms. */
export function redisCpuMs(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

/** The live children of `pid` (every thread's), from /proc/<pid>/task/<tid>/children; empty when it is gone. */
function liveChildren(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (child.trim() !== '') found.push(Number(child));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return found;
}

/**
 * A process's own CPU and everything below it, live or reaped, ms (0 when it is gone: its
 * parent has it then). Its children are read before its own counters, so a child reaped
 * meanwhile is counted (twice at worst), never missed.
 */
function subtreeMs(pid: number): number {
  const below = liveChildren(pid).reduce((sum, child) => sum + subtreeMs(child), 0);
  const stat = readStat(pid);
  return stat ? stat.selfMs + stat.reapedMs + below : 0;
}

/**
 * For each live child of `root` (a spawner, or a git process), by pid: its name and the CPU of
 * what lives or lived below it (for a spawner, the agents it started), ms. Reads only the tree
 * of `root`, so it can be sampled often while a run goes on: a child's agents are counted, once
 * it is gone, only through the last sample taken while it lived.
 */
export function belowLiveChildren(root: number): Map<number, { readonly name: string; readonly ms: number }> {
  const below = new Map<number, { name: string; ms: number }>();
  for (const child of liveChildren(root)) {
    let name = '';
    try {
      name = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    // Below first, then the child's reaped counters (as in subtreeMs).
    const live = liveChildren(child).reduce((sum, grandchild) => sum + subtreeMs(grandchild), 0);
    const stat = readStat(child);
    if (!stat) continue;
    below.set(child, { name, ms: stat.reapedMs + live });
  }
  return below;
}
