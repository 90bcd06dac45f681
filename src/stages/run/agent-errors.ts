import type { CaseRecord } from '../../domain/record.ts';

/** Above this share of a run's case-trials, one kind of agent error is more likely a broken agent than a hard task. */
export const AGENT_ERROR_ALARM_SHARE = 0.2;

/** Agent errors of one kind differ only in numbers (line numbers, timeouts): those are left out. */
const kindOf = (message: string): string => message.replace(/\d+/g, 'N');

/**
 * A loud warning when more than AGENT_ERROR_ALARM_SHARE of the case-trials ended with the same
 * kind of agent error (an agent that writes malformed trace events passes nothing by its own
 * fault, and a pass rate alone hides it); null otherwise.
 */
export function agentErrorAlarm(records: Iterable<CaseRecord>, label: string): string | null {
  const tally = agentErrorTally();
  for (const _record of countingAgentErrors(records, tally));
  return tally.alarm(label);
}

/** The records as they go by, each also counted by `tally` (in the order given: case and trial order). */
export function* countingAgentErrors(records: Iterable<CaseRecord>, tally: ReturnType<typeof agentErrorTally>): Generator<CaseRecord> {
  let at = 0;
  for (const record of records) {
    tally.add(record, at++);
    yield record;
  }
}

/**
 * The same count, kept as records go by (a run never holds them all). `of`: the run's number of
 * case-trials, when only some of its records go by (those with an agent error among them all).
 */
export function agentErrorTally(of?: number): { add(record: CaseRecord, at: number): void; alarm(label: string): string | null } {
  // `at` is the record's place in case and trial order: the example and the tie-break follow it,
  // not the order in which case-trials happened to finish, so the same run reads the same.
  const counts = new Map<string, { count: number; example: string; at: number }>();
  let total = 0;
  return {
    add(record, at) {
      total += 1;
      if (!record.agentError) return;
      const kind = kindOf(record.agentError);
      const entry = counts.get(kind) ?? { count: 0, example: record.agentError, at };
      counts.set(kind, { count: entry.count + 1, ...(at < entry.at ? { example: record.agentError, at } : { example: entry.example, at: entry.at }) });
    },
    alarm(label) {
      const worst = [...counts.values()].sort((a, b) => b.count - a.count || a.at - b.at)[0];
      if (of !== undefined) total = of;
      if (!worst || total === 0 || worst.count / total <= AGENT_ERROR_ALARM_SHARE) return null;
      const share = `${((worst.count / total) * 100).toFixed(0)}%`;
      return `${label}: ${worst.count} of ${total} case-trials (${share}) ended with the same agent error: "${worst.example}". Check the agent: \`agentdevel show CASE\` shows a trace.`;
    },
  };
}
