// The shadow comparison as GitHub markdown (shadow --summary, $GITHUB_STEP_SUMMARY): advisory,
// the human's change and agentdevel's RC side by side. No raw HTML; every id, ref and text goes
// through escape/markdown.ts.
import type { HumanChange } from '../../domain/human-change.ts';
import { changeLines } from './change-text.ts';
import { mdCode, mdRow, mdText } from './escape/markdown.ts';

/** One side of the comparison, as the summary reads it (pipeline/loop/shadow.ts's ShadowSide). */
export interface ShadowSummarySide {
  readonly label: string;
  readonly commit: string | null;
  readonly verdict: 'accepted' | 'rejected' | 'none';
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly reasons: readonly string[];
  readonly intent: { readonly targets: readonly string[] } | null;
  readonly caseTrials: number;
  readonly costUsd: number;
}

export interface ShadowSummaryInput {
  readonly base: { readonly commit: string; readonly label: string };
  readonly human: ShadowSummarySide;
  readonly agentdevel: ShadowSummarySide;
  readonly fixedInCommon: readonly string[];
  readonly fixedOnlyByHuman: readonly string[];
  readonly fixedOnlyByAgentdevel: readonly string[];
  readonly preferred: string;
  readonly preferredBecause: string;
  readonly simulated: boolean;
  /** What the human change touches beyond the blueprint, and how its gate treated it (null: the blueprint alone). */
  readonly humanChange?: HumanChange | null;
}

/** The first line of every shadow summary (its own section of the job page, apart from the gate's). */
export const SHADOW_SUMMARY_MARKER = '### agentdevel shadow (advisory)';

const ids = (list: readonly string[]): string => (list.length === 0 ? '-' : list.map((id) => mdCode(id, { table: true })).join(', '));
const plain = (list: readonly string[]): string => (list.length === 0 ? 'none' : list.map((id) => mdCode(id)).join(', '));
const verdictText: Record<ShadowSummarySide['verdict'], string> = { accepted: '✅ accepted', rejected: '❌ rejected', none: 'no valid RC' };

export function renderShadowSummary(input: ShadowSummaryInput): string {
  const { human, agentdevel } = input;
  const row = (name: string, show: (side: ShadowSummarySide) => string) => mdRow([name, show(human), show(agentdevel)]);
  const lines = [
    `${SHADOW_SUMMARY_MARKER}: ${mdCode(human.label)} beside agentdevel's own RC`,
    '',
    `Both gated against the base ${mdText(input.base.label)} (${mdCode(input.base.commit.slice(0, 10))}). Advisory: nothing was promoted or recorded, and this check never fails the job on the comparison.`,
    '',
    mdRow(['', 'human', 'agentdevel']),
    mdRow(['---', '---', '---']),
    row('change', (s) => `${mdCode(s.label, { table: true })}${s.commit ? ` (${mdCode(s.commit.slice(0, 10), { table: true })})` : ''}`),
    row('gate', (s) => verdictText[s.verdict]),
    row('F→P', (s) => `${s.f2p.length}: ${ids(s.f2p)}`),
    row('P→F', (s) => `${s.p2f.length}: ${ids(s.p2f)}`),
    row('targets', (s) => (s.intent ? ids(s.intent.targets) : '-')),
    row('cost', (s) => `${s.caseTrials} case-trials, $${s.costUsd.toFixed(4)}`),
    '',
    `- **Fixed by both:** ${plain(input.fixedInCommon)}`,
    `- **Only the human change fixes:** ${plain(input.fixedOnlyByHuman)}`,
    `- **Only agentdevel fixes:** ${plain(input.fixedOnlyByAgentdevel)}`,
    `- **The gate prefers:** ${mdText(input.preferred)} (${mdText(input.preferredBecause)})`,
  ];
  const beyond = changeLines(input.humanChange ?? null);
  if (beyond.length > 0) lines.push('', '**The human change beyond the blueprint**', '', ...beyond.map((line) => `- ${mdText(line)}`));
  const reasons = (side: ShadowSummarySide, name: string) => (side.reasons.length === 0 ? [] : ['', `${name}: ${side.reasons.map((r) => mdText(r)).join('; ')}`]);
  lines.push(...reasons(human, 'Why the gate decided on the human change'), ...reasons(agentdevel, "Why the gate decided on agentdevel's RC"));
  if (input.simulated) lines.push('', '> **Simulation.** Produced by the mock engine, not a language model.');
  return `${lines.join('\n')}\n`;
}
