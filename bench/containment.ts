// What containing a `command` agent costs, old chain against new, in CPU over the whole process
// tree (children's rusage included: every process of the tree is reaped before it is counted).
//   chain:  the launch chain alone: a spawner (as a `command` run uses at concurrency 8) starts
//           `sh` agents, 8 in flight, contained as untrusted.ts does, by the shell chain (`sh`
//           for the memory limit, `unshare`, an init `sh`) and by the containment launcher.
//           CPU of this process and of its reaped children (the spawner, the chains, the
//           agents), per case: the difference between a small and a large batch, so the
//           spawner's start cancels out.
//   run:    `agentdevel run` of the `sh` echo agent at concurrency 8 (bench/lib/scale-workspace),
//           CPU from GNU time (agentdevel and all it reaped), per case between a small and a
//           large run. The shell chain is what a machine without a C compiler gets: the run is
//           given CC=/nonexistent and an empty cache folder, so no launcher can be built.
//           With promptfoo installed (bench/lib/promptfoo.ts, `--promptfoo`), its exec provider
//           on the same `sh` agent, in the same repeats.
// Old and new alternate within each repeat; each figure is the median of the repeats, with the
// load average before and after beside it.
// Run: npx tsx bench/containment.ts [--part chain|run|all] [--small 200] [--large 2000] [--repeats 3] [--promptfoo]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLineRunner } from '../src/adapters/process/spawner.ts';
import { containmentReport, untrustedCommand, type LaunchChain } from '../src/adapters/process/untrusted.ts';
import { agentdevel, load, median } from './lib/measure.ts';
import { installPromptfoo, promptfooVersion, runPromptfooExec } from './lib/promptfoo.ts';
import { writeScaleWorkspace } from './lib/scale-workspace.ts';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    small: { type: 'string', default: '200' },
    large: { type: 'string', default: '2000' },
    repeats: { type: 'string', default: '3' },
    promptfoo: { type: 'boolean', default: false },
  },
});
const small = Number(values.small);
const large = Number(values.large);
const repeats = Number(values.repeats);
const CONCURRENCY = 8;
const CHAINS: readonly LaunchChain[] = ['shell', 'launcher'];
const ms = (x: number): string => `${x.toFixed(2)} ms`;

/** CPU of this process and of its reaped children, ms (/proc/self/stat: utime stime cutime cstime, in 10 ms ticks). */
function treeCpuMs(): number {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

const AGENT = ['sh', '-c', 'read -r line; printf \'{"type":"final","output":"echo %s"}\\n\' "$AGENTDEVEL_TRIAL"'];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };

/** CPU of `cases` contained `sh` agents started by one spawner, 8 in flight, the spawner's start and end included. */
async function chainBatch(chain: LaunchChain, cases: number): Promise<number> {
  const launch = await untrustedCommand(AGENT, 512, { parentEnv: env, passed: [] }, undefined, chain);
  const before = treeCpuMs();
  // As a command run does: the launcher serves as the spawner where it is used.
  const runner = startLineRunner(1, { launcher: launch.launcher });
  let next = 0;
  const lane = async () => {
    while (next < cases) {
      next += 1;
      const outcome = await runner.run({ ...launch, env: { PATH: env.PATH, AGENTDEVEL_TRIAL: '0' }, input: '{"id":"c"}\n', timeoutMs: 10_000 }, () => undefined);
      if (outcome.exitCode !== 0) throw new Error(`the agent failed (${chain}): exit ${outcome.exitCode}: ${outcome.stderr.slice(-300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  await runner.close();
  return treeCpuMs() - before;
}

async function chainPart(): Promise<void> {
  console.log(`launch chain: ${await containmentReport(env)}`);
  console.log(`launch chain: sh agents through one spawner, ${CONCURRENCY} in flight; CPU per case over the tree, ${small} → ${large} cases`);
  const per: Record<LaunchChain, number[]> = { shell: [], launcher: [] };
  for (let r = 1; r <= repeats; r += 1) {
    const before = load();
    const line: string[] = [];
    for (const chain of CHAINS) {
      const cost = ((await chainBatch(chain, large)) - (await chainBatch(chain, small))) / (large - small);
      per[chain].push(cost);
      line.push(`${chain} ${ms(cost)}`);
    }
    console.log(`  repeat ${r}: ${line.join(', ')}  (load ${before} → ${load()})`);
  }
  console.log(`summary: launch chain, CPU per case: shell chain ${ms(median(per.shell))}, launcher ${ms(median(per.launcher))} (medians of ${repeats})`);
}

/** CPU of one `agentdevel run` over `cases` fresh cases at concurrency 8. */
function agentdevelRun(chain: LaunchChain, cases: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-containment-'));
  // No compiler and an empty cache: the launcher cannot be built, the shell chain is used.
  const emptyCache = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-no-cache-'));
  const noLauncher = chain === 'shell' ? { CC: '/nonexistent/cc', XDG_CACHE_HOME: emptyCache } : {};
  try {
    writeScaleWorkspace(dir, { runtime: 'command', cases, concurrency: CONCURRENCY });
    const cost = agentdevel(['run', '-C', dir, '--json'], { env: noLauncher });
    const result = JSON.parse(cost.stdout || '{}') as { graded?: number; passed?: number };
    if (cost.code !== 0 || result.passed !== cases) throw new Error(`agentdevel run failed (exit ${cost.code}, ${result.passed}/${result.graded} passed): ${cost.stderr.slice(-500)}`);
    return cost.cpuMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(emptyCache, { recursive: true, force: true });
  }
}

function runPart(): void {
  const bin = values.promptfoo ? installPromptfoo() : null;
  console.log(`agentdevel run, sh echo agent, concurrency ${CONCURRENCY}; CPU per case over the tree (GNU time), ${small} → ${large} cases${bin ? `; promptfoo ${promptfooVersion(bin)}, exec provider, -j ${CONCURRENCY}` : '; promptfoo not run (--promptfoo)'}`);
  const per: Record<LaunchChain | 'promptfoo', number[]> = { shell: [], launcher: [], promptfoo: [] };
  for (let r = 1; r <= repeats; r += 1) {
    const before = load();
    const line: string[] = [];
    for (const chain of CHAINS) {
      const cost = (agentdevelRun(chain, large) - agentdevelRun(chain, small)) / (large - small);
      per[chain].push(cost);
      line.push(`${chain} ${ms(cost)}`);
    }
    if (bin) {
      const cost = (runPromptfooExec(bin, large, CONCURRENCY).cpuMs - runPromptfooExec(bin, small, CONCURRENCY).cpuMs) / (large - small);
      per.promptfoo.push(cost);
      line.push(`promptfoo exec ${ms(cost)}`);
    }
    console.log(`  repeat ${r}: ${line.join(', ')}  (load ${before} → ${load()})`);
  }
  const peer = bin ? `; promptfoo exec ${ms(median(per.promptfoo))}: launcher at ${(median(per.launcher) / median(per.promptfoo)).toFixed(2)}× of it` : '';
  console.log(`summary: agentdevel run, CPU per case: shell chain ${ms(median(per.shell))}, launcher ${ms(median(per.launcher))}${peer} (medians of ${repeats})`);
}

if (values.part === 'all' || values.part === 'chain') await chainPart();
if (values.part === 'all' || values.part === 'run') runPart();
