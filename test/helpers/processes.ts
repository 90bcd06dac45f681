// Watches the process table while a CLI command runs, to prove it leaves nothing behind: every
// process seen descending from the command while it ran must be gone once it has exited.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { CliResult } from './workspace.ts';
import { startCli } from './workspace.ts';

const run = promisify(execFile);

interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
  readonly command: string;
}

async function processTable(): Promise<ProcessRow[]> {
  const { stdout } = await run('ps', ['-A', '-o', 'pid=,ppid=,stat=,comm=']);
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), state: String(m[3]), command: String(m[4]).trim() }));
}

function descendantsOf(root: number, table: readonly ProcessRow[]): ProcessRow[] {
  const found: ProcessRow[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = table.filter((row) => frontier.includes(row.ppid));
    found.push(...children);
    frontier = children.map((c) => c.pid);
  }
  return found;
}

export interface WatchedResult extends CliResult {
  /** Every process seen below the command while it ran (pid and command name). */
  readonly seen: ReadonlyArray<{ pid: number; command: string }>;
  /** Those of them still alive (not zombies) after the command exited. */
  readonly survivors: ReadonlyArray<{ pid: number; command: string }>;
}

/** Runs the real CLI, polling the process table for its descendants until it exits by itself. */
export async function cliWatched(args: readonly string[], options: { env?: Record<string, string | undefined> } = {}): Promise<WatchedResult> {
  const { child, done: finished } = startCli(args, options);
  const exited = finished.then((result) => result.code);
  const seen = new Map<number, string>();
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    for (const row of descendantsOf(child.pid as number, await processTable())) seen.set(row.pid, row.command);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  const code = await exited;
  const after = new Map((await processTable()).map((row) => [row.pid, row]));
  const survivors = [...seen]
    .filter(([pid, command]) => {
      const row = after.get(pid);
      return row !== undefined && row.command === command && !row.state.startsWith('Z');
    })
    .map(([pid, command]) => ({ pid, command }));
  const { stdout, stderr } = await finished;
  return { code, stdout, stderr, seen: [...seen].map(([pid, command]) => ({ pid, command })), survivors };
}

/**
 * The live spawners `parent` started, by pid: its children whose command line is agentdevel's
 * Node spawner (spawner-entry.mjs) or the containment launcher serving (`contain-… serve`),
 * read from /proc.
 */
export function spawnersOf(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && /spawner-entry\.mjs|contain-[0-9a-f]+\0serve/.test(readFileSync(`/proc/${name}/cmdline`, 'utf8'))) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
