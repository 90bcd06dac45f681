// The work a command plans, gathered before it starts, and its projection from the cost ledger
// (domain/spend-projection.ts). It reads the store and the working tree only: no model, no run.
import { discoverCeiling } from '../../stages/discover/ceiling.ts';
import { projectSpend, type PlannedWork, type Projection, type Range } from '../../domain/spend-projection.ts';
import type { SpendHistory } from '../../domain/ports/record-store.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { baselineRecordCount } from './execute-run.ts';

export type EstimatedCommand =
  | { readonly command: 'run'; readonly cases: readonly string[] }
  | { readonly command: 'gate' }
  | { readonly command: 'iterate'; readonly maxIterations: number | null }
  | { readonly command: 'discover'; readonly rounds: number; readonly top: number };

const exactly = (n: number): Range => ({ low: n, expected: n, high: n });
const plus = (a: Range, b: Range): Range => ({ low: a.low + b.low, expected: a.expected + b.expected, high: a.high + b.high });

/** The projection of a command on this workspace, or null when the ledger has no history yet. */
export async function estimateSpend(workspace: Workspace, request: EstimatedCommand): Promise<Projection | null> {
  const history = workspace.store.spendHistory();
  return projectSpend(history, await plannedWork(workspace, request, history));
}

async function plannedWork(workspace: Workspace, request: EstimatedCommand, history: SpendHistory): Promise<PlannedWork> {
  const { config, root } = workspace;
  const task = await workspace.files.tasks.loadTask(root, config.task);
  const split = await workspace.files.tasks.loadSplit(task, 'train');
  const whole = split.length * config.trials;
  if (request.command === 'run') {
    const n = (request.cases.length > 0 ? request.cases.length : split.length) * config.trials;
    return { command: 'run', caseTrials: exactly(n), parts: [`${n} of the working tree`], outsideRuns: { times: 0, roles: [] } };
  }
  const records = baselineRecordCount(config);
  const recorded = await recordedBaselineRecords(workspace, records);
  const missing = records - recorded;
  const baselinePart = `baseline: ${recorded} of ${records} record${records === 1 ? '' : 's'} recorded, ${missing * whole} case-trials to take`;
  if (request.command === 'discover') {
    const plan = { rounds: request.rounds, top: request.top, designCases: Math.min(config.discover.designCases, split.length), trials: config.trials, warmupRounds: config.discover.warmup.rounds, warmupCases: config.discover.warmup.cases };
    const ceiling = discoverCeiling(plan);
    const release = recorded > 0 ? 0 : whole;
    return {
      command: 'discover',
      caseTrials: { low: release, expected: release + ceiling.caseTrials / 2, high: release + ceiling.caseTrials },
      parts: [`the release's run ${release}`, `${request.rounds} rounds of at most ${ceiling.perRound}`],
      outsideRuns: { times: 0, roles: [] },
      extraRequests: ceiling.judgeRequests + ceiling.writerRequests,
    };
  }
  const confirm = confirmationHistory(history);
  const confirmation: Range = confirm ?? { low: 0, expected: 0, high: whole * config.gate.maxConfirmTrials * 2 };
  const confirmPart = confirm ? `confirmation ${Math.round(confirm.expected)} as in the gates recorded (${confirm.low}–${confirm.high})` : `confirmation 0–${confirmation.high} (no gate recorded yet)`;
  const first = plus(plus(exactly(missing * whole), exactly(whole)), confirmation);
  if (request.command === 'gate') {
    return { command: 'gate', caseTrials: first, parts: [baselinePart, `candidate ${whole}`, confirmPart], outsideRuns: { times: 1, roles: ['reviewer'] } };
  }
  const iterations = request.maxIterations ?? config.stop.maxIterations;
  // After a promotion the new release's records are taken at its first gate: counted in the high end only.
  const later: Range = { low: 0, expected: 0, high: records * whole };
  let total = first;
  for (let i = 1; i < iterations; i += 1) total = plus(total, plus(plus(later, exactly(whole)), confirmation));
  return {
    command: `iterate (${iterations} iteration${iterations === 1 ? '' : 's'} at most)`,
    caseTrials: total,
    parts: [baselinePart, `candidate ${whole} an iteration`, `${confirmPart} an iteration`],
    outsideRuns: { times: iterations, roles: 'all' },
  };
}

/** Confirmation case-trials per gate recorded (grouped by iteration), or null when none is. */
function confirmationHistory(history: SpendHistory): Range | null {
  const byIteration = new Map<number | null, number>();
  for (const run of history.runs) if (run.purpose === 'confirm') byIteration.set(run.iteration, (byIteration.get(run.iteration) ?? 0) + run.caseTrials);
  const counts = [...byIteration.values()];
  if (counts.length === 0) return null;
  return { low: Math.min(...counts), expected: counts.reduce((a, b) => a + b, 0) / counts.length, high: Math.max(...counts) };
}

/** How many of the release's screen records (the working tree's blueprint, the whole train split) are recorded complete. */
async function recordedBaselineRecords(workspace: Workspace, records: number): Promise<number> {
  const { config, root, store } = workspace;
  const [blueprintTree, taskTree] = (await workspace.repo.folderFingerprints(root, [`blueprints/${config.blueprint}`, `rubrics/${config.task}`])) as [string, string];
  const firstTrials = new Set<number>();
  for (const run of store.latestRuns(blueprintTree, taskTree, 'train', 50)) {
    if (run.status !== 'complete' || run.trials !== config.trials || run.keyParts?.cases || run.commit.endsWith('+dirty')) continue;
    const firstTrial = run.keyParts?.firstTrial ?? 0;
    if (firstTrial % config.trials === 0 && firstTrial / config.trials < records) firstTrials.add(firstTrial);
  }
  return firstTrials.size;
}
