// Scale: `agentdevel run` of the minimal tool-loop case on the mock engine over N and 10·N cases
// × 1 trial (default 10k and 100k), at concurrency 16. Prints, for each, the wall time, the
// peak memory of the whole process tree (agentdevel, its tool hosts and any spawn helpers,
// sampled from /proc: see lib/process-tree.ts), the largest single process, and the most
// entries in any one folder of the workspace afterwards; then t(10N)/t(N), with the load average.
// Targets: tree ≤ 500 MB at 100k (concurrency 16), t(100k)/t(10k) ≤ 10.5, the 100k run ≤ 25 s
// wall at a load under 2, no folder above 10,000 entries.
// Run: npx tsx bench/scale.ts [--small 10000] [--large 100000] [--concurrency 16] [--sample-ms 50]
//      [--cpu-prof DIR]   (writes a V8 CPU profile of the agentdevel process of each run to DIR)
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { agentdevelBin, load } from './lib/measure.ts';
import { runSampled, type TreePeak } from './lib/process-tree.ts';
import { writeScaleWorkspace } from './lib/scale-workspace.ts';

const { values } = parseArgs({
  options: {
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '16' },
    'sample-ms': { type: 'string', default: '50' },
    'cpu-prof': { type: 'string' },
  },
});
const concurrency = Number(values.concurrency);
const sampleMs = Number(values['sample-ms']);
const TREE_MB = 500;
const RATIO = 10.5;
const LARGE_WALL_S = 25;

/** The folder of `root` (itself included, .git left out) with the most entries. */
function largestFolder(root: string): { folder: string; entries: number } {
  let largest = { folder: root, entries: 0 };
  const walk = (folder: string) => {
    const entries = readdirSync(folder, { withFileTypes: true });
    if (entries.length > largest.entries) largest = { folder, entries: entries.length };
    for (const entry of entries) if (entry.isDirectory() && entry.name !== '.git') walk(path.join(folder, entry.name));
  };
  walk(root);
  return { folder: path.relative(root, largest.folder) || '.', entries: largest.entries };
}

interface ScaleFigure {
  readonly cases: number;
  readonly wallS: number;
  /** CPU time of the tree (user + sys): less swayed by the load than the wall time. */
  readonly cpuS: number;
  readonly peak: TreePeak;
  readonly largest: { folder: string; entries: number };
  readonly loadBefore: string;
}

async function scaleRun(cases: number): Promise<ScaleFigure> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-scale-'));
  try {
    writeScaleWorkspace(dir, { runtime: 'tool-loop', cases, concurrency });
    const profile = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof']), '--cpu-prof-name', `run-${cases}.cpuprofile`] : [];
    if (values['cpu-prof']) mkdirSync(path.resolve(values['cpu-prof']), { recursive: true });
    const loadBefore = load();
    const env = { ...process.env, CI: 'true' };
    const run = await runSampled(process.execPath, [...profile, agentdevelBin, 'run', '-C', dir, '--json'], { env, intervalMs: sampleMs });
    const result = JSON.parse(run.stdout || '{}') as { graded?: number; passed?: number };
    if (run.code !== 0 || result.graded !== cases || result.passed !== cases) {
      throw new Error(`agentdevel run failed (exit ${run.code}, ${result.passed}/${result.graded} passed): ${run.stderr.slice(-500)}`);
    }
    const figure = { cases, wallS: run.wallMs / 1000, cpuS: run.cpuMs / 1000, peak: run.peak, largest: largestFolder(dir), loadBefore };
    const { peak } = figure;
    const makeUp = peak.atPeak.map((g) => `${g.count}× ${g.name} ${g.mb.toFixed(0)} MB`).join(', ');
    const cpuMakeUp = peak.cpuByKind.filter((g) => g.cpuS >= 0.05).map((g) => `${g.count}× ${g.name} ${g.cpuS.toFixed(1)} s`).join(', ');
    console.log(
      `  ${cases} cases: ${figure.wallS.toFixed(1)} s wall, ${figure.cpuS.toFixed(1)} s CPU (${cpuMakeUp}); process tree at its peak ${peak.treeMb.toFixed(0)} MB ${peak.pssEverywhere ? 'PSS' : 'PSS/RSS'} (RSS summed ${peak.treeRssMb.toFixed(0)} MB): ${makeUp}; largest process ${peak.largestProcess.name} ${peak.largestProcess.rssMb.toFixed(0)} MB RSS; ${peak.mostProcesses} processes at once, ${peak.processesSeen} in all (${peak.samples} samples every ${sampleMs} ms); largest folder ${figure.largest.folder} (${figure.largest.entries} entries)  (load ${loadBefore} → ${load()})`,
    );
    return figure;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`tool-loop, mock engine (a simulation), minimal case, 1 trial, concurrency ${concurrency}`);
const small = await scaleRun(Number(values.small));
const large = await scaleRun(Number(values.large));
const ratio = large.wallS / small.wallS;
const cpuRatio = large.cpuS / small.cpuS;
const crowded = Math.max(small.largest.entries, large.largest.entries);
const quiet = Number(large.loadBefore.split(' ')[0]) < 2;
const met = large.peak.treeMb <= TREE_MB && ratio <= RATIO && crowded <= 10_000 && large.wallS <= LARGE_WALL_S;
console.log(
  `summary: ${large.cases} cases in ${large.wallS.toFixed(1)} s (target ≤ ${LARGE_WALL_S} s at a load under 2; load was ${large.loadBefore}${quiet ? '' : ': too busy for the wall-time target to count'}), process tree ${large.peak.treeMb.toFixed(0)} MB at concurrency ${concurrency} (target ≤ ${TREE_MB}), t(${large.cases})/t(${small.cases}) ${ratio.toFixed(2)} (target ≤ ${RATIO}; CPU ${cpuRatio.toFixed(2)}), at most ${crowded} entries in a folder (target ≤ 10,000): ${met ? 'met' : 'NOT met'}`,
);
