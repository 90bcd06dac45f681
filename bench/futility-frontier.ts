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
import { interimsOf, judgeLook, looksOf, spent, type CaseDesign } from '../src/stages/gate/case-design.ts';
import { designTrials } from '../src/stages/gate/power.ts';
import { splitAlpha } from '../src/stages/gate/significance.ts';
import { TAU_AIRLINE_GPT4O } from './lib/simulated-agent.ts';

interface Break {
  readonly name: string;
  readonly pHi: number;
  readonly pLo: number;
  /** The power the targets need once the case is selected. */
  readonly needed: number;
}
const BREAKS: readonly Break[] = [
  { name: '.75 → 0', pHi: 0.75, pLo: 0, needed: 0.75 / (0.75 ** 3 + 3 * 0.75 ** 2 * 0.25) },
  { name: '.9 → .2', pHi: 0.9, pLo: 0.2, needed: 0.6 / (0.8 * (0.9 ** 3 + 3 * 0.9 ** 2 * 0.1)) },
];
/** A futility rule: at n fresh trials a side with hi and lo passes, whether an open case goes on (false: it stops). */
type Rule = (n: number, hi: number, lo: number) => boolean;

const gate = configSchema.parse({ blueprint: 'bench', task: 'bench' }).gate;
const choose = (n: number, k: number): number => {
  let r = 1;
  for (let i = 0; i < k; i += 1) r = (r * (n - i)) / (i + 1);
  return r;
};
/** The chance of one sequence of n trials a side with hi and lo passes. */
const sequence = (pHi: number, pLo: number, n: number, hi: number, lo: number): number => pHi ** hi * (1 - pHi) ** (n - hi) * pLo ** lo * (1 - pLo) ** (n - lo);

class Frontier {
  readonly looks: number[];
  private readonly verdicts = new Map<string, 'significant' | 'stopped' | 'open'>();
  private readonly noiseMass = new Map<string, number>();

  constructor(
    readonly design: CaseDesign,
    noise: readonly { readonly weight: number; readonly p: number }[],
  ) {
    this.looks = looksOf(design.trialsPerSide, design.interims);
    for (const n of this.looks) {
      for (let hi = 0; hi <= n; hi += 1) {
        for (let lo = 0; lo <= n; lo += 1) {
          const kind = judgeLook({ ...design, futility: 0 }, hi, lo, n, []).kind;
          this.verdicts.set(`${n}:${hi}:${lo}`, kind === 'significant' ? 'significant' : kind === 'continue' && n < design.trialsPerSide ? 'open' : 'stopped');
          this.noiseMass.set(`${n}:${hi}:${lo}`, noise.reduce((sum, h) => sum + h.weight * sequence(h.p, h.p, n, hi, lo), 0));
        }
      }
    }
  }

  private verdict = (n: number, hi: number, lo: number) => this.verdicts.get(`${n}:${hi}:${lo}`) as 'significant' | 'stopped' | 'open';
  private mass = (n: number, hi: number, lo: number) => this.noiseMass.get(`${n}:${hi}:${lo}`) as number;

  /** Expected noise runs (both sides) and each break's chance of being named, under a rule. */
  measure(rule: Rule): { readonly runs: number; readonly power: number[] } {
    let paths = new Map<string, number>([['0:0', 1]]);
    let n = 0;
    let runs = 0;
    const power = BREAKS.map(() => 0);
    for (const look of this.looks) {
      const step = look - n;
      const next = new Map<string, number>();
      for (const [key, count] of paths) {
        const [hi, lo] = key.split(':').map(Number) as [number, number];
        runs += count * (n === 0 ? 1 : this.mass(n, hi, lo)) * 2 * step;
        for (let x = 0; x <= step; x += 1) for (let y = 0; y <= step; y += 1) next.set(`${hi + x}:${lo + y}`, (next.get(`${hi + x}:${lo + y}`) ?? 0) + count * choose(step, x) * choose(step, y));
      }
      n = look;
      paths = new Map();
      for (const [key, count] of next) {
        const [hi, lo] = key.split(':').map(Number) as [number, number];
        const verdict = this.verdict(n, hi, lo);
        if (verdict === 'significant') BREAKS.forEach((b, i) => (power[i] = (power[i] as number) + count * sequence(b.pHi, b.pLo, n, hi, lo)));
        else if (verdict === 'open' && rule(n, hi, lo)) paths.set(key, count);
      }
    }
    return { runs, power };
  }

  /** V(μ) and the rule that attains it: the least noise runs + Σ μ·(chance missed), stopping allowed at every look. */
  cheapest(prices: readonly number[]): { readonly value: number; readonly rule: Rule } {
    const value = new Map<string, number>();
    const stops = new Set<string>();
    const missed = (n: number, hi: number, lo: number) => BREAKS.reduce((sum, b, i) => sum + (prices[i] as number) * sequence(b.pHi, b.pLo, n, hi, lo), 0);
    for (let at = this.looks.length - 1; at >= 0; at -= 1) {
      const n = this.looks[at] as number;
      for (let hi = 0; hi <= n; hi += 1) {
        for (let lo = 0; lo <= n; lo += 1) {
          const verdict = this.verdict(n, hi, lo);
          let v = verdict === 'significant' ? 0 : missed(n, hi, lo);
          if (verdict === 'open') {
            const step = (this.looks[at + 1] as number) - n;
            let goOn = this.mass(n, hi, lo) * 2 * step;
            for (let x = 0; x <= step; x += 1) for (let y = 0; y <= step; y += 1) goOn += choose(step, x) * choose(step, y) * (value.get(`${at + 1}:${hi + x}:${lo + y}`) as number);
            if (goOn <= v) v = goOn;
            else stops.add(`${n}:${hi}:${lo}`);
          }
          value.set(`${at}:${hi}:${lo}`, v);
        }
      }
    }
    const first = this.looks[0] as number;
    let total = 2 * first;
    for (let x = 0; x <= first; x += 1) for (let y = 0; y <= first; y += 1) total += choose(first, x) * choose(first, y) * (value.get(`0:${x}:${y}`) as number);
    return { value: total, rule: (n, hi, lo) => !stops.has(`${n}:${hi}:${lo}`) };
  }

  /** The least noise runs of any rule that names each break with at least the given chance (a lower bound, by duality). */
  leastRuns(power: readonly number[]): number {
    let best = 0;
    for (const a of PRICES) {
      for (const b of PRICES) {
        const prices = [a, b];
        best = Math.max(best, this.cheapest(prices).value - prices.reduce((sum, mu, i) => sum + mu * (1 - (power[i] as number)), 0));
      }
    }
    return best;
  }
}

const PRICES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 70, 100, 150, 250];
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
    const frontier = new Frontier(design, noise);
    const own = frontier.measure((n, hi, lo) => judgeLook(design, hi, lo, n, []).kind === 'continue');
    const atOwn = frontier.leastRuns(own.power);
    const atTargets = frontier.leastRuns(BREAKS.map((b) => b.needed));
    console.log(
      `| ${mixName} | ${unanimous ? '3 of 3' : '2 of 3'} | ${trialsPerSide} | ${own.runs.toFixed(2)} | ${(own.power[0] as number).toFixed(3)} | ${(own.power[1] as number).toFixed(3)} | ${atOwn.toFixed(2)} | ${atTargets.toFixed(2)} |`,
    );
  }
}
