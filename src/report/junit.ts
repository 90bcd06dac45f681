import type { CaseRecord } from '../domain/record.ts';
import { failingCases } from './case-reasons.ts';

const xml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 forbids most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export interface JunitInput {
  readonly suite: string;
  readonly records: Iterable<CaseRecord>;
  /** What the gate said of a case, added to its failure message ("confirmed regression", …). */
  readonly notes?: ReadonlyMap<string, string>;
}

/**
 * One testcase per case. A case with a failing trial is a failure; a case whose trials only
 * had infrastructure errors is an error (never a failure): CI tells the two apart.
 */
export function renderJunit(input: JunitInput): string {
  const ids = new Set<string>();
  const seen = function* (records: Iterable<CaseRecord>) {
    for (const record of records) {
      ids.add(record.caseId);
      yield record;
    }
  };
  const bad = new Map(failingCases(seen(input.records)).map((c) => [c.caseId, c]));
  let failures = 0;
  let errors = 0;
  const sorted = [...ids].sort();
  const cases = sorted.map((id) => {
    const c = bad.get(id);
    const note = input.notes?.get(id);
    const name = `name="${xml(id)}" classname="${xml(input.suite)}"`;
    if (!c) return `    <testcase ${name}${note ? `>\n      <system-out>${xml(note)}</system-out>\n    </testcase>` : '/>'}`;
    const counts = `${c.passes}/${c.graded} trials passed${c.infraErrors ? `, ${c.infraErrors} infrastructure errors` : ''}`;
    const message = `${note ? `${note}: ` : ''}${c.reason}`;
    if (c.graded > c.passes) {
      failures += 1;
      return `    <testcase ${name}>\n      <failure message="${xml(message)}" type="fail">${xml(`${counts}\n${c.reason}`)}</failure>\n    </testcase>`;
    }
    errors += 1;
    return `    <testcase ${name}>\n      <error message="${xml(message)}" type="infra_error">${xml(`${counts}\n${c.reason}`)}</error>\n    </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="agentdevel" tests="${sorted.length}" failures="${failures}" errors="${errors}">
  <testsuite name="${xml(input.suite)}" tests="${sorted.length}" failures="${failures}" errors="${errors}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
