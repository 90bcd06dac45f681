// What the pipeline is handed by app/compose.ts: the workspace and the ports a command opened,
// in parts. The context is the sum of the parts; a step that uses a few of them asks for those
// parts only (approval renders reports and never runs an agent), so what it can touch is read off
// its signature.
import type { Config } from '../config/schema.ts';
import type { Redactor } from '../domain/environment.ts';
import type { SpendGuard } from '../domain/budget.ts';
import type { CaseTrialExecutor, LocalExecutorFactory } from '../domain/ports/case-trial-executor.ts';
import type { BlueprintCheckRunner } from '../domain/ports/checks.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { ModelPort } from '../domain/ports/model.ts';
import type { ReportTemplates } from '../domain/ports/report-templates.ts';
import type { Reporter } from '../domain/ports/reporter.ts';
import type { ScriptSandbox } from '../domain/ports/sandbox.ts';
import type { ScorerScriptRunner } from '../domain/ports/scorer-scripts.ts';
import type { TextDiff } from '../domain/ports/text-diff.ts';
import type { Workspace } from './workspace/workspace.ts';

/** The workspace a step reads and records in (its config, repository, store and file readers). */
export interface WorkspacePart {
  readonly workspace: Workspace;
}

/** Where a step's progress goes, and what is hidden from everything it writes. */
export interface ReportingPart {
  readonly reporter: Reporter;
  readonly redact: Redactor;
}

/** The model roles, and the budget every request is held to. */
export interface ModelPart {
  readonly model: ModelPort;
  /**
   * The model port for other role models than the workspace config's (a person's change is gated
   * under the line's config, whose models may differ from the checkout's). Absent: `model` serves all.
   */
  readonly modelFor?: (models: Config['models']) => ModelPort;
  /** The command's spend budget (`--budget`): asked before every model request; absent, nothing is held back. */
  readonly budget?: SpendGuard;
}

/** What runs a version's case-trials and grades them (pipeline/run). */
export interface CaseTrialPart {
  readonly clock: Clock;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** Runs a task's scorer scripts (stages/score). */
  readonly scorerScripts: ScorerScriptRunner;
  /** Where case-trials run: on workers through a queue, or (absent) in this process. */
  readonly executor?: CaseTrialExecutor;
  /** Makes the in-process executor, with the model port this context asks (a gate under the line's config asks the line's models). */
  readonly localExecutor: LocalExecutorFactory;
  /**
   * The `critic-sees-blueprint` ablation: the critic is shown the blueprint of the version it
   * judges. Only `iterate --ablate` on a scratch line sets it; everywhere else the critic is blind.
   */
  readonly criticSeesBlueprint?: boolean;
  /** Settings given on the command line (`--trials`): they hold under whichever config the command runs. */
  readonly overrides?: Readonly<Partial<Pick<Config, 'trials' | 'concurrency'>>>;
}

/** What the reports are rendered with. */
export interface ReportPart {
  /** Compares two texts for the reports (where a baseline and a candidate output differ). */
  readonly textDiff: TextDiff;
  /** Renders agentdevel's report templates (report.md). */
  readonly templates: ReportTemplates;
}

/** Where code agentdevel did not write runs: contained, with the least it needs. */
export interface UntrustedCodePart {
  /** Runs a candidate's blueprint checks (gate layer "checks") as untrusted code. */
  readonly checks: BlueprintCheckRunner;
  /** Runs a generated diagnosis script apart, with the least it needs. */
  readonly sandbox: ScriptSandbox;
}

/** Everything a command hands the pipeline. */
export interface PipelineContext extends WorkspacePart, ReportingPart, ModelPart, CaseTrialPart, ReportPart, UntrustedCodePart {}
