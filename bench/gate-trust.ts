// How far the release gate can be trusted on a noisy agent, measured, not assumed.
//
//   npx tsx bench/gate-trust.ts [--pairs 400] [--seed N] [--cases 50,500] [--mixes first,half,beta,tau] [--futility F] [--cells 'A/A;one case .9 → 0;…']
//        [--sections standard,moments,mature] [--moment-pairs P] [--moment-cases 50,500] [--concurrencies 1,2,3,16] [--mature-cases 200]
//
// Simulates stochastic agents in-process and sends every simulated pair through the gate's own
// code (screening against the baseline's stored records, the confirmation planner asking for
// fresh trials of both versions, weighted Holm, the paired test on fresh pairs, the decision),
// with the default config and one trial per case. Per mix and N it prints each cell with its
// rate, a Wilson 95% interval and its target:
//   - an unchanged candidate rejected (A/A), with no drift and with every case's pass chance
//     shifted by -0.2, -0.1, +0.1 and +0.2 between the baseline's records and the candidate's run;
//   - single and several breaks, hard and soft, detected (the gate rejects); three breaks also
//     named exactly;
//   - three fixes with an intent accepted;
//   - agent runs per decision (the candidate's screen plus every fresh trial, both sides; the
//     baseline's records are taken once per release and not counted) over N: median and p95,
//     per cell, and per mix and N over the decisions of all its cells, each cell weighing alike
//     (the lines at the end also name the cells whose own median or p95 is over the target);
//   - moments of drift: an unchanged candidate when every pass chance moves by ±0.2 before the
//     screen, where one side's block of the first round would end, inside a round or between
//     rounds, and when an outage fails every case-trial for half a round, at concurrency 1, 2, 3
//     and 16 (the fresh trials run through the pipeline's paired turns);
//   - the mature mix (N = 200: 85% of cases pass .97, 10% .7, 5% .2): A/A and its cost, one case
//     .97 → .5 caught, three cases .97 → .6 rejected and all three named.
// Fresh randomness every run (the seed is printed, so a run can be repeated).
import { randomInt } from 'node:crypto';
import { configSchema } from '../src/config/schema.ts';
import { judgeLook } from '../src/stages/gate/case-design.ts';
import type { ComparePolicy } from '../src/stages/gate/compare.ts';
import { designCase, UNANIMOUS_WEIGHT } from '../src/stages/gate/confirmation.ts';
import { sequentialPower } from '../src/stages/gate/power.ts';
import { splitAlpha } from '../src/stages/gate/significance.ts';
import { Frontier } from './lib/futility-frontier.ts';
import { CONCURRENCIES, MATURE_SCENARIOS, momentScenarios, SCENARIOS, simulatePair, type PairResult, type Scenario } from './lib/gate-simulation.ts';
import { BETA_MIX, FIRST_MIX, HALF_MIX, MATURE_MIX, seededRandom, TAU_MIX, wilson, type Mix } from './lib/simulated-agent.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] as string) : fallback;
};
const PAIRS = Number(option('pairs', '400'));
const SEED = Number(option('seed', String(randomInt(2 ** 31))));
const SIZES = option('cases', '50,500').split(',').map(Number);
const MIXES: Record<string, Mix> = { first: FIRST_MIX, half: HALF_MIX, beta: BETA_MIX, tau: TAU_MIX };
const mixNames = option('mixes', 'first,half,beta,tau').split(',');
const CELLS = option('cells', '').split(';').filter(Boolean);
const SECTIONS = option('sections', 'standard,moments,mature').split(',');
const MOMENT_PAIRS = Number(option('moment-pairs', String(PAIRS)));
const MOMENT_SIZES = option('moment-cases', option('cases', '50,500')).split(',').map(Number);
const CONCURRENCY = option('concurrencies', CONCURRENCIES.join(',')).split(',').map(Number);
const MATURE_CASES = Number(option('mature-cases', '200'));
const unknown = [
  ...mixNames.filter((name) => !(name in MIXES)).map((name) => `--mixes: no mix "${name}" (known: ${Object.keys(MIXES).join(', ')})`),
  ...SECTIONS.filter((name) => !['standard', 'moments', 'mature'].includes(name)).map((name) => `--sections: no section "${name}" (known: standard, moments, mature)`),
  ...CELLS.filter((cell) => !SCENARIOS.some((s) => s.name === cell)).map((cell) => `--cells: no cell "${cell}" (known: ${SCENARIOS.map((s) => `'${s.name}'`).join('; ')})`),
];
if (unknown.length > 0) {
  console.error(unknown.join('\n'));
  process.exit(2);
}
const mixes = mixNames.map((name) => MIXES[name] as Mix);
const random = seededRandom(SEED);

const defaults = configSchema.parse({ blueprint: 'bench', task: 'bench' }).gate;
const policy: ComparePolicy = {
  ...defaults,
  futility: Number(option('futility', String(defaults.futility))),
  detectableDrop: Number(option('detectable-drop', String(defaults.detectableDrop))),
  maxConfirmTrials: Number(option('max-confirm-trials', String(defaults.maxConfirmTrials))),
};
const ALPHA = policy.alpha;

/** What each cell must reach: A/A at most alpha (no interval's lower bound above it), the others at least their share. */
const TARGETS: Record<string, { readonly at: 'most' | 'least'; readonly rate: number }> = {
  'A/A': { at: 'most', rate: ALPHA },
  'one case .9 → 0': { at: 'least', rate: 0.93 },
  'one case .75 → 0': { at: 'least', rate: 0.75 },
  'one case .9 → .2': { at: 'least', rate: 0.6 },
  'three cases .9 → 0': { at: 'least', rate: 0.99 },
  'five cases .9 → .5': { at: 'least', rate: 0.4 },
  'three cases .2 → .8, with an intent': { at: 'least', rate: 0.8 },
};
const NAMED_EXACTLY = 0.8;
const COST = { median: 2.7, p95: 4 };

const target = (scenario: Scenario) => TARGETS[scenario.name.startsWith('A/A') ? 'A/A' : scenario.name] as { at: 'most' | 'least'; rate: number };
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const rateText = (hits: number, n: number): string => {
  const { low, high } = wilson(hits, n);
  return `${pct(hits / n)} [${pct(low)}, ${pct(high)}]`;
};
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

console.log(
  `gate-trust: ${PAIRS} simulated pairs per cell, seed ${SEED}; default config, 1 trial per case: alpha ${policy.alpha}, ${policy.baselineRecords} baseline records, ` +
    `maxConfirmTrials ${policy.maxConfirmTrials}, detectableDrop ${policy.detectableDrop}, futility ${policy.futility}`,
);
console.log('rate = share of pairs where the gate did what the cell names (rejected; for the fix cell, accepted), with a Wilson 95% interval');
console.log('runs/N = agent runs per decision over N (the candidate screen and every fresh trial, both sides), median and p95\n');
const header = ['mix', 'N', 'cell', 'rate [95% CI]', 'target', 'held', 'named exactly', 'runs/N median', 'runs/N p95'];
console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
const misses: string[] = [];
const costMisses: string[] = [];
const pooledCosts: string[] = [];
const pooledMisses: string[] = [];
const costlyCells: string[] = [];
for (const mix of SECTIONS.includes('standard') ? mixes : []) {
  for (const cases of SIZES) {
    const costs: number[] = [];
    const everyDecision: number[] = [];
    for (const scenario of SCENARIOS.filter((s) => CELLS.length === 0 || CELLS.includes(s.name))) {
      const results: PairResult[] = [];
      for (let i = 0; i < PAIRS; i += 1) results.push(await simulatePair({ mix, cases, scenario, policy, trials: 1, random }));
      const hits = results.filter((r) => (scenario.intent ? r.verdict === 'accept' : r.verdict === 'reject')).length;
      const goal = target(scenario);
      const { low } = wilson(hits, PAIRS);
      const rate = hits / PAIRS;
      const held = goal.at === 'most' ? low <= goal.rate : rate >= goal.rate;
      const exact = scenario.name === 'three cases .9 → 0' ? results.filter((r) => r.namedExactly).length : null;
      const exactHeld = exact === null || exact / PAIRS >= NAMED_EXACTLY;
      if (!held || !exactHeld) misses.push(`${mix.name}, N = ${cases}, ${scenario.name}`);
      const runs = results.map((r) => r.runsPerCase);
      if (scenario.changes.length === 0 && scenario.shift === 0) costs.push(...runs);
      everyDecision.push(...runs);
      if (mix !== HALF_MIX && (quantile(runs, 0.5) > COST.median || quantile(runs, 0.95) > COST.p95)) costlyCells.push(`${mix.name}, N = ${cases}, ${scenario.name}`);
      console.log(
        `| ${mix.name} | ${cases} | ${scenario.name} | ${rateText(hits, PAIRS)} | ${goal.at === 'most' ? '≤' : '≥'} ${pct(goal.rate)} | ${held && exactHeld ? 'yes' : 'NO'} | ` +
          `${exact === null ? '' : `${rateText(exact, PAIRS)} (≥ ${pct(NAMED_EXACTLY)})`} | ${quantile(runs, 0.5).toFixed(2)} | ${quantile(runs, 0.95).toFixed(2)} |`,
      );
    }
    if (mix !== HALF_MIX && (quantile(costs, 0.5) > COST.median || quantile(costs, 0.95) > COST.p95)) costMisses.push(`${mix.name}, N = ${cases}`);
    const pooled = { median: quantile(everyDecision, 0.5), p95: quantile(everyDecision, 0.95) };
    pooledCosts.push(`${mix.name}, N = ${cases}: median ${pooled.median.toFixed(2)}, p95 ${pooled.p95.toFixed(2)}`);
    if (mix !== HALF_MIX && (pooled.median > COST.median || pooled.p95 > COST.p95)) pooledMisses.push(`${mix.name}, N = ${cases}`);
  }
}

// A provider change that lands at any moment of the gate, at every concurrency: the round's
// fresh trials run as pairs (pipeline/gate/paired-turns.ts), so it lands on both sides alike.
if (SECTIONS.includes('moments')) {
  console.log(`\nmoments of drift: ${MOMENT_PAIRS} pairs per cell; A/A rejected (target ≤ ${pct(ALPHA)}: no interval's lower bound above it)\n`);
  console.log('| mix | N | cell | rate [95% CI] | target | held |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const mix of mixes) {
    for (const cases of MOMENT_SIZES) {
      for (const scenario of momentScenarios(CONCURRENCY)) {
        let hits = 0;
        for (let i = 0; i < MOMENT_PAIRS; i += 1) if ((await simulatePair({ mix, cases, scenario, policy, trials: 1, random })).verdict === 'reject') hits += 1;
        const held = wilson(hits, MOMENT_PAIRS).low <= ALPHA;
        if (!held) misses.push(`${mix.name}, N = ${cases}, ${scenario.name}`);
        console.log(`| ${mix.name} | ${cases} | ${scenario.name} | ${rateText(hits, MOMENT_PAIRS)} | ≤ ${pct(ALPHA)} | ${held ? 'yes' : 'NO'} |`);
      }
    }
  }
}

// A mature agent: most cases pass 97% of the time, and a soft regression of one of them is what
// users fear most.
const MATURE_TARGETS: Record<string, { readonly rate: number; readonly allNamed?: number }> = {
  'one case .97 → .5': { rate: 0.6 },
  'three cases .97 → .6': { rate: 0.7, allNamed: 0.3 },
};
const MATURE_COST = 2.5;
let matureCost: number | null = null;
if (SECTIONS.includes('mature')) {
  console.log(`\nthe mature mix (${MATURE_MIX.name}), N = ${MATURE_CASES}: ${PAIRS} pairs per cell\n`);
  console.log('| cell | rate [95% CI] | target | all changed cases named [95% CI] | target | held | runs/N median | runs/N p95 |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const fates: string[] = [];
  const breakdown = (all: readonly string[]): string => {
    const counts = new Map<string, number>();
    for (const fate of all) counts.set(fate, (counts.get(fate) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1]).map(([fate, n]) => `${fate} ${pct(n / all.length)}`).join(', ');
  };
  for (const scenario of MATURE_SCENARIOS) {
    const results: PairResult[] = [];
    for (let i = 0; i < PAIRS; i += 1) results.push(await simulatePair({ mix: MATURE_MIX, cases: MATURE_CASES, scenario, policy, trials: 1, random }));
    const hits = results.filter((r) => r.verdict === 'reject').length;
    const goal = MATURE_TARGETS[scenario.name];
    const changed = scenario.changes.length;
    const allNamed = changed > 1 ? results.filter((r) => r.namedDropped === changed).length : null;
    const runs = results.map((r) => r.runsPerCase);
    const rateHeld = goal ? hits / PAIRS >= goal.rate : wilson(hits, PAIRS).low <= ALPHA;
    const namedHeld = allNamed === null || goal?.allNamed === undefined || allNamed / PAIRS >= goal.allNamed;
    const costHeld = changed > 0 || quantile(runs, 0.5) <= MATURE_COST;
    const held = rateHeld && namedHeld && costHeld;
    if (!held) misses.push(`mature mix, N = ${MATURE_CASES}, ${scenario.name}${costHeld ? '' : ` (cost: median over ${MATURE_COST}×N)`}`);
    console.log(
      `| ${scenario.name} | ${rateText(hits, PAIRS)} | ${goal ? `≥ ${pct(goal.rate)}` : `≤ ${pct(ALPHA)}`} | ${allNamed === null ? '' : rateText(allNamed, PAIRS)} | ` +
        `${goal?.allNamed === undefined ? (changed === 0 ? `cost median ≤ ${MATURE_COST}×N` : '') : `≥ ${pct(goal.allNamed)}`} | ${held ? 'yes' : 'NO'} | ${quantile(runs, 0.5).toFixed(2)} | ${quantile(runs, 0.95).toFixed(2)} |`,
    );
    if (changed === 0) matureCost = quantile(runs, 0.5);
    if (changed > 0) fates.push(`${scenario.name}: ${breakdown(results.flatMap((r) => r.droppedFates))}`);
  }
  // Where the changed cases are lost: not selected by the screen, or stopped or not confirmed in confirmation.
  console.log(`\nwhat became of each changed case (share of changed cases):\n${fates.map((f) => `  ${f}`).join('\n')}`);
}

// What any design that selects by screen failures can reach, whatever its confirmation: a changed
// case is caught or named only if selected, and it is selected only if the candidate failed one of
// its screen looks (L looks where every record passed, one where one did not). The cost of the
// looks alone, before any confirmation, is N × the expected looks a case (exact for this mix).
if (SECTIONS.includes('mature')) {
  const unanimous = (p: number) => p ** policy.baselineRecords;
  const MATURE_CHANCES = [
    [0.85, 0.97],
    [0.1, 0.7],
    [0.05, 0.2],
  ] as const;
  console.log('\nbound: selection caps by screen looks on the mature mix (no confirmation can do better; the cost is the looks alone)');
  console.log('| looks | screen runs/N | one case .97 → .5 selected at most | all three .97 → .6 selected at most |');
  console.log('| --- | --- | --- | --- |');
  for (let looks = 1; looks <= 4; looks += 1) {
    const runs = MATURE_CHANCES.reduce((sum, [share, p]) => sum + share * (1 + unanimous(p) * Array.from({ length: looks - 1 }, (_, l) => p ** (l + 1)).reduce((a, b) => a + b, 0)), 0);
    const selected = (after: number) => unanimous(0.97) * (1 - after ** looks) + (1 - unanimous(0.97)) * (1 - after);
    console.log(`| ${looks} | ${runs.toFixed(2)} | ${pct(selected(0.5))} | ${pct(selected(0.6) ** 3)} |`);
  }

  // What any futility rule can reach once the break is selected, with the gate's own design of the
  // class that holds it (a possible regression every record passed, on a mature agent: its K, early
  // looks and curtailment, at the level such a case gets from the family's expected weight with two
  // looks). Noise is that class's expected selected cases, each at its own pass chance on both sides.
  // Any futility rule that names the break with chance P spends at least the frontier's figure on
  // each noise case (bench/lib/futility-frontier.ts), so reaching the target's P costs at least
  // the difference to the gate's own rule on every such case, over the gate's measured cost.
  const fails = (p: number) => 1 - p ** 2;
  const noiseUnanimous = MATURE_CASES * MATURE_CHANCES.reduce((sum, [share, p]) => sum + share * unanimous(p) * fails(p), 0);
  const noiseOther = MATURE_CASES * MATURE_CHANCES.reduce((sum, [share, p]) => sum + share * 3 * p ** 2 * (1 - p) * (1 - p), 0);
  const bar = (splitAlpha(ALPHA).regression * UNANIMOUS_WEIGHT) / (UNANIMOUS_WEIGHT * (noiseUnanimous + 1) + noiseOther);
  const design = designCase({ caseId: 'case', direction: 'regression', weight: UNANIMOUS_WEIGHT, bar, baseline: { passes: 3, graded: 3 }, mature: true }, policy).design;
  const noise = MATURE_CHANCES.map(([share, p]) => ({ weight: (MATURE_CASES * share * unanimous(p) * fails(p)) / noiseUnanimous, p }));
  const frontier = new Frontier(design, noise, [{ name: '.97 → .5', pHi: 0.97, pLo: 0.5 }]);
  const own = frontier.measure((n, hi, lo) => judgeLook(design, hi, lo, n, []).kind === 'continue');
  const needed = (MATURE_TARGETS['one case .97 → .5']?.rate ?? 0) / (unanimous(0.97) * (1 - 0.5 ** 2) + (1 - unanimous(0.97)) * 0.5);
  const least = frontier.leastRuns([needed]);
  const floor = matureCost === null ? null : matureCost + (noiseUnanimous * Math.max(0, least - own.runs)) / MATURE_CASES;
  console.log(
    `\nbound: confirmation of a possible regression every record passed (about ${noiseUnanimous.toFixed(1)} noise cases a gate, level ${bar.toPrecision(3)}, K ${design.trialsPerSide}, futility ${design.futility})`,
  );
  console.log("| the gate's rule: runs a noise case | power .97 → .5 | power .97 → .6 | least any futility rule spends at the gate's power | power the target needs once selected (2 looks) | least any futility rule spends at it (this K and level) | cost of an unchanged candidate at that power, at least |");
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${own.runs.toFixed(2)} | ${pct(own.power[0] as number)} | ${pct(sequentialPower(design, 0.97, 0.6))} | ${frontier.leastRuns(own.power).toFixed(2)} | ${pct(needed)} | ${least.toFixed(2)} | ` +
      `${floor === null ? 'n/a (A/A not run)' : `${floor.toFixed(2)}×N (the measured median ${matureCost?.toFixed(2)} + ${noiseUnanimous.toFixed(1)} × ${(least - own.runs).toFixed(2)} runs / N)`} |`,
  );
}

console.log(`\nrate targets: ${misses.length === 0 ? 'every cell held' : `missed in ${misses.length} cells: ${misses.join('; ')}`}`);
// The cost targets bind the mixes other than all p = 0.5; with only that one, there is nothing to hold.
const costBound = mixes.some((m) => m !== HALF_MIX);
const costVerdict = (missed: readonly string[]): string => (!costBound ? 'not measured (only all p = 0.5 ran)' : missed.length === 0 ? 'held' : `missed for ${missed.join('; ')}`);
console.log(`cost of an unchanged candidate (median ≤ ${COST.median}×N, p95 ≤ ${COST.p95}×N, mixes other than all p = 0.5): ${costVerdict(costMisses)}`);
console.log(`cost per decision over every cell of a mix, each cell's pairs weighing alike: ${pooledCosts.join('; ')}`);
console.log(`  (median ≤ ${COST.median}×N, p95 ≤ ${COST.p95}×N, mixes other than all p = 0.5): ${costVerdict(pooledMisses)}`);
console.log(`cells whose own median or p95 is over (mixes other than all p = 0.5): ${costlyCells.length === 0 ? 'none' : costlyCells.join('; ')}`);
