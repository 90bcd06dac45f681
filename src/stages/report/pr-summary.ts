// The pull request summary (gate --summary, $GITHUB_STEP_SUMMARY, `agentdevel comment`): GitHub
// markdown. It opens with the decision and its reasons, then what changed case by case, then the
// evidence. No raw HTML; every piece of user text goes through escape/markdown.ts.
import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import type { GateDecision } from '../../domain/decision.ts';
import type { HumanChange } from '../../domain/human-change.ts';
import { flipReasons } from './case-reasons.ts';
import { changeLines } from './change-text.ts';
import { mdCode, mdRow, mdText } from './escape/markdown.ts';
import type { DecisionHeadline } from './headline.ts';

export interface SummaryInput {
  /** What was gated, as a reviewer knows it: the branch and its commit ("feature-x at 1a2b3c4d5e"). */
  readonly candidate: { readonly label: string; readonly commit: string };
  readonly baseline: string;
  readonly headline: DecisionHeadline;
  readonly decision: GateDecision;
  readonly cases: CaseEvidenceDocument | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly string[];
  /** Where the baseline's screen came from (reused from git, from the store, or run now); null when nothing ran. */
  readonly screenText?: string | null;
  /** What a person's change touched beyond the blueprint, and how the gate treated it (null: the blueprint alone). */
  readonly change?: HumanChange | null;
  /** Where the HTML report is: a path in the report artifact, and the page that lists the artifact (CI run), when known. */
  readonly links: { readonly report: string | null; readonly artifactPage: string | null };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The first line of every summary (`agentdevel comment` refuses a file that does not start with it). */
export const SUMMARY_MARKER = '### agentdevel gate';

/**
 * The hidden first line of agentdevel's pull request comment: an HTML comment GitHub does not
 * show, by which `agentdevel comment` finds its own comment again. A key tells apart the comments
 * of several gate jobs on one pull request.
 */
export function commentMarker(key: string | null): string {
  return key === null ? '<!-- agentdevel:gate -->' : `<!-- agentdevel:gate key=${key} -->`;
}

/** A comment key: letters, digits, `.`, `_` and `-` (nothing that could end the HTML comment). */
export const COMMENT_KEY = /^[\w.-]{1,100}$/;

/** A markdown summary fit for a pull request comment or $GITHUB_STEP_SUMMARY. */
export function renderPrSummary(input: SummaryInput): string {
  const { decision, headline } = input;
  const why = flipReasons(input.cases);
  const icon = headline.failed ? '❌' : '✅';
  const lines = [
    `${SUMMARY_MARKER}: ${icon} ${mdCode(input.candidate.label)} (${mdCode(input.candidate.commit.slice(0, 10))}) ${mdText(headline.outcome)}`,
    '',
    '**Why:**',
    '',
    ...headline.reasons.map((reason) => `- ${mdText(reason)}`),
    '',
    `Against ${mdCode(input.baseline)}: pass rate ${pct(decision.passRates.baseline)} → ${pct(decision.passRates.candidate)} · ${decision.p2f.length} regressed · ${decision.f2p.length} fixed · ${decision.flaky.length} moved within noise`,
    ...(input.screenText ? ['', mdText(`${input.screenText.charAt(0).toUpperCase()}${input.screenText.slice(1)}.`)] : []),
  ];
  const beyond = changeLines(input.change ?? null);
  if (beyond.length > 0) lines.push('', '**Beyond the blueprint**', '', ...beyond.map((line) => `- ${mdText(line)}`));
  const flipTable = (title: string, ids: readonly string[]) => {
    if (ids.length === 0) return;
    lines.push('', `**${title}**`, '', mdRow(['case', 'reason']), mdRow(['---', '---']), ...ids.map((id) => mdRow([mdCode(id, { table: true }), mdText(why.get(id) ?? '')])));
  };
  flipTable('Regressions (pass → fail)', decision.p2f);
  flipTable('Fixes (fail → pass)', decision.f2p);
  if (decision.flaky.length > 0) lines.push('', `**Moved within noise** (not counted): ${decision.flaky.map((id) => mdCode(id)).join(', ')}`);
  lines.push('', '**Checks**', '', mdRow(['', 'check']), mdRow(['---', '---']), ...decision.checks.map((c) => mdRow([c.ok ? '✅' : '❌', mdText(c.message)])));
  for (const warning of decision.warnings) lines.push('', `> **Warning.** ${mdText(warning)}`);
  if (decision.power?.text.length) lines.push('', '**What this gate could see**', '', ...decision.power.text.map((line) => `- ${mdText(line)}`));
  if (input.links.report || input.links.artifactPage) {
    const where = input.links.artifactPage ? `[the report artifact](<${input.links.artifactPage.replace(/[<>\s]/g, encodeURIComponent)}>)` : 'the report folder';
    lines.push('', `Full report, cases side by side with their traces and the blueprint diff: ${mdCode(input.links.report ?? 'report.html')} in ${where}.`);
  }
  if (input.simulated) lines.push('', '> Simulated: the mock engine played the agent; these results say nothing about a real model.');
  else if (input.mockRoles.length > 0) lines.push('', `Roles on the mock engine: ${mdText(input.mockRoles.join(', '))} (the agent's results are real).`);
  return `${lines.join('\n')}\n`;
}
