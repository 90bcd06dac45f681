// The least any futility rule can spend on noise for the power it keeps, computed exactly for one
// case of a family with a given design (K, early looks, curtailment of stages/gate/case-design.ts).
// Shared by bench/futility-frontier.ts and the mature section of bench/gate-trust.ts.
//
// A futility rule chooses, at each look and each pair of pass counts, between stopping the case
// and going on. Stopping only ever lowers the chance of naming the case, so every such rule keeps
// the error rate. For prices μ on missing each break, backward induction over the looks gives
// V(μ), the least expected "noise runs + Σ μ·(chance the break is missed)" of any rule, randomised
// rules included. Any rule that names the breaks with chances at least P therefore spends at least
// V(μ) − Σ μ·(1 − P) runs on noise, for every μ: the largest such figure is a lower bound.
import { judgeLook, looksOf, type CaseDesign } from '../../src/stages/gate/case-design.ts';

export interface Break {
  readonly name: string;
  readonly pHi: number;
  readonly pLo: number;
}
/** A futility rule: at n fresh trials a side with hi and lo passes, whether an open case goes on (false: it stops). */
export type Rule = (n: number, hi: number, lo: number) => boolean;

const choose = (n: number, k: number): number => {
  let r = 1;
  for (let i = 0; i < k; i += 1) r = (r * (n - i)) / (i + 1);
  return r;
};
/** The chance of one sequence of n trials a side with hi and lo passes. */
const sequence = (pHi: number, pLo: number, n: number, hi: number, lo: number): number => pHi ** hi * (1 - pHi) ** (n - hi) * pLo ** lo * (1 - pLo) ** (n - lo);

export const PRICES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 70, 100, 150, 250];

export class Frontier {
  readonly looks: number[];
  private readonly verdicts = new Map<string, 'significant' | 'stopped' | 'open'>();
  private readonly noiseMass = new Map<string, number>();

  constructor(
    readonly design: CaseDesign,
    noise: readonly { readonly weight: number; readonly p: number }[],
    readonly breaks: readonly Break[],
    readonly prices: readonly number[] = PRICES,
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
    const power = this.breaks.map(() => 0);
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
        if (verdict === 'significant') this.breaks.forEach((b, i) => (power[i] = (power[i] as number) + count * sequence(b.pHi, b.pLo, n, hi, lo)));
        else if (verdict === 'open' && rule(n, hi, lo)) paths.set(key, count);
      }
    }
    return { runs, power };
  }

  /** V(μ) and the rule that attains it: the least noise runs + Σ μ·(chance missed), stopping allowed at every look. */
  cheapest(prices: readonly number[]): { readonly value: number; readonly rule: Rule } {
    const value = new Map<string, number>();
    const stops = new Set<string>();
    const missed = (n: number, hi: number, lo: number) => this.breaks.reduce((sum, b, i) => sum + (prices[i] as number) * sequence(b.pHi, b.pLo, n, hi, lo), 0);
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
    const grid = (depth: number): number[][] => (depth === 0 ? [[]] : grid(depth - 1).flatMap((rest) => this.prices.map((mu) => [...rest, mu])));
    for (const prices of grid(this.breaks.length)) {
      best = Math.max(best, this.cheapest(prices).value - prices.reduce((sum, mu, i) => sum + mu * (1 - (power[i] as number)), 0));
    }
    return best;
  }
}
