// The "Decision" row of report.md, rendered from the decision document alone. The gate renders
// it with the rest of the report; approve and decline render it again from the document as the
// person's verdict leaves it, and put it in place of the row the gate rendered. The rest of the
// report rests on evidence that git does not keep whole (where the screen came from, what the
// critic policy spared), so it is never rendered again.
import type { DecisionDocument } from '../../domain/decision.ts';
import { mdCode, mdRow, mdText } from './escape/markdown.ts';

export function decisionRow(document: Pick<DecisionDocument, 'outcome' | 'release' | 'approval'>): string {
  return mdRow(['Decision', decisionCell(document)]);
}

function decisionCell({ outcome, release, approval }: Pick<DecisionDocument, 'outcome' | 'release' | 'approval'>): string {
  const as = release ? ` as ${mdCode(release, { table: true })}` : '';
  // Text a person typed (a name, a reason) is escaped for the markdown it enters.
  if (approval?.verdict === 'approved') return `**${outcome}**${as}, approved by ${mdText(approval.by)} on ${approval.at}`;
  if (approval?.verdict === 'declined') return `**${outcome}** by ${mdText(approval.by)} on ${approval.at}: ${mdText(approval.reason ?? '')}`;
  return `**${outcome}**${as}`;
}
