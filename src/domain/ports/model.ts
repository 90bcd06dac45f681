import type { CriticRequirement, CriticVerdict, ScorerResult } from '../record.ts';
import type { CaseChanges } from '../case-changes.ts';
import type { DiagnosisReport } from '../diagnosis.ts';
import type { ReleaseCandidate } from '../release-candidate.ts';
import type { TraceEvent } from '../trace.ts';
import type { GradientClaim, GradientDocument } from '../gradient.ts';
import type { SymptomEntry } from '../symptoms.ts';
import type { MemberDraft, OrchestratorPrompt } from '../member-writer.ts';
import type { LabelMergeProposal } from '../label-aliases.ts';

export const roles = ['agent', 'critic', 'diagnostician', 'synthesizer', 'judge', 'writer'] as const;
export type Role = (typeof roles)[number];
/**
 * Who a model call is for: a configured role, or the requirements reviewer (a gate layer that
 * runs on the critic's model but is its own caller, so proxies and the ledger can tell them apart).
 */
export type CallRole = Role | 'reviewer';

/** Token usage of one model call; cost is computed by the engine from its price table. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costUsd: number;
  /** False: the model has no known price (a local model with none set), so costUsd is not its cost. */
  readonly priceKnown?: boolean;
}

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

export type AssistantBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown };

export type UserBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_result'; readonly toolUseId: string; readonly content: string; readonly isError: boolean };

export type ConversationMessage =
  | { readonly role: 'user'; readonly content: readonly UserBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantBlock[] };

export interface AgentTurnRequest {
  readonly model: string;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly messages: readonly ConversationMessage[];
  readonly maxTokens: number;
  readonly temperature?: number;
  /** Varies per trial so that repeated trials are independent draws (engines may ignore it). */
  readonly seed: string;
}

export interface AgentTurn {
  readonly content: readonly AssistantBlock[];
  readonly stopReason: string;
  readonly usage: Usage;
  readonly latencyMs: number;
}

/**
 * Everything the critic may see. There is no blueprint field, and none may be added: the
 * critic is implementation-blind (DESIGN.md non-negotiables; guarded by the canary test).
 */
export interface CriticRequest {
  readonly model: string;
  readonly rubric: string;
  readonly trace: readonly TraceEvent[];
  readonly scorer: ScorerResult | null;
  readonly taxonomy: readonly SymptomEntry[];
  /** The case's requirements no scorer decides: the critic gives each a verdict. */
  readonly requirements?: readonly CriticRequirement[];
}

// Declared beside the vocabulary it belongs to, so symptoms.ts needs nothing of this port.
export type { SymptomEntry } from '../symptoms.ts';

/** A repair turn shows the model what it answered and exactly what was wrong with it. */
export interface RepairRequest {
  /** The failed answer as the model gave it (the script, or the proposal as JSON). */
  readonly previousOutput: string;
  /** The exact error: the sandbox's, the schema's or the validation's words. */
  readonly error: string;
}

export interface DiagnosisScriptRequest {
  readonly model: string;
  readonly recordSchema: string;
  readonly sampleRecords: readonly unknown[];
  /** The sandbox's limits, which the script must stay within. */
  readonly limits: { readonly timeoutMs: number; readonly memoryMb: number };
  /** The symptom vocabulary: every label of the report must be one of these. */
  readonly taxonomy: readonly SymptomEntry[];
  readonly previousScript: string | null;
  /** The previous iteration's report, to check whether the last change took effect. */
  readonly previousReport: DiagnosisReport | null;
  /** The last RC: its intent and what the gate made of it (flips only over cases on both sides). */
  readonly lastRc: RcHistoryEntry | null;
  /** Train cases added, removed or edited since the last report (null without one). */
  readonly caseChanges: CaseChanges | null;
  /** The previous attempt of this iteration and why it failed, for a bounded repair. */
  readonly repair: RepairRequest | null;
  /** This iteration's gradient records (per component, bound to evidence), when they were built. */
  readonly gradient?: GradientDocument | null;
  /**
   * The failing cases of the diagnosed run, the ids a label merge's evidence may name (null when
   * there are too many to list in the schema; they are then checked after the answer).
   */
  readonly failingCases?: readonly string[] | null;
}

/** The diagnostician's answer: the script, and the merges of synonym labels it proposes (with evidence). */
export interface DiagnosisAnswer {
  readonly script: string;
  readonly labelMerges?: readonly LabelMergeProposal[];
}

export interface BlueprintFile {
  readonly path: string;
  readonly content: string;
}

/** A case an RC flipped, with the symptom it failed with (before a fix; under the RC for a break). */
export interface FlipSymptom {
  readonly caseId: string;
  readonly symptom: string | null;
}

export interface RcHistoryEntry {
  readonly iteration: number;
  readonly targets: readonly string[];
  readonly rationale: string;
  readonly decision: 'promoted' | 'rejected' | 'pending' | 'declined' | 'invalid';
  readonly reasons: readonly string[];
  readonly fingerprint: string;
  /** F→P: the cases it fixed, with the symptom each failed with in the baseline. */
  readonly fixed: readonly FlipSymptom[];
  /** P→F: the cases it broke, with the symptom each failed with under the RC. */
  readonly broken: readonly FlipSymptom[];
  /** The files its edits changed. */
  readonly edited: readonly string[];
  /** Its scope: the cases the diagnosis of its iteration listed under its targets. */
  readonly scope: readonly string[];
  /** A rejected RC whose regressions the gate attributed (attribution.onRejection): per broken case, the edits it depends on. */
  readonly brokenBy?: ReadonlyArray<{ readonly caseId: string; readonly edits: readonly string[]; readonly evidence: 'reverted' | 'alone' | 'unexplained' }>;
}

/** What the task tells a synthesizer: its rules and the environment its tool wrappers can call. */
export interface TaskBrief {
  readonly rubric: string;
  /** The environment's API (ctx.env) as method signatures, or null when the task has no environment. */
  readonly environmentApi: string | null;
}

/**
 * What the synthesizer is told about the blueprint's runtime: the keys its blueprint.json takes
 * (from the manifest's schema) and what is checked before a candidate runs (the loader's own
 * list). Never fixed text, so the request is true for the blueprint at hand.
 */
export interface BlueprintBrief {
  readonly runtime: 'tool-loop' | 'command' | 'crew';
  readonly keys: ReadonlyArray<{ readonly key: string; readonly required: boolean; readonly description: string }>;
  readonly checks: readonly string[];
}

/** One failing case-trial as the synthesizer is shown it. */
export interface FailingCaseTrial {
  readonly caseId: string;
  readonly trial: number;
  /** The case as the agent received it (without its expected value). */
  readonly input: unknown;
  readonly expected: unknown;
  readonly output: unknown;
  /** The scorer's failed check (expected against actual), the critic's label, the agent's own error. */
  readonly reason: string;
  /** The trace without model metadata, its first and last events, each value clipped. */
  readonly traceExcerpt: readonly TraceEvent[];
  readonly omittedEvents: number;
}

/** Failing case-trials for each dominant symptom, within a stated token budget. */
export interface SynthesisEvidence {
  readonly budgetTokens: number;
  readonly usedTokens: number;
  readonly symptoms: ReadonlyArray<{ readonly label: string; readonly cases: readonly FailingCaseTrial[]; readonly notShown: number }>;
}

export interface SynthesisRequest {
  readonly model: string;
  readonly blueprintName: string;
  readonly blueprintRoot: string;
  readonly blueprint: BlueprintBrief;
  readonly files: readonly BlueprintFile[];
  readonly diagnosis: DiagnosisReport;
  /** Failing case-trials per dominant symptom: what the diagnosis describes, as it happened. */
  readonly evidence: SynthesisEvidence;
  readonly history: readonly RcHistoryEntry[];
  /** The symptom vocabulary: the intent's targets must be among these labels. */
  readonly taxonomy: readonly SymptomEntry[];
  readonly task: TaskBrief;
  readonly repair: RepairRequest | null;
  /** This iteration's gradient records (per component, bound to evidence), when they were built. */
  readonly gradient?: GradientDocument | null;
}

/**
 * What a model may phrase gradient claims over: the records built from executed evidence. Its
 * claims are kept only where every pointer they cite resolves in the store.
 */
export interface GradientPhrasingRequest {
  readonly model: string;
  readonly gradient: GradientDocument;
}

/**
 * The requirements layer of the gate: an implementation-blind review of the candidate's traces
 * of the cases whose outcome moved, against the rubric's written requirements. Like the critic
 * it never sees the blueprint. It may only find violations (a veto), never approve.
 */
export interface RequirementsReviewRequest {
  readonly model: string;
  readonly rubric: string;
  readonly requirements: readonly CriticRequirement[];
  readonly cases: ReadonlyArray<{ readonly caseId: string; readonly trace: readonly TraceEvent[] }>;
}

/**
 * The helpfulness judge (BOAD's hindsight credit): one component of the agent, by name and
 * description only (never its prompt or code), and the trajectory it took part in. One verdict
 * per call site: did this call's contribution help the outcome?
 */
export interface HelpfulnessRequest {
  readonly model: string;
  readonly component: { readonly name: string; readonly kind: 'member' | 'tool'; readonly description: string };
  readonly trace: readonly TraceEvent[];
  /** The component's calls in the trace (tool_call ids), one verdict each. */
  readonly callIds: readonly string[];
}

export interface HelpfulnessVerdict {
  readonly callId: string;
  readonly helpful: boolean;
  readonly reason: string;
}

/** An archive member as the member writer reads it: its definition, its prompt and its arm's figures. */
export interface ArchivedMemberView {
  readonly name: string;
  readonly description: string;
  readonly tools: readonly string[];
  readonly sees: readonly string[];
  readonly origin: 'release' | 'writer';
  readonly prompt: string;
  /** Rounds it was on the team, trajectories it was called in, of those judged helpful and passing; helpfulness = helpful / used. */
  readonly arm: { readonly pulls: number; readonly used: number; readonly helpful: number; readonly passed: number; readonly helpfulness: number | null };
}

/**
 * The member writer (`discover`'s model role, BOAD's meta agent): writes a new crew member for
 * the archive, or (warm-up) revises its draft after seeing it at work. It writes blueprint code,
 * so like the synthesizer it sees the blueprint; it never grades anything.
 */
export interface MemberWriteRequest {
  readonly model: string;
  readonly blueprintName: string;
  readonly blueprintRoot: string;
  /** The release's blueprint, every file. */
  readonly files: readonly BlueprintFile[];
  /** The tool wrappers a member may be given: file (relative to the blueprint folder), name and description. */
  readonly tools: ReadonlyArray<{ readonly file: string; readonly name: string; readonly description: string }>;
  readonly archive: readonly ArchivedMemberView[];
  readonly task: TaskBrief;
  /** The symptoms the design split's failing case-trials showed so far (most frequent first). */
  readonly symptoms: ReadonlyArray<{ readonly label: string; readonly caseTrials: number }>;
  /** Warm-up: the draft as it is and the trajectories of its trial runs; null for a new member. */
  readonly warmup: {
    readonly draft: MemberDraft;
    readonly attempt: number;
    readonly trajectories: ReadonlyArray<{ readonly caseId: string; readonly pass: boolean; readonly trace: readonly TraceEvent[] }>;
  } | null;
}

/** An orchestrator prompt customised to a chosen team (BOAD: an orchestrator that knows its team plans its calls). */
export interface OrchestratorPromptRequest {
  readonly model: string;
  readonly blueprintName: string;
  readonly blueprintRoot: string;
  /** The release's orchestrator prompt: its policy stays; only the team changes. */
  readonly current: BlueprintFile;
  readonly team: ReadonlyArray<Omit<ArchivedMemberView, 'prompt' | 'origin'>>;
  readonly task: TaskBrief;
  /** Where the proposal stands: what failed on the design split and in the release's train run, and how many fixes the gate requires (0: none). */
  readonly standing?: {
    readonly designCases: number;
    readonly designFailures: readonly string[];
    readonly releaseFailures: readonly string[];
    readonly fixesRequired: number;
  };
}

export interface RequirementViolation {
  readonly requirement: string;
  readonly caseId: string;
  readonly reason: string;
}

export interface WithUsage<T> {
  readonly value: T;
  readonly usage: Usage;
  /** What was wrong with each answer refused before this one (the engine's in-place repair turns). */
  readonly repairs?: readonly string[];
}

/**
 * The one port for model calls. Each role has its own typed request, so what a role may see
 * is checked by the compiler rather than by convention.
 */
export interface ModelPort {
  agentTurn(request: AgentTurnRequest): Promise<AgentTurn>;
  criticize(request: CriticRequest): Promise<WithUsage<CriticVerdict>>;
  writeDiagnosisScript(request: DiagnosisScriptRequest): Promise<WithUsage<DiagnosisAnswer>>;
  synthesize(request: SynthesisRequest): Promise<WithUsage<ReleaseCandidate>>;
  reviewRequirements(request: RequirementsReviewRequest): Promise<WithUsage<{ violations: RequirementViolation[] }>>;
  judgeHelpfulness(request: HelpfulnessRequest): Promise<WithUsage<{ verdicts: HelpfulnessVerdict[] }>>;
  writeMember(request: MemberWriteRequest): Promise<WithUsage<MemberDraft>>;
  writeOrchestratorPrompt(request: OrchestratorPromptRequest): Promise<WithUsage<OrchestratorPrompt>>;
  /** Optional: phrases gradient claims over the evidence-built records (an engine without it leaves them as built). */
  phraseGradient?(request: GradientPhrasingRequest): Promise<WithUsage<{ claims: GradientClaim[] }>>;
}

export const zeroUsage: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
};

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
    ...(a.priceKnown === false || b.priceKnown === false ? { priceKnown: false } : {}),
  };
}

/** A model call that failed for infrastructure reasons (after retries). Never a fail of the agent. */
export class InfraError extends Error {
  readonly role: CallRole;
  constructor(role: CallRole, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfraError';
    this.role = role;
  }
}
/** A model output that did not match its schema, even after one repair: never a fail of the agent. */
export class StructuredOutputError extends InfraError {
  /** The last answer, as JSON text, so a later repair turn can show the model what it sent. */
  readonly output: string;
  /** The rule the answer broke, in the schema's or the validation's words. */
  readonly problem: string;
  constructor(role: CallRole, message: string, output = '(no answer)', problem = message) {
    super(role, message);
    this.name = 'StructuredOutputError';
    this.output = output;
    this.problem = problem;
  }
}

/** The one-line hint of MODEL_OUTPUT_INVALID: the rule an answer broke and that answer, clipped. */
export function invalidOutputHint(error: StructuredOutputError): string {
  const answer = error.output.replace(/\s+/g, ' ');
  return `The ${error.role}'s answer broke this rule: ${error.problem}. One invalid answer: ${answer.length > 300 ? `${answer.slice(0, 300)}…` : answer}. The API was reachable; the answers did not follow the schema, even after a repair turn. Try a stronger model for the ${error.role}, or check that a proxy passes the tool schema through unchanged.`;
}

/**
 * The model API refused the agent's request as invalid (400, 413, 422): the blueprint's prompt
 * or tool schemas are at fault, so this is the agent's failure on that case, not an outage.
 */
export class AgentRequestRejected extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentRequestRejected';
  }
}

export type { DiagnosisReport };
