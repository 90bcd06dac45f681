import type { CriticRequirement, CriticVerdict, ScorerResult } from './record.ts';
import type { DiagnosisReport } from './diagnosis.ts';
import type { ReleaseCandidate } from './release-candidate.ts';
import type { TraceEvent } from './trace.ts';
import type { SymptomEntry } from './symptoms.ts';

export const roles = ['agent', 'critic', 'diagnostician', 'synthesizer'] as const;
export type Role = (typeof roles)[number];

/** Token usage of one model call; cost is computed by the engine from its price table. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costUsd: number;
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
export type { SymptomEntry } from './symptoms.ts';

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
  /** The last RC: its intent and what the gate made of it. */
  readonly lastRc: RcHistoryEntry | null;
  /** The previous attempt of this iteration and why it failed, for a bounded repair. */
  readonly repair: RepairRequest | null;
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
}

/** What the task tells a synthesizer: its rules and the environment its tool wrappers can call. */
export interface TaskBrief {
  readonly rubric: string;
  /** The environment's API (ctx.env) as method signatures, or null when the task has no environment. */
  readonly environmentApi: string | null;
}

export interface SynthesisRequest {
  readonly model: string;
  readonly blueprintName: string;
  readonly blueprintRoot: string;
  readonly files: readonly BlueprintFile[];
  readonly diagnosis: DiagnosisReport;
  readonly history: readonly RcHistoryEntry[];
  /** The symptom vocabulary: the intent's targets must be among these labels. */
  readonly taxonomy: readonly SymptomEntry[];
  readonly task: TaskBrief;
  readonly repair: RepairRequest | null;
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

export interface RequirementViolation {
  readonly requirement: string;
  readonly caseId: string;
  readonly reason: string;
}

export interface WithUsage<T> {
  readonly value: T;
  readonly usage: Usage;
}

/**
 * The one port for model calls. Each role has its own typed request, so what a role may see
 * is checked by the compiler rather than by convention.
 */
export interface ModelPort {
  agentTurn(request: AgentTurnRequest): Promise<AgentTurn>;
  criticize(request: CriticRequest): Promise<WithUsage<CriticVerdict>>;
  writeDiagnosisScript(request: DiagnosisScriptRequest): Promise<WithUsage<{ script: string }>>;
  synthesize(request: SynthesisRequest): Promise<WithUsage<ReleaseCandidate>>;
  reviewRequirements(request: RequirementsReviewRequest): Promise<WithUsage<{ violations: RequirementViolation[] }>>;
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
  };
}

/** A model call that failed for infrastructure reasons (after retries). Never a fail of the agent. */
export class InfraError extends Error {
  readonly role: Role;
  constructor(role: Role, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfraError';
    this.role = role;
  }
}
/** A model output that did not match its schema, even after one repair: never a fail of the agent. */
export class StructuredOutputError extends InfraError {
  /** The last answer, as JSON text, so a later repair turn can show the model what it sent. */
  readonly output: string;
  constructor(role: Role, message: string, output = '(no answer)') {
    super(role, message);
    this.name = 'StructuredOutputError';
    this.output = output;
  }
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
