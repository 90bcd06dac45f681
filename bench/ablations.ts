// AgentDevel's Table 3 (ablations on release stability), run on the bundled example.
// Run: npx tsx bench/ablations.ts [--iterations N]
//
// Four settings start from the same blueprint (the example's initial commit), the same data
// and the same budget (stop.maxIterations of the example's config, or --iterations), each on
// its own scratch line of one workspace: the full pipeline, and `iterate --ablate` with
// no-gate, no-diagnosis and critic-sees-blueprint.
//
// Every figure is measured with one blind protocol, whatever the setting: each release of a
// line is run on the train split with the critic blind (as in every non-ablated run), and the
// flips are those of each promoted release against the release before it. A bad release is,
// as the paper defines it, a promoted update whose regressions exceed a preset threshold; the
// threshold here is the gate's own default tolerance, more than 2% of the cases that passed
// before (gate.maxP2FRate).
//
// SIMULATION: the agent, critic, diagnostician and synthesizer are the mock engine, a
// deterministic stand-in for language models, on a 44-case train split. The figures show what
// each switch does to this simulated mechanism; they are not a replication of the paper's
// WebArena numbers, which are printed beside them for reference only.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/domain/ports/clock.ts';
import type { Ablation } from '../src/domain/ablation.ts';
import { silentReporter } from '../src/domain/ports/reporter.ts';
import { createMockEngine } from '../src/adapters/engines/mock/index.ts';
import { readDecisionLog } from '../src/pipeline/workspace/decision-log.ts';
import { runVersion } from '../src/pipeline/run/execute-run.ts';
import { withCheckout } from '../src/pipeline/workspace/checkout.ts';
import type { PipelineContext } from '../src/pipeline/context.ts';
import { scaffoldExample } from '../src/app/example.ts';
import { iterate } from '../src/pipeline/loop/iterate.ts';
import { releaseTags } from '../src/pipeline/workspace/line-history.ts';
import { ensureScratchBranch, scratchConfig } from '../src/pipeline/workspace/scratch-line.ts';
import { openWorkspace } from '../src/app/workspace.ts';
import { type Workspace } from '../src/pipeline/workspace/workspace.ts';
import { wordDiff } from '../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../src/adapters/template/report-templates.ts';
import { blueprintCheckRunner } from '../src/adapters/process/blueprint-checks.ts';
import { runSandboxed } from '../src/adapters/process/sandbox.ts';
import { runScorerScript } from '../src/adapters/process/scorer-scripts.ts';
import { localExecutor } from '../src/adapters/runtimes/local-executor.ts';

const BAD_RELEASE_P2F_RATE = 0.02;

interface Setting {
  readonly name: string;
  readonly line: string;
  readonly ablation: Ablation | null;
  /** Table 3, WebArena (AgentDevel paper): final test, final train, F→P, P→F, P→F rate, reject rate, bad releases. */
  readonly paper: readonly [string, string, string, string, string, string, string];
}

const settings: readonly Setting[] = [
  { name: 'AgentDevel (full)', line: 'table3-full', ablation: null, paper: ['34.2', '78.5', '214', '18', '3.1%', '42%', '0'] },
  { name: 'w/o flip gate', line: 'table3-no-gate', ablation: 'no-gate', paper: ['35.0', '81.0', '230', '95', '14.8%', 'N/A', '4'] },
  { name: 'w/o executable diagnosis', line: 'table3-no-diagnosis', ablation: 'no-diagnosis', paper: ['31.8', '74.0', '150', '22', '3.9%', '63%', '0'] },
  { name: 'critic sees blueprint', line: 'table3-critic-sees', ablation: 'critic-sees-blueprint', paper: ['32.5', '83.5', '205', '40', '6.7%', '58%', '0'] },
];

const iterationsArg = process.argv.indexOf('--iterations');
const dir = path.join(mkdtempSync(path.join(tmpdir(), 'agentdevel-ablations-')), 'ws');
await scaffoldExample(dir);

function contextOf(workspace: Workspace): PipelineContext {
  return { workspace, model: createMockEngine(), reporter: silentReporter, redact: (t) => t, clock: systemClock, parentEnv: {}, checks: blueprintCheckRunner({}), sandbox: runSandboxed, scorerScripts: runScorerScript, localExecutor, textDiff: wordDiff, templates: renderReportTemplate };
}

/** Per case: did every graded trial pass? Measured blind, on the train or test split. */
async function blindPasses(context: PipelineContext, commit: string, split: 'train' | 'test'): Promise<Map<string, boolean>> {
  const run = await withCheckout(context.workspace, commit, (source) =>
    runVersion(context, { source, split, trials: context.workspace.config.trials, purpose: split === 'test' ? 'test' : 'run', label: `${commit.slice(0, 10)} (${split}, blind)` }),
  );
  return new Map([...run.cases].map(([id, c]) => [id, c.graded > 0 && c.passes === c.graded]));
}

const rate = (n: number, d: number): string => (d === 0 ? '-' : `${((n / d) * 100).toFixed(1)}%`);
const passShare = (passes: Map<string, boolean>): string => ((100 * [...passes.values()].filter(Boolean).length) / Math.max(1, passes.size)).toFixed(1);

const rows: string[][] = [];
for (const setting of settings) {
  const opened = await openWorkspace(dir, { lock: { command: 'bench', waitMs: 0 }, clock: systemClock });
  const budget = iterationsArg > 0 ? Number(process.argv[iterationsArg + 1]) : opened.config.stop.maxIterations;
  const workspace: Workspace = { ...opened, config: scratchConfig(opened.config, setting.line) };
  try {
    await ensureScratchBranch(workspace, opened.config.line.branch);
    const start = (await workspace.repo.resolve(`refs/heads/${workspace.config.line.branch}`)) as string;
    const started = performance.now();
    await iterate(contextOf(workspace), { maxIterations: budget, ablation: setting.ablation });
    const seconds = (performance.now() - started) / 1000;
    const log = await readDecisionLog(workspace);
    const gated = log.filter((e) => e.decision === 'promoted' || e.decision === 'rejected');
    const rejected = gated.filter((e) => e.decision === 'rejected').length;

    // The one blind protocol: each release against the one before it.
    const blind = contextOf(opened);
    const releases = [start, ...(await Promise.all((await releaseTags(workspace.repo, workspace.config)).map(async ({ tag }) => (await workspace.repo.resolve(tag)) as string)))];
    let before = await blindPasses(blind, start, 'train');
    let f2p = 0;
    let p2f = 0;
    let passingBefore = 0;
    let bad = 0;
    for (const release of releases.slice(1)) {
      const after = await blindPasses(blind, release, 'train');
      const passed = [...before].filter(([, pass]) => pass).map(([id]) => id);
      const regressed = passed.filter((id) => after.get(id) === false).length;
      f2p += [...before].filter(([id, pass]) => !pass && after.get(id) === true).length;
      p2f += regressed;
      passingBefore += passed.length;
      if (regressed / Math.max(1, passed.length) > BAD_RELEASE_P2F_RATE) bad += 1;
      before = after;
    }
    const finalRelease = releases.at(-1) as string;
    const test = await blindPasses(blind, finalRelease, 'test');
    rows.push([
      setting.name,
      passShare(test),
      passShare(before),
      String(f2p),
      String(p2f),
      rate(p2f, passingBefore),
      setting.ablation === 'no-gate' ? 'N/A' : rate(rejected, gated.length),
      String(bad),
      `${releases.length - 1} promoted of ${gated.length} gated RCs, ${log.length} decisions, ${seconds.toFixed(0)} s`,
    ]);
    rows.push(['  paper (WebArena)', ...setting.paper, '']);
  } finally {
    await workspace.close();
  }
}

const header = ['setting', 'final test', 'final train', 'total F→P', 'total P→F', 'P→F rate', 'gate reject rate', 'bad releases', ''];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log('');
console.log('Simulation: the bundled example on the mock engine (a deterministic stand-in for language models, not a model), 44 train and 20 test cases,');
console.log(`same start and budget per setting; flips and pass rates measured blind on every release; bad release: a promoted update whose P→F exceeds ${BAD_RELEASE_P2F_RATE * 100}% of the cases passing before it.`);
console.log('The paper rows are AgentDevel Table 3 (WebArena), for reference: the example is a different task, and percentages are in pass rate, not the WebArena metric.');
