// The library entry point (package.json "exports"): run, gate, compare and iterate for programs
// that drive agentdevel without its CLI. Each call opens the workspace, holds its lock like the
// CLI would, and closes it. Progress goes nowhere unless `progress` is given.
import { Writable } from 'node:stream';
import type * as Declared from '../lib/index.mjs';
import { openCommand, processIo, type Io } from './app/compose.ts';
import type { GateDecision } from './domain/decision.ts';
import { passRateOf } from './domain/case-summary.ts';
import { AgentdevelError } from './domain/errors.ts';
import { runVersion, withCheckout, workingTreeSource } from './pipeline/run/execute-run.ts';
import { gateCandidate } from './pipeline/gate/submitted-candidate.ts';
import { iterate as iterateLine, type IterateOutcome } from './pipeline/loop/iterate.ts';
import { openStoreWorkspace } from './pipeline/workspace/store-workspace.ts';
import { failingCases, type CaseReason } from './stages/report/case-reasons.ts';
import { compareRuns } from './stages/gate/compare.ts';

export interface WorkspaceOptions {
  /** The workspace (a git repository with agentdevel.config.json). */
  readonly dir: string;
  /** Where progress lines go (default: nowhere). */
  readonly progress?: NodeJS.WritableStream;
}

function ioFor(options: WorkspaceOptions): Io {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const base = processIo();
  return { ...base, cwd: options.dir, stdout: discard as unknown as NodeJS.WriteStream, stderr: (options.progress ?? discard) as NodeJS.WriteStream };
}

export interface RunSummary {
  readonly runId: string;
  readonly passRate: number;
  readonly failing: readonly CaseReason[];
  readonly simulated: boolean;
}

/** Runs the working tree (or `ref`) over the train split. */
export async function run(options: WorkspaceOptions & { readonly ref?: string; readonly trials?: number }): Promise<RunSummary> {
  const io = ioFor(options);
  const command = await openCommand(io, { C: options.dir, ...(options.trials ? { trials: String(options.trials) } : {}) }, 'run');
  try {
    const { workspace } = command;
    const request = { split: 'train' as const, trials: workspace.config.trials, purpose: 'run' as const };
    const commit = options.ref ? await workspace.repo.resolve(options.ref) : null;
    if (options.ref && !commit) throw new AgentdevelError('REF_NOT_FOUND', `ref "${options.ref}" names no commit in ${workspace.root}`);
    const result = commit
      ? await withCheckout(workspace, commit, (source) => runVersion(command.run, { ...request, source, label: options.ref as string }))
      : await runVersion(command.run, { ...request, source: await workingTreeSource(workspace), label: 'working tree' });
    return {
      runId: result.runId,
      passRate: passRateOf(result.counts),
      failing: failingCases(workspace.store.eachRecord(result.runId)),
      simulated: result.simulated,
    };
  } finally {
    await command.close();
  }
}

export interface GateSummary {
  readonly outcome: 'promoted' | 'pending' | 'rejected' | 'accepted';
  readonly tag: string | null;
  readonly decision: GateDecision;
  readonly reports: readonly string[];
  readonly simulated: boolean;
}

/** Gates a candidate (branch, tag or commit) against the current release; `promote` records it on the line. */
export async function gate(options: WorkspaceOptions & { readonly candidate: string; readonly promote?: boolean; readonly targets?: readonly string[]; readonly reportDir?: string }): Promise<GateSummary> {
  const command = await openCommand(ioFor(options), { C: options.dir }, 'gate');
  try {
    const result = await gateCandidate(command.run, {
      ref: options.candidate,
      promote: options.promote === true,
      targets: options.targets ?? [],
      reportDir: options.promote ? null : (options.reportDir ?? null),
      allowBehind: false,
    });
    return { outcome: result.outcome, tag: result.tag, decision: result.decision, reports: result.reportFiles, simulated: result.simulated };
  } finally {
    await command.close();
  }
}

/** Compares two recorded runs (names or ids) with the gate's own code. */
export async function compare(options: WorkspaceOptions & { readonly baseline: string; readonly candidate: string }): Promise<GateDecision> {
  const workspace = await openStoreWorkspace(options.dir, processIo().clock, null);
  try {
    const runs = [options.baseline, options.candidate].map((name) => {
      const found = workspace.store.findRun(name);
      if (!found) throw new AgentdevelError('USAGE', `no run named or numbered "${name}" in ${workspace.root}`);
      return found;
    });
    const [baseline, candidate] = runs as [(typeof runs)[0], (typeof runs)[0]];
    return compareRuns({
      baseline: workspace.store.caseSummaries(baseline.id),
      candidate: workspace.store.caseSummaries(candidate.id),
      policy: workspace.policy,
      noise: { variedCases: workspace.store.variedCases(baseline.taskTree) },
      intent: null,
    }).decision;
  } finally {
    await workspace.close();
  }
}

/** The release loop until a stop condition (or `maxIterations`). */
export async function iterate(options: WorkspaceOptions & { readonly maxIterations?: number }): Promise<IterateOutcome> {
  const command = await openCommand(ioFor(options), { C: options.dir }, 'iterate');
  try {
    return await iterateLine(command.run, { maxIterations: options.maxIterations ?? null });
  } finally {
    await command.close();
  }
}

// The published declarations (lib/index.d.mts) must describe these functions: the compiler checks it here.
export const api = { run, gate, compare, iterate } satisfies Pick<typeof Declared, 'run' | 'gate' | 'compare' | 'iterate'>;
