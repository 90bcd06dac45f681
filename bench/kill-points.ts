// Recovery after kill -9: `agentdevel demo` is killed with SIGKILL at moments spread over its run
// (the process alone, as `kill -9 <pid>` does: whatever it started is left running), and
// `agentdevel iterate --max-iterations 1` is run on the workspace at once. It must complete (exit
// 0) every time. One demo is run whole first to learn how long a run takes; the kill points are
// then spread evenly over that time. Each point prints what the killed run had reached and how
// the iterate after it ended; the last line is the tally.
// With --group the whole process group gets the SIGKILL (as `kill -9 -PGID`, or a terminal's
// job control does), so a git it was running dies mid-write too.
// Run: npx tsx bench/kill-points.ts [--points 20] [--duration SECONDS] [--group] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { agentdevelBin, load } from './lib/measure.ts';

const { values } = parseArgs({ options: { points: { type: 'string', default: '20' }, duration: { type: 'string' }, keep: { type: 'boolean', default: false }, group: { type: 'boolean', default: false } } });
const points = Number(values.points);
const root = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-kill-'));
const env = { ...process.env, CI: 'true', ANTHROPIC_API_KEY: '' } as NodeJS.ProcessEnv;

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly seconds: number;
}

/** Runs agentdevel; when `killAfterMs` is given, kills it with SIGKILL then. */
function run(args: readonly string[], killAfterMs?: number): Promise<Ended> {
  const started = performance.now();
  const child = spawn(process.execPath, [agentdevelBin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: values.group });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const kill = () => (values.group ? process.kill(-(child.pid as number), 'SIGKILL') : child.kill('SIGKILL'));
  const timer = killAfterMs === undefined ? null : setTimeout(kill, killAfterMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const git = (dir: string, ...args: string[]): string => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout.trim();

/** What the killed run had reached: the line's commits and release tags, and whether it held the lock. */
function reached(dir: string): string {
  if (!existsSync(path.join(dir, '.git'))) return 'no workspace yet';
  const commits = git(dir, 'rev-list', '--count', 'main') || '0';
  const tags = git(dir, 'tag').split('\n').filter(Boolean).length;
  const lock = existsSync(path.join(dir, '.agentdevel', 'lock')) ? ', lock left' : '';
  const journal = existsSync(path.join(dir, '.agentdevel', 'promotion.json')) ? ', journal left' : '';
  return `${commits} commits, ${tags} tags${lock}${journal}`;
}

const firstError = (stderr: string): string => stderr.split('\n').find((l) => l.startsWith('error ')) ?? stderr.trim().split('\n').at(-1) ?? '';

let durationMs = values.duration ? Number(values.duration) * 1000 : 0;
if (!durationMs) {
  const whole = await run(['demo', '--dir', path.join(root, 'whole')]);
  if (whole.code !== 0) throw new Error(`agentdevel demo failed (exit ${whole.code}): ${whole.stderr.slice(-500)}`);
  durationMs = whole.seconds * 1000;
}
console.log(`demo runs ${(durationMs / 1000).toFixed(1)} s; killing ${values.group ? 'its process group' : 'it'} with SIGKILL at ${points} moments spread over that, then iterate --max-iterations 1 (load ${load()})`);

const tally = new Map<string, number>();
let completed = 0;
for (let i = 1; i <= points; i += 1) {
  const dir = path.join(root, `kill-${i}`);
  const at = Math.round((durationMs * i) / (points + 1));
  const killed = await run(['demo', '--dir', dir], at);
  const state = reached(dir);
  // A kill during the scaffold leaves no workspace (it is built aside and renamed into place):
  // the user runs demo again. Otherwise iterate must complete on what the kill left.
  const workspace = existsSync(path.join(dir, '.git'));
  const after = workspace ? await run(['iterate', '--max-iterations', '1', '-C', dir]) : await run(['demo', '--dir', dir, '--max-iterations', '1']);
  const command = workspace ? 'iterate' : 'demo (again)';
  const outcome = after.code === 0 ? 'completed' : `exit ${after.code}: ${firstError(after.stderr).slice(0, 160)}`;
  if (after.code === 0) completed += 1;
  const key = after.code === 0 ? 'completed' : (/^error (\w+)/.exec(firstError(after.stderr))?.[1] ?? `exit ${after.code}`);
  tally.set(key, (tally.get(key) ?? 0) + 1);
  const how = killed.signal === 'SIGKILL' ? `killed at ${(at / 1000).toFixed(1)} s` : `ended by itself (exit ${killed.code}) before ${(at / 1000).toFixed(1)} s`;
  console.log(`  ${String(i).padStart(2)}. ${how.padEnd(34)} ${state.padEnd(38)} ${command}: ${outcome} (${after.seconds.toFixed(1)} s)`);
  if (!values.keep && after.code === 0) rmSync(dir, { recursive: true, force: true });
}
console.log(`summary: ${completed} of ${points} kill points recovered (${[...tally].map(([k, n]) => `${k} ${n}`).join(', ')})${values.keep ? `; workspaces in ${root}` : ''}`);
if (!values.keep && completed === points) rmSync(root, { recursive: true, force: true });
else if (completed !== points) console.log(`the workspaces that did not recover are kept in ${root}`);
process.exitCode = completed === points ? 0 : 1;
