// A release candidate on its way through the gate (pipeline/gate/conclude.ts), as `iterate`,
// `gate --candidate`, `shadow` and `discover` hand it in.
import type { Ablation } from '../../domain/ablation.ts';
import type { ChangedPath } from '../../domain/changed-path.ts';
import type { CreditDocument } from '../../domain/credit.ts';
import type { GradientSummary } from '../../domain/gradient.ts';
import type { HumanChange } from '../../domain/human-change.ts';
import type { Role } from '../../domain/ports/model.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { DiagnosisEvidence } from '../../stages/release/artifacts.ts';
import type { BaselineScreen } from '../run/execute-run.ts';

/** A release candidate on its way through the gate, from `iterate` or from `gate --candidate`. */
export interface GateSubject {
  readonly iteration: number;
  /** Record the decision in git (promotion, or the rejection on its audit ref); false for a dry gate. */
  readonly record: boolean;
  /** A checkout of the candidate; the release artifacts are committed there when recording. */
  readonly candidate: { readonly ref: string; readonly commit: string; readonly dir: string };
  /**
   * The current release and its screen, its records pooled (null when the candidate is rejected
   * before running). `measuredOn`: the commit the release's side runs from when it is not the
   * release itself (a person's change to the task: the release's blueprint on the candidate's task).
   */
  readonly baseline: { readonly commit: string; readonly label: string; readonly screen: BaselineScreen | null; readonly measuredOn?: string | null };
  /**
   * The line's tip, which a promotion moves from: the baseline's commit, except for a change
   * merged into the line before its gate (`gate --baseline`), which is the tip itself.
   */
  readonly lineTip?: string;
  /** The tag the candidate becomes if it is promoted. */
  readonly nextRelease: string;
  readonly intent: ChangeIntent | null;
  readonly fingerprint: string | null;
  readonly diagnosis: DiagnosisEvidence | null;
  /** The model roles that wrote the candidate (default: the diagnostician and the synthesizer for a loop candidate, none for a hand-made one). */
  readonly authors?: readonly Role[];
  /** The iteration's credit per component (loop candidates only). */
  readonly credit?: CreditDocument | null;
  /** The iteration's gradient records, as the reports summarize them (loop candidates only). */
  readonly gradient?: GradientSummary | null;
  /** The experiment's switch this decision ran under (iterate --ablate, scratch lines only); null otherwise. */
  readonly ablation?: Ablation | null;
  readonly edits: readonly ChangedPath[];
  /** Edited paths outside the blueprint folder (an RC a model wrote), or links leading out of it: the candidate is rejected without running. */
  readonly outside: readonly string[];
  /** What a person's change touches beyond the blueprint, and how the gate treated it (null: the blueprint alone, or a model's RC). */
  readonly change?: HumanChange | null;
  /** The commit the candidate's edits are measured from (the release, or a hand-made branch's fork point): the report's diff. */
  readonly changeBase: string;
  /** Where a dry gate (record: false) writes its reports; null writes none. */
  readonly reportDir: string | null;
}
