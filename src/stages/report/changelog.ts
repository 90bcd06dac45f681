// releases/<bp>/CHANGELOG.md: one entry per release, newest first: the version, the date (of the
// release candidate's commit, so a rebuild from git gives the same bytes), the intent, the fixes
// and regressions by case, and the approver. Generated from the decision documents only, so
// `agentdevel report` rebuilds it identically. Every piece of text is escaped for markdown.
import { intentText } from '../../domain/release-candidate.ts';
import { mdCode, mdText } from './escape/markdown.ts';
import { approverText } from './gate-text.ts';

export interface ChangelogEntry {
  readonly release: string;
  /** YYYY-MM-DD, or null when unknown. */
  readonly date: string | null;
  readonly intent: { readonly targets: readonly string[]; readonly rationale: string } | null;
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly approvedBy: string | null;
  readonly simulated: boolean;
}

const cases = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.map((id) => mdCode(id)).join(', '));

/** The changelog of a line; `entries` in any order (sorted here, newest release first). */
export function renderChangelog(blueprint: string, entries: readonly ChangelogEntry[]): string {
  const version = (e: ChangelogEntry): number => Number(/\/v(\d+)$/.exec(e.release)?.[1] ?? 0);
  const sorted = [...entries].sort((a, b) => version(b) - version(a));
  const lines = [`# Changelog: ${mdText(blueprint)}`, '', 'Written by agentdevel from each release\'s decision.json; `agentdevel report` rebuilds it.'];
  for (const e of sorted) {
    lines.push(
      '',
      `## ${mdCode(e.release)}${e.date ? ` (${e.date})` : ''}`,
      '',
      `- Intent: ${e.intent ? intentText({ targets: e.intent.targets.map((t) => mdCode(t)), rationale: mdText(e.intent.rationale) }) : 'none given'}`,
      `- Fixed: ${cases(e.f2p)}`,
      `- Regressed: ${cases(e.p2f)}`,
      `- Approved by: ${e.approvedBy ? mdText(e.approvedBy) : approverText(null)}`,
      ...(e.simulated ? ['- Simulated: the mock engine played the agent.'] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}
