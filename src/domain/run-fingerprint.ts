// What a run's cache key is made of, part by part, so that when a version's records are not
// reused the reader is told which part differs from the run recorded before (a gate that takes
// the baseline's screen again costs a whole run of the train split: it must say why).
import { z } from './zod.ts';

/** The parts of the key that are not the run's identity columns (blueprint, task, trials, models). */
export const runKeyPartsSchema = z.object({
  /** agentdevel's record format: records of another format are never reused. */
  format: z.number().int(),
  criticPolicy: z.string(),
  /** The cases run, when a selection (confirmation runs, `run --case`); null for the whole split. */
  cases: z.array(z.string()).nullable(),
  firstTrial: z.number().int().min(0),
  criticSeesBlueprint: z.boolean().default(false),
});
export type RunKeyParts = z.output<typeof runKeyPartsSchema>;

/** Everything a run's cache key hashes. */
export interface RunFingerprint {
  readonly taskTree: string;
  readonly split: string;
  readonly trials: number;
  readonly agentModel: string;
  readonly criticModel: string;
  readonly keyParts: RunKeyParts;
}

/** A run recorded earlier (in this store, or in git with a decision), as far as it says what it was run under. */
export interface RecordedFingerprint extends Omit<RunFingerprint, 'keyParts'> {
  readonly runId: string;
  readonly status: 'running' | 'complete' | 'failed';
  readonly origin: 'local' | 'git' | 'ref';
  /** Null for runs recorded before the parts were kept (runs@1 in git, older stores). */
  readonly keyParts: RunKeyParts | null;
  /** The commit it ran ("+dirty" for uncommitted working files). */
  readonly commit?: string;
}

/**
 * An ad-hoc run: of a few cases (`run --case`), or of uncommitted working files. It is never a
 * release's record, so it never explains why a record is taken again either.
 */
export function isAdHoc(run: Pick<RecordedFingerprint, 'keyParts' | 'commit'>): boolean {
  return (run.keyParts?.cases ?? null) !== null || (run.commit ?? '').endsWith('+dirty');
}

/**
 * Whether this record of a version was never taken before (by a gate or a clean run of the whole
 * split, under any settings): a release's records are taken once, at its first gate.
 */
export function firstTaking(candidates: readonly RecordedFingerprint[], now: RunFingerprint): boolean {
  return !candidates.some((c) => !isAdHoc(c) && (c.keyParts === null || c.keyParts.firstTrial === now.keyParts.firstTrial));
}

const quoted = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));
const changed = (what: string, then: unknown, now: unknown): string => `${what} ${quoted(then)} then, ${quoted(now)} now`;

/** Each part of the key that differs between a recorded run and this one, in words; empty when none the record keeps does. */
export function fingerprintDifferences(recorded: RecordedFingerprint, now: RunFingerprint, names: { readonly task: string }): string[] {
  const parts: string[] = [];
  if (recorded.taskTree !== now.taskTree) parts.push(`the task (rubrics/${names.task}: its rubric, cases, scorers or environment) changed`);
  if (recorded.trials !== now.trials) parts.push(changed('trials', recorded.trials, now.trials));
  if (recorded.agentModel !== now.agentModel) parts.push(changed('models.agent', recorded.agentModel, now.agentModel));
  if (recorded.criticModel !== now.criticModel) parts.push(changed('models.critic', recorded.criticModel, now.criticModel));
  const then = recorded.keyParts;
  if (then === null) return parts;
  if (then.criticPolicy !== now.keyParts.criticPolicy) parts.push(changed('the critic policy', then.criticPolicy, now.keyParts.criticPolicy));
  if (then.format !== now.keyParts.format) parts.push(`agentdevel's record format ${then.format} then, ${now.keyParts.format} now (records of another agentdevel are not reused)`);
  if (JSON.stringify(then.cases) !== JSON.stringify(now.keyParts.cases)) parts.push(`the cases run (${then.cases ? `${then.cases.length} selected` : 'the whole split'} then, ${now.keyParts.cases ? `${now.keyParts.cases.length} selected` : 'the whole split'} now)`);
  if (then.criticSeesBlueprint !== now.keyParts.criticSeesBlueprint) parts.push(changed('the critic-sees-blueprint ablation', then.criticSeesBlueprint, now.keyParts.criticSeesBlueprint));
  return parts;
}

/**
 * Why a version's run was not reused, in words: which part of the key differs from the run of
 * the same blueprint content recorded most recently (one with the same first trial preferred),
 * or that none is recorded. `candidates` are newest first.
 */
export function rerunReason(all: readonly RecordedFingerprint[], now: RunFingerprint, names: { readonly task: string }): string {
  const candidates = all.filter((c) => !isAdHoc(c));
  const recorded = candidates.find((c) => c.keyParts === null || c.keyParts.firstTrial === now.keyParts.firstTrial);
  const record = now.trials > 0 ? Math.floor(now.keyParts.firstTrial / now.trials) + 1 : 1;
  if (!recorded) {
    return candidates.length === 0
      ? 'no run of this blueprint version is recorded (in this store or in git)'
      : `record ${record} of this version was never taken before: a release's records are taken once, at its first gate`;
  }
  const where = `run ${recorded.runId}${recorded.origin === 'git' ? ', recorded in git' : ''}`;
  if (recorded.status === 'failed') return `the recorded run of this version (${where}) had infrastructure errors, and such a run is never reused`;
  const parts = fingerprintDifferences(recorded, now, names);
  if (parts.length > 0) return `the recorded run of this version (${where}) differs: ${parts.join('; ')}`;
  if (recorded.keyParts === null) return `the recorded run of this version (${where}) was recorded without its critic policy and record format, one of which differs`;
  return `record ${record} of this version (${where}) is recorded, yet not reusable here for a reason this version of agentdevel cannot name`;
}
