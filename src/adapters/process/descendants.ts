// Descendants of an untrusted process, found in the process table (/proc) while it runs: the
// fallback containment where no PID namespace can be made (see untrusted.ts). A child can leave
// its process group (setsid), clear its environment (env -i) and be re-parented to init once
// its parent exits, so three links are followed, sampled every SAMPLE_MS while it runs:
// - the parent chain: a process whose parent is a tracked one is tracked (kept after the
//   parent dies, so re-parenting loses nothing once it was seen);
// - the process group and the session of the root (it leads both: each child is detached);
// - the marker variable in the environment (runner.ts sets it), for what was never sampled.
// What it cannot see: a process forked and orphaned between two samples that also left the
// session and cleared its environment. Killing checks each process's start time, so a pid the
// system reused for someone else's process is never killed.
import { readdirSync, readFileSync } from 'node:fs';
import { CONTAINMENT_VARIABLE } from './children.ts';

const SAMPLE_MS = 25;

interface ProcessEntry {
  readonly pid: number;
  /** R, S, D, Z (a zombie: dead, not yet reaped) … */
  readonly state: string;
  readonly ppid: number;
  readonly group: number;
  readonly session: number;
  /** Start time in clock ticks since boot: with the pid, it names one process for good. */
  readonly start: string;
}

/** One line of /proc/<pid>/stat, or null when the process is gone or unreadable. */
function entryOf(pid: string): ProcessEntry | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name is in parentheses and may hold spaces or parentheses: read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is the state; ppid, pgrp and session follow; starttime is field 22 of the line (index 19 here).
  const [state, ppid, group, session] = fields;
  const start = fields[19];
  if (state === undefined || ppid === undefined || group === undefined || session === undefined || start === undefined) return null;
  return { pid: Number(pid), state, ppid: Number(ppid), group: Number(group), session: Number(session), start };
}

function processTable(): ProcessEntry[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.flatMap((pid) => entryOf(pid) ?? []);
}

class Watch {
  /** pid → start time of every process found to descend from the root. */
  readonly tracked = new Map<number, string>();
  /** The root's start time, once seen; its group and session are followed only while its pid is not someone else's. */
  private rootStart: string | null = null;
  private rootPidReused = false;

  constructor(
    readonly root: number,
    readonly marker: string | null,
  ) {}

  /** Adds what the table shows descending from what is tracked, until nothing more is found. */
  absorb(table: readonly ProcessEntry[]): void {
    const root = table.find((e) => e.pid === this.root);
    if (root && this.rootStart === null) this.rootStart = root.start;
    else if (root && root.start !== this.rootStart) this.rootPidReused = true;
    const inRootSession = (entry: ProcessEntry) => !this.rootPidReused && (entry.group === this.root || entry.session === this.root);
    // A parent counts while it is the process that was tracked (a pid reused since is someone else).
    const started = new Map(table.map((e) => [e.pid, e.start]));
    const trackedParent = (entry: ProcessEntry) => this.tracked.has(entry.ppid) && this.tracked.get(entry.ppid) === started.get(entry.ppid);
    let grew = true;
    while (grew) {
      grew = false;
      for (const entry of table) {
        if (this.tracked.get(entry.pid) === entry.start) continue;
        if ((entry.pid === this.root && entry.start === this.rootStart) || inRootSession(entry) || trackedParent(entry)) {
          this.tracked.set(entry.pid, entry.start);
          grew = true;
        }
      }
    }
  }

  /** Processes carrying the marker in their environment (read only at the end: /proc/<pid>/environ of every process is costly). */
  absorbMarked(table: readonly ProcessEntry[]): void {
    if (this.marker === null) return;
    const needle = `${CONTAINMENT_VARIABLE}=${this.marker}`;
    for (const entry of table) {
      if (this.tracked.has(entry.pid)) continue;
      try {
        if (readFileSync(`/proc/${entry.pid}/environ`, 'latin1').split('\0').includes(needle)) this.tracked.set(entry.pid, entry.start);
      } catch {
        // Gone meanwhile, or another user's.
      }
    }
  }
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | null = null;

function sampleAll(): void {
  const table = processTable();
  for (const watch of watches) watch.absorb(table);
}

export interface DescendantWatch {
  /** Kills every process found to descend from the root (the root itself included) and stops watching; returns how many were killed. */
  stop(): number;
}

/**
 * Starts following the descendants of `root` (a child that leads its own group and session).
 * Call it as soon as the child is started; `stop()` once it has exited. Without /proc it finds
 * only what the marker names, at the end.
 */
export function watchDescendants(root: number, marker: string | null): DescendantWatch {
  const watch = new Watch(root, marker);
  watch.absorb(processTable());
  watches.add(watch);
  timer ??= setInterval(sampleAll, SAMPLE_MS).unref();
  return {
    stop() {
      let killed = 0;
      // A few rounds: what a tracked process forked while the kills ran is found by the next one.
      for (let round = 0; round < 3; round += 1) {
        const table = processTable();
        watch.absorb(table);
        if (round === 0) watch.absorbMarked(table);
        // A zombie is dead already: killing it again would count forever.
        const alive = new Map(table.filter((e) => e.state !== 'Z' && e.state !== 'X').map((e) => [e.pid, e.start]));
        let found = 0;
        for (const [pid, start] of watch.tracked) {
          if (alive.get(pid) !== start) continue;
          try {
            process.kill(pid, 'SIGKILL');
            found += 1;
          } catch {
            // Already gone.
          }
        }
        killed += found;
        if (found === 0) break;
      }
      watches.delete(watch);
      if (watches.size === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
      return killed;
    },
  };
}
