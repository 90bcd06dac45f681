// Sub-agent discovery as a bandit (BOAD): the documents `agentdevel discover` keeps in git, on
// refs/agentdevel/discover/<blueprint>. Each round is one commit on that ref, whose tree holds
//   bandit.json                   the state after the round (agentdevel/bandit@1)
//   rounds/round-NNN.json         every round so far, as it happened (agentdevel/discover-round@1)
//   archive/<member>/member.json  each archive member's definition (agentdevel/archive-member@1)
//   archive/<member>/prompt.hbs   its prompt template
// The state can be rebuilt from the round documents and the archive alone (`discover --show`).
import { CONTEXT_VIEW } from './blueprint-manifest.ts';
import { memberName } from './blueprint-manifest.ts';
import { parseJsonDocument } from './json-document.ts';
import { z } from './zod.ts';

export const BANDIT_SCHEMA = 'agentdevel/bandit@1';
export const ROUND_SCHEMA = 'agentdevel/discover-round@1';
export const ARCHIVE_MEMBER_SCHEMA = 'agentdevel/archive-member@1';

export const BANDIT_FILE = 'bandit.json';
export const roundFile = (round: number): string => `rounds/round-${String(round).padStart(3, '0')}.json`;
export const memberFiles = (name: string) => ({ definition: `archive/${name}/member.json`, prompt: `archive/${name}/prompt.hbs` });

/**
 * An archive member. `round` is when it joined: a member of the release can be picked from the
 * first round of the session that found it; one the writer wrote in round t joins in round t
 * (after that round's draw, so it does not count in that draw's archive size).
 */
export const archiveMemberSchema = z.object({
  schema: z.literal(ARCHIVE_MEMBER_SCHEMA),
  name: memberName,
  /** Its place in the archive (0 for the first member): the order ties are broken in. */
  order: z.number().int().min(0),
  origin: z.enum(['release', 'writer']),
  round: z.number().int().min(1),
  description: z.string().min(1),
  tools: z.array(z.string()),
  sees: z.array(z.string()).min(1).default([CONTEXT_VIEW]),
  maxSteps: z.number().int().min(1).max(50),
  maxCalls: z.number().int().min(1).max(50),
  /** Why the writer wrote it (its rationale), or where the release had it. */
  rationale: z.string(),
});
export type ArchiveMember = z.infer<typeof archiveMemberSchema>;
/** An archive member with its prompt template (kept beside it as prompt.hbs). */
export type ArchivedMember = Omit<ArchiveMember, 'schema'> & { readonly prompt: string };

/**
 * One arm per archive member. pulls: rounds it was on the team (n in UCB1); used: trajectories
 * (case-trials) of those rounds in which the orchestrator called it; helpful: of those, the ones
 * where the judge found at least one of its calls helpful (BOAD's hindsight label, 0 or 1 per
 * trajectory); passed: of those, the ones that passed (the success rate, shown beside it).
 * mean = helpful / used, and 0 while it has never been used (a member nobody calls helps nobody).
 */
export const armSchema = z.object({
  name: z.string(),
  pulls: z.number().int().min(0),
  used: z.number().int().min(0),
  helpful: z.number().int().min(0),
  passed: z.number().int().min(0),
  mean: z.number().min(0).max(1),
});
export type Arm = z.infer<typeof armSchema>;

export const designSchema = z.object({ cases: z.array(z.string()).min(1), trials: z.number().int().min(1) });
export type DesignSplit = z.infer<typeof designSchema>;

export const banditStateSchema = z.object({
  schema: z.literal(BANDIT_SCHEMA),
  blueprint: z.string(),
  seed: z.number().int().min(0),
  design: designSchema,
  /** Rounds done (t of the last round). */
  round: z.number().int().min(0),
  /** Archive members in the order they joined. */
  archive: z.array(z.object({ name: z.string(), origin: z.enum(['release', 'writer']), round: z.number().int().min(1) })),
  arms: z.array(armSchema),
});
export type BanditState = z.infer<typeof banditStateSchema>;

/** A member's part of one round: its calls, and the trajectories it was used in, judged helpful, passing. */
export const memberEvidenceSchema = z.object({
  name: z.string(),
  calls: z.number().int().min(0),
  used: z.number().int().min(0),
  helpful: z.number().int().min(0),
  passed: z.number().int().min(0),
});
export type MemberEvidence = z.infer<typeof memberEvidenceSchema>;

export const roundCostSchema = z.object({
  /** Case-trials run this round (its team's run and any warm-up runs). */
  caseTrials: z.number().int().min(0),
  /** Requests made by the pipeline, engine or not. */
  judgeRequests: z.number().int().min(0),
  writerRequests: z.number().int().min(0),
  /** The cost ledger's rows of this round (every metered model call; the mock engine is not metered). */
  ledger: z.object({ calls: z.number().int().min(0), inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0), costUsd: z.number().min(0) }),
});
export type RoundCost = z.infer<typeof roundCostSchema>;

export const roundDocumentSchema = z.object({
  schema: z.literal(ROUND_SCHEMA),
  round: z.number().int().min(1),
  seed: z.number().int().min(0),
  design: designSchema,
  theta: z.number().gt(0),
  top: z.number().int().min(1),
  /** The Chinese restaurant process of this round: P(new) = theta / (theta + archiveSize), drawn with the seed. */
  crp: z.object({
    archiveSize: z.number().int().min(0),
    probability: z.number().min(0).max(1),
    draw: z.number().min(0).max(1),
    grew: z.boolean(),
    /** The member written (after its warm-up), or null. */
    added: z.string().nullable(),
    /** Warm-up runs of the new member: the cases each took, and whether the writer revised it after. */
    warmup: z.array(z.object({ cases: z.array(z.string()), runId: z.string(), revised: z.boolean() })),
  }),
  /** UCB1 of every eligible member at selection, best first (null: +∞, never pulled). */
  scores: z.array(z.object({ name: z.string(), ucb: z.number().nullable() })),
  team: z.array(z.string()).min(1),
  runId: z.string(),
  passRate: z.number().min(0).max(1),
  evidence: z.array(memberEvidenceSchema),
  /** Labels of the design split's failing case-trials this round, with counts. */
  symptoms: z.array(z.object({ label: z.string(), caseTrials: z.number().int().min(1) })),
  cost: roundCostSchema,
  simulated: z.boolean(),
});
export type RoundDocument = z.infer<typeof roundDocumentSchema>;

export function parseBanditState(text: string, file: string): BanditState {
  return parseJsonDocument(text, file, banditStateSchema, 'HISTORY_INVALID');
}

export function parseRoundDocument(text: string, file: string): RoundDocument {
  return parseJsonDocument(text, file, roundDocumentSchema, 'HISTORY_INVALID');
}

export function parseArchiveMember(text: string, file: string): ArchiveMember {
  return parseJsonDocument(text, file, archiveMemberSchema, 'HISTORY_INVALID');
}
