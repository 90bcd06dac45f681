// What a decision could have seen, stated with it: the smallest change each class of moved case is
// confirmed for with 80% power, the common drop the paired test detects, a drop it saw and could
// not confirm ("underpowered"), and, where nothing can be re-run, the likely regressions.
import type { CaseTest, PowerStatement } from '../../domain/decision.ts';
import { boschlooDropPValue } from './boschloo.ts';
import type { CaseDesign, Direction } from './case-design.ts';
import { designCase, UNANIMOUS_WEIGHT, type ConfirmationDesign } from './confirmation.ts';
import { aggregateDetectableDrop, detectableChange, sequentialPower, STATED_POWER, trialsNeeded } from './power.ts';
import type { Screening } from './screening.ts';
import { benjaminiHochbergAdjust, fisherDropPValue, fisherFloor } from './significance.ts';

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const num = (x: number): string => String(Number(x.toPrecision(2)));
const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** The baseline chances each family's detectable change is stated from: always passing (or failing), and 90% (10%). */
const FROM: Record<Direction, readonly number[]> = { regression: [1, 0.9], fix: [0, 0.1] };
/** How far `trialsNeeded` searches. */
const SEARCH_CAP = 96;

function screenWords(direction: Direction, unanimous: boolean, records: number): string {
  if (direction === 'regression') return unanimous ? `every baseline trial passed, over ${plural(records, 'record')}` : 'most baseline trials passed';
  return unanimous ? `every baseline trial failed, over ${plural(records, 'record')}` : 'most baseline trials failed';
}

function classesOf(design: ConfirmationDesign['families'][number], records: number): PowerStatement['families'][number]['classes'] {
  const byWeight = new Map<number, CaseDesign[]>();
  for (const c of design.cases) byWeight.set(c.weight, [...(byWeight.get(c.weight) ?? []), c]);
  return [...byWeight.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([weight, cases]) => {
      const first = cases[0] as CaseDesign;
      return {
        screen: screenWords(design.direction, weight > 1, records),
        weight,
        cases: cases.length,
        bar: first.bar,
        trialsPerSide: first.trialsPerSide,
        detectable: FROM[design.direction].map((from) => ({ from, change: detectableChange(first, from) })),
      };
    });
}

function classSentence(direction: Direction, c: PowerStatement['families'][number]['classes'][number], hypothetical: boolean): string {
  const what = direction === 'regression' ? 'confirmed as a regression' : 'confirmed as fixed';
  const verb = direction === 'regression' ? 'falls' : 'rises';
  const [first, second] = c.detectable;
  const change = (d: { from: number; change: number | null } | undefined): string =>
    !d ? '' : d.change === null ? `not even a ${direction === 'regression' ? 'fall to 0' : 'rise to 100%'} from ${pct(d.from)}` : `by ${num(d.change)} from ${pct(d.from)}`;
  const who = hypothetical
    ? `Had one case moved where ${c.screen}, it would be ${what}`
    : `${c.cases === 1 ? 'The case' : `Each of the ${c.cases} cases`} where ${c.screen} (level ${num(c.bar)}, up to ${c.trialsPerSide} fresh trials a side) is ${what}`;
  return `${who} with ${pct(STATED_POWER)} power if its pass chance ${verb} ${change(first).replace(/^by /, 'by at least ')}${second ? `, or ${change(second)}` : ''}.`;
}

/** The statement of a two-stage decision. */
export function twoStagePower(input: {
  readonly design: ConfirmationDesign;
  readonly tests: readonly CaseTest[];
  readonly screening: Screening;
  /** Records of the baseline's screen, and trials per case in each. */
  readonly records: number;
  readonly screeningTrials: number;
  readonly aggregate: { readonly pairs: number; readonly level: number };
}): PowerStatement {
  const { design, tests, screening, records } = input;
  const text: string[] = [];
  const families = design.families.map((family) => {
    const classes = classesOf(family, records);
    if (classes.length > 0) for (const c of classes) text.push(classSentence(family.direction, c, false));
    else {
      // Nothing moved this way: say what one moved case with a unanimous screen would have met.
      const graded = records * input.screeningTrials;
      const baseline = { passes: family.direction === 'regression' ? graded : 0, graded };
      const lone = designCase({ caseId: '(one case)', direction: family.direction, weight: UNANIMOUS_WEIGHT, bar: family.level, baseline }, design.policy).design;
      const hypothetical = classesOf({ ...family, cases: [lone] }, records)[0];
      if (hypothetical) text.push(classSentence(family.direction, hypothetical, true));
    }
    return { direction: family.direction, level: family.level, classes };
  });

  const moved = new Map(screening.cases.map((c) => [c.caseId, c]));
  const tested = design.families.flatMap((f) => f.cases.map((c) => c.caseId));
  const rates = tested.map((id) => moved.get(id)?.baseline).filter((b): b is NonNullable<typeof b> => b !== undefined && b.graded > 0);
  const rate = rates.length === 0 ? 0 : rates.reduce((sum, b) => sum + b.passes / b.graded, 0) / rates.length;
  // No moved case, no fresh pair: the paired test had nothing to judge, and no rate to state.
  const aggregate =
    input.aggregate.pairs === 0 ? null : { pairs: input.aggregate.pairs, level: input.aggregate.level, rate, detectableDrop: aggregateDetectableDrop(input.aggregate.pairs, rate, input.aggregate.level) };
  text.push(
    aggregate === null
      ? 'The paired test had no fresh pairs to judge: no case was selected for confirmation, or none was graded on both sides.'
      : aggregate.detectableDrop === null
      ? `The paired test over ${plural(aggregate.pairs, "moved case's first fresh pair", "moved cases' first fresh pairs")} (passing ${pct(rate)} of the time before) could not detect any common drop with ${pct(STATED_POWER)} power.`
      : `The paired test over ${plural(aggregate.pairs, "moved case's first fresh pair", "moved cases' first fresh pairs")} detects with ${pct(STATED_POWER)} power a common drop of ${num(aggregate.detectableDrop)} in their pass chance (from ${pct(rate)}).`,
  );

  const underpowered = underpoweredDrop(design, tests);
  if (underpowered) {
    const { fresh } = underpowered;
    text.push(
      `Underpowered: ${underpowered.caseId} fell from ${fresh.baseline.passes}/${fresh.baseline.graded} to ${fresh.candidate.passes}/${fresh.candidate.graded} in its fresh trials ` +
        `(p = ${num(underpowered.pValue)} before correction), a drop this design confirms ${pct(underpowered.power)} of the time; ` +
        (underpowered.trialsNeeded === null
          ? `not even ${SEARCH_CAP} fresh trials a side would confirm it with ${pct(STATED_POWER)} power.`
          : `about ${underpowered.trialsNeeded} fresh trials a side would confirm it with ${pct(STATED_POWER)} power (gate.maxConfirmTrials is ${design.policy.maxConfirmTrials}).`),
    );
  }
  return { statedPower: STATED_POWER, families, aggregate, underpowered, likely: null, text };
}

/**
 * The strongest drop the fresh trials showed that was not confirmed and that this design could
 * not have confirmed with the stated power: a regression test whose fresh trials are significant
 * before any correction (p ≤ alpha), where the design's power against the drop it showed is short.
 */
function underpoweredDrop(design: ConfirmationDesign, tests: readonly CaseTest[]): PowerStatement['underpowered'] {
  const designs = new Map(design.families.flatMap((f) => f.cases.map((c) => [c.caseId, c] as const)));
  let strongest: NonNullable<PowerStatement['underpowered']> | null = null;
  for (const test of tests) {
    const caseDesign = designs.get(test.caseId);
    if (test.direction !== 'regression' || test.outcome === 'confirmed' || !test.confirmation || !caseDesign) continue;
    const { baseline, candidate } = test.confirmation;
    if (baseline.graded === 0 || candidate.graded === 0 || baseline.passes * candidate.graded <= candidate.passes * baseline.graded) continue;
    const pValue =
      baseline.graded === candidate.graded ? boschlooDropPValue(baseline.passes, candidate.passes, baseline.graded) : fisherDropPValue(baseline.passes, baseline.graded, candidate.passes, candidate.graded);
    if (pValue > design.policy.alpha || (strongest && strongest.pValue <= pValue)) continue;
    const pHi = baseline.passes / baseline.graded;
    const pLo = candidate.passes / candidate.graded;
    const power = sequentialPower(caseDesign, pHi, pLo);
    if (power >= STATED_POWER) continue;
    strongest = { caseId: test.caseId, fresh: test.confirmation, pValue, power, trialsNeeded: trialsNeeded(caseDesign.bar, pHi, pLo, caseDesign.trialsPerSide + 1, SEARCH_CAP) };
  }
  return strongest;
}

/**
 * The statement of a single-stage comparison (runs that cannot be re-run): the likely
 * regressions ranked by p, none confirmed; whether any single case could have been at these
 * trial counts and what it would take; and the names a false discovery rate would give, as a
 * label for review, never a gate.
 */
export function singleStagePower(input: {
  readonly screening: Screening;
  readonly level: number;
  readonly fdr: number;
  /** The paired test's level, and the drop (from 100%) the trials a side for power are stated against. */
  readonly aggregateLevel: number;
  readonly detectableDrop: number;
}): PowerStatement {
  const testable = input.screening.cases.filter((c) => {
    const passes = c.baseline.passes + c.candidate.passes;
    return passes > 0 && passes < c.baseline.graded + c.candidate.graded;
  });
  const pValues = testable.map((c) => fisherDropPValue(c.baseline.passes, c.baseline.graded, c.candidate.passes, c.candidate.graded));
  const fdrAdjusted = benjaminiHochbergAdjust(pValues);
  const regressions = testable
    .map((c, i) => ({ caseId: c.caseId, pValue: pValues[i] as number, fdrAdjusted: fdrAdjusted[i] as number, drop: c.movement === 'drop' }))
    .filter((r) => r.drop)
    .sort((a, b) => a.pValue - b.pValue || a.caseId.localeCompare(b.caseId))
    .map(({ caseId, pValue, fdrAdjusted: adjusted }) => ({ caseId, pValue, fdrAdjusted: adjusted }));
  const bar = testable.length === 0 ? input.level : input.level / testable.length;
  // A case's smallest p-value: every baseline trial passed and every candidate trial failed.
  const floors = testable.map((c) => fisherDropPValue(c.baseline.graded, c.baseline.graded, 0, c.candidate.graded));
  const smallestPValue = floors.length === 0 ? 1 : Math.min(...floors);
  const confirmable = smallestPValue <= bar * (1 + 1e-9);
  let needed: number | null = null;
  for (let k = 1; k <= SEARCH_CAP && needed === null; k += 1) if (fisherFloor(k) <= bar * (1 + 1e-9)) needed = k;
  // Reaching the bar at all needs a perfect split; confirming a real drop needs power.
  const forPower = testable.length === 0 ? null : trialsNeeded(bar, 1, 1 - input.detectableDrop, Math.max(1, needed ?? 1), SEARCH_CAP);
  const namedAtFdr = regressions.filter((r) => r.fdrAdjusted <= input.fdr * (1 + 1e-9)).map((r) => r.caseId);
  const trials = (side: 'baseline' | 'candidate'): string => {
    const counts = [...new Set(testable.map((c) => c[side].graded))].sort((a, b) => a - b);
    return counts.length === 1 ? String(counts[0]) : counts.join('–');
  };
  const text: string[] = [];
  if (testable.length > 0) {
    text.push(
      confirmable
        ? `A single case can be confirmed at these trial counts: each of the ${testable.length} testable cases needs p ≤ ${num(bar)}, and the smallest reachable is ${num(smallestPValue)}.`
        : `No single case could be confirmed at these trial counts: with ${trials('baseline')} against ${trials('candidate')} trials the smallest one-sided p-value is ${num(smallestPValue)}, ` +
            `above the ${num(bar)} each of the ${testable.length} testable cases needs${needed === null ? '' : `; ${needed} trials a side is the fewest at which a case that always passed and now always fails could reach it`}. Only the paired test can reject.`,
    );
    text.push(
      forPower === null
        ? `Not even ${SEARCH_CAP} trials a side would confirm a case whose pass chance falls by ${num(input.detectableDrop)} from 100% with ${pct(STATED_POWER)} power.`
        : `To confirm a case whose pass chance falls by ${num(input.detectableDrop)} from 100% with ${pct(STATED_POWER)} power would take about ${forPower} trials a side.`,
    );
  }
  const aggregate = singleStageAggregate(input.screening, input.aggregateLevel);
  if (aggregate) {
    text.push(
      aggregate.detectableDrop === null
        ? `The paired test over the ${aggregate.pairs} cases (passing ${pct(aggregate.rate)} of the time in the baseline) could not detect any common drop with ${pct(STATED_POWER)} power.`
        : `The paired test over the ${aggregate.pairs} cases detects with ${pct(STATED_POWER)} power a common drop of ${num(aggregate.detectableDrop)} in their pass chance (from ${pct(aggregate.rate)}).`,
    );
  }
  if (regressions.length > 0) {
    text.push(`Likely regressions, unconfirmed, most likely first: ${regressions.slice(0, 15).map((r) => `${r.caseId} (p = ${num(r.pValue)})`).join(', ')}${regressions.length > 15 ? ', …' : ''}.`);
  }
  text.push(
    `At a false discovery rate of ${pct(input.fdr)} (Benjamini–Hochberg; a label for review, never used to promote): ${namedAtFdr.length === 0 ? 'no case is named' : namedAtFdr.join(', ')}.`,
  );
  return {
    statedPower: STATED_POWER,
    families: [],
    aggregate,
    underpowered: null,
    likely: { regressions, fdr: input.fdr, namedAtFdr, confirmable, smallestPValue, bar, trialsNeeded: needed, trialsForPower: forPower },
    text,
  };
}

/**
 * The single-stage paired test's reach: a common drop in every graded case's pass chance, from
 * their mean baseline share, at the fewest trials a side any case has (so the statement never
 * claims more than the runs hold).
 */
function singleStageAggregate(screening: Screening, level: number): PowerStatement['aggregate'] {
  const graded = screening.cases.filter((c) => c.baseline.graded > 0 && c.candidate.graded > 0);
  if (graded.length === 0) return null;
  const rate = graded.reduce((sum, c) => sum + c.baseline.passes / c.baseline.graded, 0) / graded.length;
  const trials = Math.min(...graded.map((c) => Math.min(c.baseline.graded, c.candidate.graded)));
  return { pairs: graded.length, level, rate, detectableDrop: aggregateDetectableDrop(graded.length, rate, level, trials) };
}
