// How close the gate's futility rule comes to the best any futility rule could do, computed exactly.
//
//   npx tsx bench/futility-frontier.ts
//
// One moved case of the regression family, with the gate's own design (K, the early looks and
// curtailment of stages/gate/case-design.ts). A futility rule chooses, at each look and each pair
// of pass counts, between stopping the case and going on. Stopping only ever lowers the chance of
// naming the case, so every such rule keeps the error rate; rules differ in what they spend on
// noise (a case the screen selected whose pass chance did not move) and in the power they keep on
// real breaks. For prices μ on missing a .75 → 0 and a .9 → .2 break, backward induction over the
// looks gives V(μ), the least expected "noise runs + Σ μ·(chance the break is missed)" of any rule,
// randomised rules included. Any rule that names the breaks with chances at least P therefore
// spends at least V(μ) − Σ μ·(1 − P) runs on noise, for every μ: the largest such figure is a lower
// bound, printed next to the gate's own rule, at the gate's power and at the power the issue's
// targets need (.75 → 0 named ≥ .89 once selected, .9 → .2 ≥ .77, from their selection chances).
//
// Noise is a selected case of the mix: its pass chance drawn from the mix and weighted by the
// chance the screen selects it (the candidate failed; all three records passed, or two of three).
// The levels are those of a regression family of total weight 20 (3α/4 × 4/20 for a unanimous
// screen, × 1/20 for two of three), typical of 50 cases.
import { configSchema } from '../src/config/schema.ts';
import { interimsOf, judgeLook, spent, type CaseDesign } from '../src/stages/gate/case-design.ts';
import { designTrials } from '../src/stages/gate/power.ts';
import { splitAlpha } from '../src/stages/gate/significance.ts';
import { Frontier, type Break } from './lib/futility-frontier.ts';
import { TAU_AIRLINE_GPT4O } from './lib/simulated-agent.ts';

/** The breaks, with the power the targets need once the case is selected. */
const BREAKS: readonly (Break & { readonly needed: number })[] = [
  { name: '.75 → 0', pHi: 0.75, pLo: 0, needed: 0.75 / (0.75 ** 3 + 3 * 0.75 ** 2 * 0.25) },
  { name: '.9 → .2', pHi: 0.9, pLo: 0.2, needed: 0.6 / (0.8 * (0.9 ** 3 + 3 * 0.9 ** 2 * 0.1)) },
];

const gate = configSchema.parse({ blueprint: 'bench', task: 'bench' }).gate;
const ARCSINE = Array.from({ length: 400 }, (_, i) => Math.sin((Math.PI * (i + 0.5)) / 400 / 2) ** 2);
const MIXES: Record<string, readonly number[]> = {
  '40% always, 20% never, 40% U(0.1,0.9)': [...Array.from({ length: 160 }, () => 1), ...Array.from({ length: 80 }, () => 0), ...Array.from({ length: 160 }, (_, i) => 0.1 + (0.8 * (i + 0.5)) / 160)],
  'Beta(0.5, 0.5)': ARCSINE,
  "tau-bench airline, gpt-4o's per-task rates": TAU_AIRLINE_GPT4O,
};

const level = splitAlpha(gate.alpha).regression;
console.log(`futility-frontier: one case of the regression family (level ${Number(level.toPrecision(3))}), the gate's design (detectableDrop ${gate.detectableDrop}, futility ${gate.futility})`);
console.log('noise runs: expected fresh runs, both sides, on a selected case whose pass chance did not move (the first pair included); power: chance a selected break is named\n');
console.log("| mix | screen | K | the gate's rule: noise runs | power .75 → 0 | power .9 → .2 | least any rule spends at the gate's power | at the power the targets need (.89, .77) |");
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [mixName, chances] of Object.entries(MIXES)) {
  for (const unanimous of [true, false]) {
    const selected = (p: number): number => (1 - p) * (unanimous ? p ** 3 : 3 * p * p * (1 - p));
    const total = chances.reduce((sum, p) => sum + selected(p), 0);
    const noise = chances.filter((p) => selected(p) > 0).map((p) => ({ weight: selected(p) / total, p }));
    const bar = (level * (unanimous ? 4 : 1)) / 20;
    const { trialsPerSide } = designTrials(bar, gate.detectableDrop, gate.maxConfirmTrials, (k) => 1 - spent(interimsOf(k)));
    const design: CaseDesign = { caseId: 'case', direction: 'regression', weight: 1, bar, trialsPerSide, interims: interimsOf(trialsPerSide), futility: gate.futility };
    const frontier = new Frontier(design, noise, BREAKS);
    const own = frontier.measure((n, hi, lo) => judgeLook(design, hi, lo, n, []).kind === 'continue');
    const atOwn = frontier.leastRuns(own.power);
    const atTargets = frontier.leastRuns(BREAKS.map((b) => b.needed));
    console.log(
      `| ${mixName} | ${unanimous ? '3 of 3' : '2 of 3'} | ${trialsPerSide} | ${own.runs.toFixed(2)} | ${(own.power[0] as number).toFixed(3)} | ${(own.power[1] as number).toFixed(3)} | ${atOwn.toFixed(2)} | ${atTargets.toFixed(2)} |`,
    );
  }
}
