// Start-up: CPU time (user + sys, the process and its children: GNU time) of `agentdevel
// --help`, `--version`, `log`, `show`, `report` and `compare` on the demo workspace, as users
// run it: from the prebuilt bundle (built first, as `npm ci` builds it). Each figure is the
// median of the repeats, printed beside the load average before and after it (on a shared
// machine CPU time grows with the load). Bare `node -e 0` is printed as the floor, and beside
// each command the git processes it starts (a count: it does not depend on the load).
// Targets: --help ≤ 0.15 s CPU; log, show and report on the demo ≤ 0.4 s CPU.
// Run: npx tsx bench/startup.ts [--repeats 7]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openSql } from '../src/adapters/store/sqlite.ts';
import { countingGit } from './lib/git-counter.ts';
import { agentdevel, load, measure, median, repoRoot } from './lib/measure.ts';

const { values } = parseArgs({ options: { repeats: { type: 'string', default: '7' } } });
const repeats = Number(values.repeats);

const built = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-bundle.mjs'), '--strict'], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`the bundle does not build: ${built.stderr}`);

const dir = path.join(mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-startup-')), 'demo');
try {
  const demo = agentdevel(['demo', '--dir', dir], { env: { ANTHROPIC_API_KEY: '' } });
  if (demo.code !== 0) throw new Error(`agentdevel demo failed (exit ${demo.code}): ${demo.stderr.slice(-500)}`);
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  const runs = sql.all<{ id: string }>(`SELECT id FROM runs WHERE status = 'complete' ORDER BY started_at LIMIT 2`).map((r) => r.id);
  const task = (JSON.parse(readFileSync(path.join(dir, 'agentdevel.config.json'), 'utf8')) as { task: string }).task;
  const shownCase = (JSON.parse(readFileSync(path.join(dir, 'rubrics', task, 'train.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { id: string }).id;
  const commands: Array<[string, string[], number | null]> = [
    ['--help', ['--help'], 0.15],
    ['--version', ['--version'], null],
    ['log (demo)', ['log', '-C', dir], 0.4],
    ['show (demo, one case)', ['show', shownCase, '-C', dir], 0.4],
    ['report (demo, newest)', ['report', '-C', dir, '--out', path.join(path.dirname(dir), 'reports')], 0.4],
    ['compare (demo, two runs)', ['compare', String(runs[0]), String(runs[1]), '-C', dir], null],
  ];
  sql.close();
  const bare: number[] = [];
  for (let r = 0; r < repeats; r += 1) bare.push(measure(process.execPath, ['-e', '0']).cpuMs / 1000);
  console.log(`CPU time (user + sys) per command, median of ${repeats}, from the prebuilt bundle; bare node ${median(bare).toFixed(2)} s (load ${load()})`);
  const lines: string[] = [];
  let met = true;
  const git = countingGit();
  for (const [name, args, target] of commands) {
    const before = load();
    const cpu: number[] = [];
    git.take();
    for (let r = 0; r < repeats; r += 1) {
      const cost = agentdevel(args, { env: { PATH: git.path } });
      // compare exits 1 when the gate rejects; anything else is a failure of the bench.
      if (cost.code !== 0 && !(name.startsWith('compare') && cost.code === 1)) throw new Error(`agentdevel ${args.join(' ')} failed (exit ${cost.code}): ${cost.stderr.slice(-500)}`);
      cpu.push(cost.cpuMs / 1000);
    }
    const figure = median(cpu);
    const spawns = Number((git.take() / repeats).toFixed(1));
    if (target !== null && figure > target) met = false;
    console.log(`  ${name.padEnd(26)} ${figure.toFixed(2)} s${target === null ? '' : ` (target ≤ ${target} s)`}, ${spawns} git processes  (load ${before} → ${load()})`);
    lines.push(`${name.split(' ')[0]} ${figure.toFixed(2)} s`);
  }
  console.log(`summary: CPU per command: ${lines.join(', ')}: ${met ? 'targets met' : 'targets NOT met'}`);
} finally {
  rmSync(path.dirname(dir), { recursive: true, force: true });
}
