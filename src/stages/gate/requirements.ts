// Requirement-level evidence (EvoMAC): each requirement's verdict per case-trial, the flips
// per (case, requirement) beside the case flips, and AutoEvolve's requirement-violation rate.
// Executed evidence outranks opinion: a requirement a scorer checks takes the scorer's verdict.
import type { CaseRecord } from '../../domain/record.ts';
import { scorerDecides } from '../../domain/record.ts';
import type { Requirement, RequirementVerdict } from '../../domain/requirements.ts';

/** The verdicts of one case-trial on its requirements: the named scorer's, else the critic's. */
export function requirementVerdicts(record: CaseRecord, requirements: readonly Requirement[]): RequirementVerdict[] {
  if (record.status !== 'ok' || record.pass === null) return [];
  return requirements.flatMap((r): RequirementVerdict[] => {
    if (r.scorer !== undefined) {
      const checks = (record.scorer?.checks ?? []).filter((c) => c.scorer === r.scorer);
      if (checks.length === 0) return [];
      const failed = checks.find((c) => !c.pass);
      return [{ id: r.id, pass: !failed, by: 'scorer', reason: failed?.message ?? `the ${r.scorer} scorer passed` }];
    }
    const judged = record.critic?.requirements?.find((v) => v.id === r.id);
    return judged ? [{ id: r.id, pass: judged.pass, by: 'critic', reason: judged.reason }] : [];
  });
}

export interface RequirementFlip {
  readonly caseId: string;
  readonly requirement: string;
}

export interface RequirementFlips {
  readonly fixed: RequirementFlip[];
  readonly broken: RequirementFlip[];
  readonly stillFailing: RequirementFlip[];
}

/** Per (case, requirement): does most of a side's trials meet it (a tie does not)? */
function majorities(records: readonly CaseRecord[], requirementsOf: (caseId: string) => readonly Requirement[]): Map<string, boolean> {
  const tally = new Map<string, { pass: number; all: number }>();
  for (const record of records) {
    for (const verdict of requirementVerdicts(record, requirementsOf(record.caseId))) {
      const key = `${record.caseId}\u0000${verdict.id}`;
      const t = tally.get(key) ?? { pass: 0, all: 0 };
      tally.set(key, { pass: t.pass + (verdict.pass ? 1 : 0), all: t.all + 1 });
    }
  }
  return new Map([...tally].map(([key, t]) => [key, t.pass * 2 > t.all]));
}

/** Flips per (case, requirement) between the two screening runs: fixed, broken, still failing. */
export function requirementFlips(baseline: readonly CaseRecord[], candidate: readonly CaseRecord[], requirementsOf: (caseId: string) => readonly Requirement[]): RequirementFlips {
  const before = majorities(baseline, requirementsOf);
  const after = majorities(candidate, requirementsOf);
  const flips: RequirementFlips = { fixed: [], broken: [], stillFailing: [] };
  for (const key of [...before.keys()].filter((k) => after.has(k)).sort()) {
    const [caseId, requirement] = key.split('\u0000') as [string, string];
    const was = before.get(key) as boolean;
    const is = after.get(key) as boolean;
    if (!was && is) flips.fixed.push({ caseId, requirement });
    else if (was && !is) flips.broken.push({ caseId, requirement });
    else if (!was && !is) flips.stillFailing.push({ caseId, requirement });
  }
  return flips;
}

/**
 * AutoEvolve's requirement-violation rate: the share of graded case-trials the scorers pass but
 * a requirement only the critic judges fails, with the cases it happened in.
 */
export function violationRate(records: readonly CaseRecord[]): { rate: number; cases: string[] } {
  const graded = records.filter((r) => r.status === 'ok' && r.pass !== null);
  const violating = graded.filter((r) => scorerDecides(r.scorer) && r.scorer.pass && (r.critic?.requirements ?? []).some((v) => !v.pass));
  return { rate: graded.length === 0 ? 0 : violating.length / graded.length, cases: [...new Set(violating.map((r) => r.caseId))].sort() };
}
