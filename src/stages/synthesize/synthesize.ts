import {
  StructuredOutputError,
  addUsage,
  zeroUsage,
  type BlueprintBrief,
  type BlueprintFile,
  type ModelPort,
  type RcHistoryEntry,
  type RepairRequest,
  type SymptomEntry,
  type SynthesisEvidence,
  type TaskBrief,
  type Usage,
} from '../../domain/ports/model.ts';
import type { GradientDocument } from '../../domain/gradient.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { ReleaseCandidate } from '../../domain/release-candidate.ts';
import { LABEL_PATTERN } from '../../domain/symptoms.ts';
import type { Reporter } from '../../domain/ports/reporter.ts';
import { blueprintPrefix, editProblems, editsFingerprint } from './edits.ts';
import { repeatProblem } from './repeat.ts';
import { typedChanges, typedEditProblems } from './typed-edits.ts';

export interface SynthesizeInput {
  readonly blueprint: string;
  readonly files: readonly BlueprintFile[];
  /** The blueprint's runtime: its keys and what is checked before a candidate runs. */
  readonly brief: BlueprintBrief;
  readonly diagnosis: DiagnosisReport;
  /** Failing case-trials per dominant symptom, within the configured budget. */
  readonly evidence: SynthesisEvidence;
  readonly history: readonly RcHistoryEntry[];
  /** The symptom vocabulary of the diagnosis: the intent's targets must be among these labels. */
  readonly taxonomy: readonly SymptomEntry[];
  readonly task: TaskBrief;
  readonly model: string;
  readonly maxRepairs: number;
  /** This iteration's gradient records, handed to the synthesizer. */
  readonly gradient?: GradientDocument | null;
}

/** An RC as the caller built it (a commit in a worktree), and what is wrong with it (null: it loads). */
export interface Validated<Built> {
  readonly built: Built;
  readonly problem: string | null;
}

export interface SynthesizeDeps<Built> {
  readonly model: ModelPort;
  readonly reporter: Reporter;
  /** Builds the RC and proves its blueprint loads. */
  validate(candidate: ReleaseCandidate): Promise<Validated<Built>>;
}

export type SynthesisOutcome<Built> =
  | { readonly kind: 'candidate'; readonly candidate: ReleaseCandidate; readonly fingerprint: string; readonly attempts: string[]; readonly usage: Usage; readonly built: Built }
  /** `built`: the last RC built and refused (the caller discards it), or null when none was built. */
  | { readonly kind: 'no_candidate'; readonly reason: string; readonly attempts: string[]; readonly usage: Usage; readonly built: Built | null };

/**
 * Asks the synthesizer for exactly one RC. Edits outside the blueprint folder, targets outside
 * the symptom vocabulary, a repeat of an RC whose failure nothing changed, or a blueprint that
 * does not load go back to the model, with its proposal and the exact problems, for a bounded
 * repair; after that the iteration has no valid RC.
 */
export async function synthesize<Built>(input: SynthesizeInput, deps: SynthesizeDeps<Built>): Promise<SynthesisOutcome<Built>> {
  const attempts: string[] = [];
  let built: Built | null = null;
  let usage = zeroUsage;
  const labels = new Set(input.taxonomy.map((s) => s.label));
  let repair: RepairRequest | null = null;
  for (let attempt = 0; attempt <= input.maxRepairs; attempt += 1) {
    let candidate: ReleaseCandidate;
    try {
      const answer = await deps.model.synthesize({
        model: input.model,
        blueprintName: input.blueprint,
        blueprintRoot: blueprintPrefix(input.blueprint).slice(0, -1),
        blueprint: input.brief,
        files: input.files,
        diagnosis: input.diagnosis,
        evidence: input.evidence,
        history: input.history,
        taxonomy: input.taxonomy,
        task: input.task,
        repair,
        gradient: input.gradient ?? null,
      });
      usage = addUsage(usage, answer.usage);
      candidate = answer.value;
      // An answer repaired in place by the engine is warned about and recorded, like a diagnosis repair.
      for (const problem of answer.repairs ?? []) {
        attempts.push(`the synthesizer's answer was refused and repaired: ${problem}`);
        deps.reporter.emit({ type: 'warning', message: `RC attempt ${attempt + 1}: the synthesizer's answer was refused and repaired: ${problem}` });
      }
    } catch (error) {
      // An output that stays invalid is the synthesizer's failure; an outage is not (it propagates).
      if (!(error instanceof StructuredOutputError)) throw error;
      attempts.push(`the synthesizer's output was invalid: ${error.message}`);
      // Warned about like a refused proposal (and recorded with the iteration through `attempts`).
      deps.reporter.emit({ type: 'warning', message: `RC attempt ${attempt + 1} refused: the synthesizer's output was invalid: ${error.problem}` });
      repair = { previousOutput: error.output, error: error.message };
      continue;
    }
    if (candidate.edits.length === 0) {
      attempts.push('no edits proposed');
      return { kind: 'no_candidate', reason: `no valid RC: the synthesizer proposed no edits (${candidate.intent.rationale})`, attempts, usage, built };
    }
    const fingerprint = editsFingerprint(candidate.edits);
    const problems = editProblems(candidate.edits, input.blueprint);
    if (problems.length === 0) problems.push(...typedEditProblems(input.files, candidate.edits, blueprintPrefix(input.blueprint).slice(0, -1)));
    // The prompt states the same rule: a label of the taxonomy, or (while it is empty) any label-shaped name.
    for (const target of candidate.intent.targets) {
      if (labels.size > 0 && !labels.has(target)) problems.push(`intent.targets: "${target}" is not a symptom label of the taxonomy (one of: ${[...labels].join(', ')})`);
      if (labels.size === 0 && !LABEL_PATTERN.test(target)) problems.push(`intent.targets: "${target}" is not a symptom label (snake_case, 2 to 64 characters); the taxonomy is empty, so any such label is taken`);
    }
    const repeat = repeatProblem(fingerprint, candidate.intent, input.diagnosis, input.history);
    if (repeat) problems.push(repeat);
    const validated = problems.length === 0 ? await deps.validate(candidate) : null;
    if (validated) built = validated.built;
    if (validated?.problem) problems.push(validated.problem);
    if (validated && problems.length === 0) {
      const typed = typedChanges(candidate.edits);
      const intent = typed.length > 0 ? { ...candidate.intent, edits: typed } : candidate.intent;
      return { kind: 'candidate', candidate: { ...candidate, intent }, fingerprint, attempts, usage, built: validated.built };
    }
    attempts.push(problems.join('; '));
    deps.reporter.emit({ type: 'warning', message: `RC attempt ${attempt + 1} refused: ${problems.join('; ')}` });
    repair = { previousOutput: JSON.stringify(candidate, null, 2), error: problems.join('\n') };
  }
  return { kind: 'no_candidate', reason: `no valid RC after ${input.maxRepairs + 1} attempts: ${attempts.at(-1)}`, attempts, usage, built };
}
