// Marginal cost per case-trial: `agentdevel run` over a small and a large train split, the
// difference in wall time divided by the difference in cases (start-up cancels out).
//   tool-loop on the mock engine, minimal case, against promptfoo's echo provider with one
//   equals assertion, measured back to back in the same session;
//   command agent (`sh` echoing a final event) at concurrency 8, and at concurrency 1.
// Run: npx tsx bench/throughput.ts [--runtime tool-loop|command|all] [--small 1000] [--large 10000]
//                                  [--repeats 3] [--no-promptfoo]
// The machine may be shared: each figure is the median of the repeats, each repeat's runs are
// back to back, and the load average is printed beside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { agentdevel, load, median } from './lib/measure.ts';
import { installPromptfoo, promptfooVersion, runPromptfoo, writePromptfooEval } from './lib/promptfoo.ts';
import { writeScaleWorkspace, type ScaleRuntime } from './lib/scale-workspace.ts';

const { values } = parseArgs({
  options: {
    runtime: { type: 'string', default: 'all' },
    small: { type: 'string', default: '1000' },
    large: { type: 'string', default: '10000' },
    repeats: { type: 'string', default: '3' },
    'no-promptfoo': { type: 'boolean', default: false },
  },
});
const small = Number(values.small);
const large = Number(values.large);
const repeats = Number(values.repeats);

/** Wall time of one `agentdevel run` over `cases` fresh cases (a fresh workspace, so nothing is reused). */
function agentdevelRun(runtime: ScaleRuntime, cases: number, concurrency: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-throughput-'));
  try {
    writeScaleWorkspace(dir, { runtime, cases, concurrency });
    const cost = agentdevel(['run', '-C', dir, '--json']);
    const result = JSON.parse(cost.stdout || '{}') as { graded?: number; passed?: number };
    if (cost.code !== 0 || result.graded !== cases || result.passed !== cases) {
      throw new Error(`agentdevel run failed (exit ${cost.code}, ${result.passed}/${result.graded} passed): ${cost.stderr.slice(-500)}`);
    }
    return cost.wallMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function promptfooRun(bin: string, cases: number, concurrency: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-promptfoo-eval-'));
  try {
    writePromptfooEval(dir, cases);
    const cost = runPromptfoo(bin, dir, cases, concurrency);
    if (!cost.complete) throw new Error(`promptfoo eval did not pass all ${cases} cases (exit ${cost.code}): ${`${cost.stdout}\n${cost.stderr}`.slice(-500)}`);
    return cost.wallMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const slope = (smallMs: number, largeMs: number): number => (largeMs - smallMs) / (large - small);
const ms = (x: number): string => `${x.toFixed(2)} ms`;

function toolLoop(): void {
  const bin = values['no-promptfoo'] ? null : installPromptfoo();
  console.log(`tool-loop, mock engine, minimal case, concurrency 4; ${small} → ${large} cases${bin ? `; promptfoo ${promptfooVersion(bin)}, echo provider, -j 4` : ''}`);
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  for (let r = 1; r <= repeats; r += 1) {
    const before = load();
    const a = slope(agentdevelRun('tool-loop', small, 4), agentdevelRun('tool-loop', large, 4));
    ours.push(a);
    let line = `  repeat ${r}: agentdevel ${ms(a)} per case-trial`;
    if (bin) {
      const p = slope(promptfooRun(bin, small, 4), promptfooRun(bin, large, 4));
      theirs.push(p);
      ratios.push(p / a);
      line += `, promptfoo ${ms(p)} per case, ratio ${(p / a).toFixed(2)}×`;
    }
    console.log(`${line}  (load ${before} → ${load()})`);
  }
  const summary = bin
    ? `tool-loop: ${ms(median(ours))} per case-trial, promptfoo echo ${ms(median(theirs))}: ${median(ratios).toFixed(2)}× lower (medians of ${repeats})`
    : `tool-loop: ${ms(median(ours))} per case-trial (median of ${repeats}; promptfoo not run)`;
  console.log(`summary: ${summary}`);
}

function command(): void {
  console.log(`command agent (sh echo); ${small} → ${large} cases at concurrency 8 and 1`);
  const eight: number[] = [];
  const one: number[] = [];
  for (let r = 1; r <= repeats; r += 1) {
    const before = load();
    const at8 = slope(agentdevelRun('command', small, 8), agentdevelRun('command', large, 8));
    const at1 = slope(agentdevelRun('command', small, 1), agentdevelRun('command', large, 1));
    eight.push(at8);
    one.push(at1);
    console.log(`  repeat ${r}: concurrency 8 ${ms(at8)} per case, concurrency 1 ${ms(at1)} per case, ${(at1 / at8).toFixed(2)}× faster  (load ${before} → ${load()})`);
  }
  console.log(`summary: command: ${ms(median(eight))} per case at concurrency 8, ${(median(one) / median(eight)).toFixed(2)}× faster than at concurrency 1 (medians of ${repeats})`);
}

if (values.runtime === 'all' || values.runtime === 'tool-loop') toolLoop();
if (values.runtime === 'all' || values.runtime === 'command') command();
