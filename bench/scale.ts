// Scale: `agentdevel run` of the minimal tool-loop case on the mock engine over N and 10·N cases
// × 1 trial (default 10k and 100k). Prints, for each, the wall time, the peak resident memory of
// the agentdevel process (GNU time), and the most entries found in any one folder of the
// workspace afterwards (traces in segments, not a file per case-trial); then t(10N)/t(N).
// Targets: peak RSS ≤ 300 MB at 100k, t(100k)/t(10k) ≤ 11, no folder above 10,000 entries.
// Run: npx tsx bench/scale.ts [--small 10000] [--large 100000] [--concurrency 4]
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { agentdevel, load } from './lib/measure.ts';
import { writeScaleWorkspace } from './lib/scale-workspace.ts';

const { values } = parseArgs({
  options: {
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '4' },
  },
});
const concurrency = Number(values.concurrency);

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
  readonly peakRssMb: number;
  readonly largest: { folder: string; entries: number };
}

function scaleRun(cases: number): ScaleFigure {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-scale-'));
  try {
    writeScaleWorkspace(dir, { runtime: 'tool-loop', cases, concurrency });
    const before = load();
    const cost = agentdevel(['run', '-C', dir, '--json']);
    const result = JSON.parse(cost.stdout || '{}') as { graded?: number; passed?: number };
    if (cost.code !== 0 || result.graded !== cases || result.passed !== cases) {
      throw new Error(`agentdevel run failed (exit ${cost.code}, ${result.passed}/${result.graded} passed): ${cost.stderr.slice(-500)}`);
    }
    const figure = { cases, wallS: cost.wallMs / 1000, peakRssMb: cost.peakRssMb, largest: largestFolder(dir) };
    console.log(
      `  ${cases} cases: ${figure.wallS.toFixed(1)} s, peak RSS ${figure.peakRssMb.toFixed(0)} MB, largest folder ${figure.largest.folder} (${figure.largest.entries} entries)  (load ${before} → ${load()})`,
    );
    return figure;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`tool-loop, mock engine (a simulation), minimal case, 1 trial, concurrency ${concurrency}`);
const small = scaleRun(Number(values.small));
const large = scaleRun(Number(values.large));
const ratio = large.wallS / small.wallS;
const crowded = Math.max(small.largest.entries, large.largest.entries);
const met = large.peakRssMb <= 300 && ratio <= 11 && crowded <= 10_000;
console.log(
  `summary: ${large.cases} cases in ${large.wallS.toFixed(0)} s, peak RSS ${large.peakRssMb.toFixed(0)} MB (target ≤ 300), t(${large.cases})/t(${small.cases}) ${ratio.toFixed(2)} (target ≤ 11), at most ${crowded} entries in a folder (target ≤ 10,000): ${met ? 'met' : 'NOT met'}`,
);
