import type { CaseEvidenceDocument } from '../domain/case-evidence.ts';
import type { GateDecision } from '../domain/decision.ts';
import { flipReasons } from './case-reasons.ts';

export interface SummaryInput {
  readonly candidate: string;
  /** promoted / rejected / accepted (a dry gate). */
  readonly outcome: string;
  readonly release: string | null;
  readonly decision: GateDecision;
  readonly cases: CaseEvidenceDocument | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly string[];
  /** Where the baseline's screen came from (reused from git, from the store, or run now); null when nothing ran. */
  readonly screenText?: string | null;
  /** Where the HTML report is: a path in the report artifact, and the page that lists the artifact (CI run), when known. */
  readonly links: { readonly report: string | null; readonly artifactPage: string | null };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A markdown summary fit for a pull request comment or $GITHUB_STEP_SUMMARY: decision, checks, flips with reasons, links. */
export function renderPrSummary(input: SummaryInput): string {
  const { decision } = input;
  const why = flipReasons(input.cases);
  const icon = input.outcome === 'rejected' ? '❌' : '✅';
  const lines = [
    `### ${icon} agentdevel gate: \`${input.candidate}\` ${input.outcome}${input.release ? ` as \`${input.release}\`` : ''}`,
    '',
    `Pass rate ${pct(decision.passRates.baseline)} → ${pct(decision.passRates.candidate)} · ${decision.f2p.length} fixed · ${decision.p2f.length} regressed · ${decision.flaky.length} moved within noise`,
    ...(input.screenText ? ['', `${input.screenText.charAt(0).toUpperCase()}${input.screenText.slice(1)}.`] : []),
    '',
    '| | check |',
    '| --- | --- |',
    ...decision.checks.map((c) => `| ${c.ok ? '✅' : '❌'} | ${cell(c.message)} |`),
  ];
  const flipTable = (title: string, ids: readonly string[]) => {
    if (ids.length === 0) return;
    lines.push('', `**${title}**`, '', '| case | reason |', '| --- | --- |', ...ids.map((id) => `| \`${id}\` | ${cell(why.get(id) ?? '')} |`));
  };
  flipTable('Regressions (pass → fail)', decision.p2f);
  flipTable('Fixes (fail → pass)', decision.f2p);
  if (decision.flaky.length > 0) lines.push('', `**Moved within noise** (not counted): ${decision.flaky.map((id) => `\`${id}\``).join(', ')}`);
  for (const warning of decision.warnings) lines.push('', `> **Warning.** ${warning}`);
  if (input.links.report || input.links.artifactPage) {
    const where = input.links.artifactPage ? `[the report artifact](${input.links.artifactPage})` : 'the report folder';
    lines.push('', `Full report with traces side by side and the blueprint diff: \`${input.links.report ?? 'report.html'}\` in ${where}.`);
  }
  if (input.simulated) lines.push('', '> Simulated: the mock engine played the agent; these results say nothing about a real model.');
  else if (input.mockRoles.length > 0) lines.push('', `Roles on the mock engine: ${input.mockRoles.join(', ')} (the agent's results are real).`);
  return `${lines.join('\n')}\n`;
}
