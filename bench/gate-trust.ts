// How far the release gate can be trusted on a noisy agent, measured, not assumed.
//
//   npx tsx bench/gate-trust.ts [--pairs 500] [--seed N]
//
// Simulates stochastic agents in-process and sends every simulated pair through the gate's own
// code (screening, the confirmation planner asking for fresh trials, Holm, the paired test, the
// decision), with the default config. Per setting it prints:
//   - the A/A false-rejection rate (an unchanged candidate rejected) with a Wilson 95% interval,
//     next to the paper-faithful `flips` policy's rate on the same screening runs;
//   - power against d = 1, 3, 5, 10 always-passing cases turned always-failing, and against a
//     0.2 drop in pass chance on 30% of the cases;
//   - how often exactly the injected cases are named as regressions;
//   - agent runs per decision (the candidate's run plus confirmation, both sides; the baseline's
//     records are reused) as a multiple of N, median and 90th percentile.
// Fresh randomness every run (the seed is printed, so a run can be repeated).
import { randomInt } from 'node:crypto';
import { configSchema } from '../src/config/schema.ts';
import { summarizeCases } from '../src/domain/case-summary.ts';
import { compareRuns, gateCandidateRuns, type ComparePolicy } from '../src/stages/gate/compare.ts';
import { caseId, drawAgent, FIRST_MIX, MIDDLE_MIX, sampleRecords, seededRandom, wilson, type Mix } from './lib/simulated-agent.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const PAIRS = option('pairs', 500);
const SEED = option('seed', randomInt(2 ** 31));
const random = seededRandom(SEED);

const defaults: ComparePolicy = configSchema.parse({ blueprint: 'bench', task: 'bench' }).gate;

type Scenario = { readonly name: string; readonly inject: (p: number[]) => { q: number[]; injected: Set<number> } | null };

function pick(indices: number[], count: number): number[] {
  const pool = [...indices];
  for (let i = pool.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as number, pool[i] as number];
  }
  return pool.slice(0, count);
}

const breakAlwaysPassing = (d: number): Scenario => ({
  name: `d=${d}`,
  inject: (p) => {
    const always = p.flatMap((chance, i) => (chance === 1 ? [i] : []));
    if (always.length < d) return null;
    const injected = new Set(pick(always, d));
    return { q: p.map((chance, i) => (injected.has(i) ? 0 : chance)), injected };
  },
});

const SCENARIOS: Scenario[] = [
  { name: 'A/A', inject: (p) => ({ q: [...p], injected: new Set() }) },
  breakAlwaysPassing(1),
  breakAlwaysPassing(3),
  breakAlwaysPassing(5),
  breakAlwaysPassing(10),
  {
    name: '-0.2 on 30%',
    inject: (p) => {
      const eligible = p.flatMap((chance, i) => (chance >= 0.2 ? [i] : []));
      const count = Math.round(0.3 * p.length);
      if (eligible.length < count) return null;
      const injected = new Set(pick(eligible, count));
      return { q: p.map((chance, i) => (injected.has(i) ? chance - 0.2 : chance)), injected };
    },
  },
];

interface PairResult {
  readonly rejected: boolean;
  readonly flipsRejected: boolean;
  readonly exact: boolean;
  readonly runs: number;
}

async function pair(mix: Mix, cases: number, trials: number, scenario: Scenario): Promise<PairResult> {
  for (;;) {
    const p = drawAgent(mix, cases, random);
    const injection = scenario.inject(p);
    if (!injection) continue; // too few eligible cases in this draw: draw the agent again
    const ids = p.map((_, i) => caseId(i));
    const chances = { baseline: new Map(ids.map((id, i) => [id, p[i] as number])), candidate: new Map(ids.map((id, i) => [id, injection.q[i] as number])) };
    const baseline = summarizeCases(sampleRecords(chances.baseline, ids, trials, 0, random));
    const candidate = summarizeCases(sampleRecords(chances.candidate, ids, trials, 0, random));
    const next = new Map<string, number>();
    const gated = await gateCandidateRuns(
      { baseline, candidate, policy: defaults, noise: { variedCases: 0 }, intent: null, screeningTrials: trials },
      {
        runner: async (request) => {
          const out = [];
          for (const id of request.caseIds) {
            const key = `${request.side}:${id}`;
            const first = next.get(key) ?? trials;
            next.set(key, first + request.trials);
            out.push(...sampleRecords(chances[request.side], [id], request.trials, first, random));
          }
          return summarizeCases(out);
        },
      },
    );
    const flips = compareRuns({ baseline, candidate, policy: { ...defaults, policy: 'flips' }, noise: { variedCases: 0 }, intent: null });
    const injected = [...injection.injected].map((i) => caseId(i)).sort();
    const named = [...gated.decision.p2f].sort();
    return {
      rejected: gated.decision.verdict === 'reject',
      flipsRejected: flips.decision.verdict === 'reject',
      exact: injected.length === named.length && injected.every((id, i) => named[i] === id),
      runs: cases * trials + gated.confirmationTrials.baseline + gated.confirmationTrials.candidate,
    };
  }
}

const pctText = (x: number): string => `${(100 * x).toFixed(1)}%`;
const rateText = (hits: number, n: number): string => {
  const { low, high } = wilson(hits, n);
  return `${pctText(hits / n)} [${pctText(low)}, ${pctText(high)}]`;
};
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

console.log(`gate-trust: ${PAIRS} simulated pairs per cell, seed ${SEED}; default config (policy "${defaults.policy}", alpha ${defaults.alpha}, maxConfirmTrials ${defaults.maxConfirmTrials})`);
console.log('rates are shares of pairs with a Wilson 95% interval; runs = agent runs per decision / N (candidate run + confirmation), median and 90th percentile\n');
const header = ['mix', 'N', 'trials', 'scenario', 'rejected', 'flips policy rejected', 'named exactly the injected', 'runs/N median', 'runs/N p90'];
console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
let worstUpper = 0;
for (const mix of [FIRST_MIX, MIDDLE_MIX]) {
  for (const cases of [50, 200]) {
    for (const trials of [1, 2, 4]) {
      for (const scenario of SCENARIOS) {
        const results: PairResult[] = [];
        for (let i = 0; i < PAIRS; i += 1) results.push(await pair(mix, cases, trials, scenario));
        const rejected = results.filter((r) => r.rejected).length;
        const aa = scenario.name === 'A/A';
        if (aa) worstUpper = Math.max(worstUpper, wilson(rejected, PAIRS).high);
        const runs = results.map((r) => r.runs / cases);
        console.log(
          `| ${mix.name} | ${cases} | ${trials} | ${scenario.name} | ${rateText(rejected, PAIRS)} | ${aa ? rateText(results.filter((r) => r.flipsRejected).length, PAIRS) : ''} | ${aa || scenario.name.startsWith('-') ? '' : rateText(results.filter((r) => r.exact).length, PAIRS)} | ${quantile(runs, 0.5).toFixed(2)} | ${quantile(runs, 0.9).toFixed(2)} |`,
        );
      }
    }
  }
}
console.log(`\nsummary: the highest upper bound of the A/A false-rejection interval over all settings is ${pctText(worstUpper)} (target: at most 7%, at alpha ${defaults.alpha})`);
