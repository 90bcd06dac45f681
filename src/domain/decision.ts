// The gate decision as it lives in git: `releases/<bp>/<vN|rejected/iter-NNN>/decision.json`.
// One schema per version. The writer is typed by the newest; readers parse every version and
// normalize it to a DecisionSummary, so a workspace written by an older agentdevel still reads.
import { AgentdevelError } from './errors.ts';
import { parseJsonDocument } from './json-document.ts';
import { roles } from './ports/model.ts';
import { changeIntentSchema } from './release-candidate.ts';
import { ablations } from './ablation.ts';
import { humanChangeSchema } from './human-change.ts';
import { z } from './zod.ts';

export const DECISION_SCHEMA = 'agentdevel/decision@3';
/** Versions whose documents parse with the current schema: @2 lacks what @3 added, which defaults. */
const DECISION_SCHEMAS = ['agentdevel/decision@2', DECISION_SCHEMA] as const;

const caseIds = z.array(z.string());
const trialCountsSchema = z.object({ passes: z.number().int().min(0), graded: z.number().int().min(0) });
const sidesSchema = z.object({ baseline: trialCountsSchema, candidate: trialCountsSchema });

export const gateCheckSchema = z.object({
  name: z.enum([
    'scope',
    'graded',
    'confirmation',
    'infra_balance',
    'regressions',
    'regression_rate',
    'paired_test',
    'fixes',
    'hit_rate',
    'efficiency',
    'must_pass',
    'blueprint_check',
    'trace_cost',
    'requirements',
    'violation_rate',
    'approval',
  ]),
  ok: z.boolean(),
  message: z.string(),
  /** The cases a failed check is about (a must-pass case that failed), so every output can name them. */
  cases: z.array(z.string()).optional(),
});
export type GateCheck = z.infer<typeof gateCheckSchema>;

/** One per-case test: which way the screening moved, the counts it rests on, and its verdict. */
export const caseTestSchema = z.object({
  caseId: z.string(),
  direction: z.enum(['regression', 'fix']),
  screening: sidesSchema,
  /** Fresh trials run only to decide this case (two-stage gate); null when the screening data decide (single stage). */
  confirmation: sidesSchema.nullable(),
  /** One-sided exact p-value of the full-size test (Boschloo on fresh trials, Fisher on screening data); a bound when the case stopped early. */
  pValue: z.number().min(0).max(1).nullable(),
  pBound: z.enum(['exact', 'at_most', 'at_least']).nullable(),
  /** Holm-adjusted (weighted Holm from @3) within the case's family: significant when at most the family's level. */
  adjustedPValue: z.number().min(0).max(1).nullable(),
  /**
   * stopped_early: the full-size test could no longer reach its level; futile: its predicted chance
   * of reaching it fell below gate.futility; unreachable: no K within the cap could reach it (@2).
   */
  outcome: z.enum(['confirmed', 'not_confirmed', 'stopped_early', 'futile', 'incomplete', 'unreachable']),
  /** Its weight in the family (a unanimous screen weighs more), its level and K (absent before @3). */
  weight: z.number().nullable().default(null),
  bar: z.number().nullable().default(null),
  trialsPerSide: z.number().int().nullable().default(null),
});
export type CaseTest = z.infer<typeof caseTestSchema>;

export const procedureSchema = z.object({
  kind: z.enum(['flips', 'single_stage', 'two_stage', 'not_run']),
  alpha: z.number().nullable(),
  /** Level of the paired sign test over all cases' screening outcomes. */
  aggregateLevel: z.number().nullable(),
  /** Family-wise level of the per-case regression tests. */
  familyLevel: z.number().nullable(),
  /** Family-wise level of the per-case fix tests (absent before @3, when it was familyLevel). */
  fixLevel: z.number().nullable().default(null),
  /** How many records of the baseline's screen selected the moved cases (absent before @3: one). */
  baselineRecords: z.number().int().nullable().default(null),
  /** The most fresh trials per side of any case's design, per family; null when the family was empty. */
  trialsPerSide: z.object({ regression: z.number().int().nullable(), fix: z.number().int().nullable() }),
  /** The procedure in plain words, and the error rate it guarantees. */
  text: z.string(),
  guarantee: z.string().nullable(),
});
export type Procedure = z.infer<typeof procedureSchema>;

/** One layer of the gate and what it said. Deterministic checks veto; the statistical gate decides; a critic may only veto; a person approves. */
export const layerVerdictSchema = z.object({
  layer: z.enum(['checks', 'flips', 'requirements', 'approval']),
  verdict: z.enum(['pass', 'veto', 'accept', 'reject', 'undecided', 'not_run', 'pending']),
  checks: z.array(gateCheckSchema),
  /** Requirement violations the requirements layer found, each naming the requirement and the case. */
  violations: z.array(z.object({ requirement: z.string(), caseId: z.string(), reason: z.string() })).default([]),
});
export type LayerVerdict = z.infer<typeof layerVerdictSchema>;

const requirementFlipSchema = z.object({ caseId: z.string(), requirement: z.string() });

const costSummarySchema = z.object({
  /** The weights of R_cost = steps·w + repeats·w + noops·w. */
  weights: z.object({ steps: z.number(), repeats: z.number(), noops: z.number() }),
  /** Mean R_cost per case-trial of each side's screening run. */
  baseline: z.number(),
  candidate: z.number(),
});

/** An RC that fixes and breaks nothing may still be promoted for costing less: the paired test behind that. */
const efficiencySchema = z.object({
  /** Which per-case score was compared: the composite (report.composite) or the trace cost. */
  measure: z.enum(['composite', 'cost']),
  better: z.number().int(),
  worse: z.number().int(),
  /** One-sided exact sign test over cases whose score differs: is the candidate better? */
  pValue: z.number(),
  promoted: z.boolean(),
});

/** One class of cases in a family (same weight, so the same level and K) and what its design can see. */
const powerClassSchema = z.object({
  /** What put a case in this class, in words ("every baseline trial passed"). */
  screen: z.string(),
  weight: z.number(),
  cases: z.number().int(),
  bar: z.number(),
  trialsPerSide: z.number().int(),
  /** The smallest drop (regressions) or rise (fixes) confirmed with the stated power, from each baseline pass chance; null: none is. */
  detectable: z.array(z.object({ from: z.number(), change: z.number().nullable() })),
});

/** What the decision could have seen: its minimum detectable effects, computed exactly for its design. */
export const powerSchema = z.object({
  /** The power the detectable effects are stated at. */
  statedPower: z.number(),
  families: z.array(z.object({ direction: z.enum(['regression', 'fix']), level: z.number(), classes: z.array(powerClassSchema) })),
  /** The paired test (over the moved cases' first fresh pairs, or, in one stage, over every graded case's runs): the smallest common drop it detects. */
  aggregate: z.object({ pairs: z.number().int(), level: z.number(), rate: z.number(), detectableDrop: z.number().nullable() }).nullable(),
  /** Set when the decision saw a drop it could not have confirmed with the stated power. */
  underpowered: z
    .object({
      caseId: z.string(),
      fresh: sidesSchema,
      /** Its one-sided p-value before any correction. */
      pValue: z.number(),
      /** This design's chance of confirming a drop that size. */
      power: z.number(),
      /** Fresh trials a side that would confirm it with the stated power; null beyond what was searched. */
      trialsNeeded: z.number().int().nullable(),
    })
    .nullable(),
  /** Likely regressions where nothing can be re-run (single stage): ranked by p, none of them confirmed. */
  likely: z
    .object({
      regressions: z.array(z.object({ caseId: z.string(), pValue: z.number(), fdrAdjusted: z.number() })),
      /** The false discovery rate the FDR names are taken at, and the names: a label, never a gate. */
      fdr: z.number(),
      namedAtFdr: z.array(z.string()),
      /** Whether any single case could reach its corrected level at these trial counts. */
      confirmable: z.boolean(),
      /** The smallest p-value one case can reach at these trial counts, and the level it would need. */
      smallestPValue: z.number(),
      bar: z.number(),
      /** Trials a side at which one case could reach that level at all (a perfect split). */
      trialsNeeded: z.number().int().nullable(),
      /** Trials a side that would confirm a drop of gate.detectableDrop from 100% with the stated power (absent before decision@3's later writers). */
      trialsForPower: z.number().int().nullable().optional(),
    })
    .nullable(),
  /** All of it in words, as the reports print it. */
  text: z.array(z.string()),
});
export type PowerStatement = z.infer<typeof powerSchema>;

export const gateDecisionSchema = z.object({
  policy: z.enum(['flips', 'stochastic']),
  verdict: z.enum(['accept', 'reject', 'undecided']),
  checks: z.array(gateCheckSchema),
  reasons: z.array(z.string()),
  warnings: z.array(z.string()),
  /** Regressions the gate names: every P→F flip (flips policy) or the confirmed ones. */
  p2f: caseIds,
  /** Fixes the gate counts: every F→P flip (flips policy) or the confirmed ones. */
  f2p: caseIds,
  /** Cases whose outcome moved in screening but not beyond noise. */
  flaky: caseIds,
  /** The raw screening flips, before any confirmation. */
  screening: z.object({ p2f: caseIds, f2p: caseIds }),
  /**
   * Exact one-sided sign test: is the candidate worse overall? Over the moved cases' first fresh
   * pairs (fresh), or over the screening runs' moved cases (screening: single stage, and @2).
   */
  aggregate: z.object({
    worse: z.number().int(),
    better: z.number().int(),
    pValue: z.number(),
    level: z.number().nullable(),
    source: z.enum(['fresh', 'screening']).default('screening'),
  }),
  tests: z.array(caseTestSchema),
  procedure: procedureSchema,
  rates: z.object({ p2fRate: z.number(), f2pRate: z.number(), hitRate: z.number().nullable() }),
  /** pass^1 of each side: the mean over cases of the share of graded trials that passed. */
  passRates: z.object({ baseline: z.number(), candidate: z.number() }),
  /** What this decision could have seen (absent before @3). */
  power: powerSchema.nullable().default(null),
  /** Every layer in order; the verdict above is theirs together. */
  layers: z.array(layerVerdictSchema),
  cost: costSummarySchema.nullable(),
  /** The weighted composite of each side (report.composite); it breaks ties, it never gates. */
  composite: z.object({ weights: z.record(z.string(), z.number()), baseline: z.number(), candidate: z.number() }).nullable(),
  efficiency: efficiencySchema.nullable(),
  /** Requirement-level evidence, when the task has requirements. */
  requirements: z
    .object({
      fixed: z.array(requirementFlipSchema),
      broken: z.array(requirementFlipSchema),
      stillFailing: z.array(requirementFlipSchema),
      /** Share of case-trials the scorers pass but a requirement only the critic judges fails. */
      violationRate: z.object({ baseline: z.number(), candidate: z.number(), cases: z.array(z.string()) }),
    })
    .nullable(),
});
export type GateDecision = z.infer<typeof gateDecisionSchema>;
/** What the statistical layer ("flips") decides on its own, before the other layers are added. */
export type FlipsDecision = Omit<GateDecision, 'layers' | 'cost' | 'composite' | 'efficiency' | 'requirements'>;
export type GateVerdict = GateDecision['verdict'];
export type GatePolicyKind = GateDecision['policy'];

/** A dry gate's documents (never in git) say "accepted" where a recorded one says "promoted". */
const documentOutcomeSchema = z.enum(['promoted', 'rejected', 'pending', 'declined', 'accepted']);
/**
 * What the gate made of a release candidate: promoted, pending (held for a person's approval) or
 * rejected when the decision is recorded in git; accepted or rejected by a dry gate, which records
 * nothing. A person's verdict on a pending release adds "declined" (the document's outcomes).
 */
export type ReleaseOutcome = Exclude<z.infer<typeof documentOutcomeSchema>, 'declined'>;
/** The outcomes a decision recorded in git has when the gate writes it. */
export type RecordedOutcome = Exclude<ReleaseOutcome, 'accepted'>;
const candidateSchema = z.object({ ref: z.string(), commit: z.string() });
/**
 * The candidate as the gate saw it: its commit, that commit's tree and its first parent, recorded
 * at decision time so `approve` can check it promotes exactly that (absent in documents written
 * before they were recorded: the commit alone then names the tree and parent).
 */
const gatedCandidateSchema = candidateSchema.extend({
  tree: z.string().nullable().default(null),
  parent: z.string().nullable().default(null),
});

export const decisionDocumentSchema = z.object({
  schema: z.enum(DECISION_SCHEMAS),
  iteration: z.number().int(),
  blueprint: z.string(),
  outcome: documentOutcomeSchema,
  release: z.string().nullable(),
  candidate: gatedCandidateSchema,
  /** The baseline's first record (its screening run) and every record the gate selected with (absent before @3). */
  baseline: z.object({ commit: z.string(), label: z.string(), runId: z.string(), recordRunIds: z.array(z.string()).default([]) }),
  candidateRun: z.object({ runId: z.string(), confirmationRunIds: z.array(z.string()) }),
  gate: gateDecisionSchema,
  intent: changeIntentSchema.nullable(),
  fingerprint: z.string().nullable(),
  /** True only when the mock engine played the agent. */
  simulated: z.boolean(),
  /** The roles that ran on the mock engine (absent in documents written before it was recorded). */
  mockRoles: z.array(z.enum(roles)).optional(),
  models: z.record(z.string(), z.string()),
  costUsd: z.number().nullable(),
  diagnosis: z.object({ source: z.enum(['generated', 'builtin']), folder: z.string() }).nullable(),
  /** Who approved or declined a pending release, and when (the approval layer). */
  approval: z.object({ verdict: z.enum(['approved', 'declined']), by: z.string(), at: z.string(), reason: z.string().nullable() }).nullable(),
  /** The experiment's switch the decision ran under (`iterate --ablate`, scratch lines only); null or absent otherwise. */
  ablation: z.enum(ablations).nullable().default(null),
  /** What a person's change touched beyond the blueprint and how the gate treated it; null for a blueprint-only change or a model's RC (absent before it was recorded). */
  change: humanChangeSchema.nullable().default(null),
});
export type DecisionDocument = z.infer<typeof decisionDocumentSchema>;

/** Version 1 (agentdevel 0.1): flat, with the flips at the top. Only what readers need is checked. */
const decisionDocumentV1Schema = z
  .object({
    schema: z.literal('agentdevel/decision@1').optional(),
    iteration: z.number().int(),
    outcome: z.enum(['promoted', 'rejected']),
    release: z.string().nullable(),
    candidate: candidateSchema,
    f2p: caseIds,
    p2f: caseIds,
    reasons: z.array(z.string()),
    intent: changeIntentSchema.nullable(),
    fingerprint: z.string().nullable().optional(),
    simulated: z.boolean(),
    costUsd: z.number().nullable(),
  })
  .passthrough();

/** What every reader of the history needs, whichever version wrote the document. */
export interface DecisionSummary {
  readonly version: 1 | 2 | 3;
  readonly iteration: number;
  readonly outcome: 'promoted' | 'rejected' | 'pending' | 'declined';
  readonly release: string | null;
  readonly candidate: { readonly ref: string; readonly commit: string };
  readonly f2p: string[];
  readonly p2f: string[];
  readonly reasons: string[];
  readonly intent: { readonly targets: string[]; readonly rationale: string } | null;
  readonly fingerprint: string | null;
  readonly simulated: boolean;
  readonly costUsd: number | null;
  /** The full document, for version 2 and later (a version 2 document with the later fields defaulted). */
  readonly document: DecisionDocument | null;
}

/** Parses a decision.json of any version; `file` names it in errors (a ref and path). */
export function parseDecisionDocument(text: string, file: string): DecisionSummary {
  const probe = z.object({ schema: z.string().optional() }).passthrough();
  const { schema } = parseJsonDocument(text, file, probe, 'HISTORY_INVALID');
  if ((DECISION_SCHEMAS as readonly (string | undefined)[]).includes(schema)) {
    const document = parseJsonDocument(text, file, decisionDocumentSchema, 'HISTORY_INVALID');
    if (document.outcome === 'accepted') {
      throw new AgentdevelError('HISTORY_INVALID', `${file}: outcome "accepted" is a dry gate's, which is never recorded in git`);
    }
    return {
      version: document.schema === DECISION_SCHEMA ? 3 : 2,
      iteration: document.iteration,
      outcome: document.outcome,
      release: document.release,
      candidate: document.candidate,
      f2p: document.gate.f2p,
      p2f: document.gate.p2f,
      reasons: document.gate.reasons,
      intent: document.intent,
      fingerprint: document.fingerprint,
      simulated: document.simulated,
      costUsd: document.costUsd,
      document,
    };
  }
  if (schema !== undefined && schema !== 'agentdevel/decision@1') {
    throw new AgentdevelError('HISTORY_INVALID', `${file}: schema "${schema}" is newer than this agentdevel reads`, {
      hint: 'Upgrade agentdevel to read the history this workspace holds.',
    });
  }
  const v1 = parseJsonDocument(text, file, decisionDocumentV1Schema, 'HISTORY_INVALID');
  return {
    version: 1,
    iteration: v1.iteration,
    outcome: v1.outcome,
    release: v1.release,
    candidate: v1.candidate,
    f2p: v1.f2p,
    p2f: v1.p2f,
    reasons: v1.reasons,
    intent: v1.intent,
    fingerprint: v1.fingerprint ?? null,
    simulated: v1.simulated,
    costUsd: v1.costUsd,
    document: null,
  };
}
