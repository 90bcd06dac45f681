// A gate that takes the baseline's screen again says why, in its output, --json, the summary and
// report.md: which part of the run's key differs from the run recorded for that version; and
// under gate.policy "flips", where the screen is the verdict, a recorded screen is taken again
// beside the candidate rather than read from an earlier run.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases } from '../helpers/workspace.ts';

const BP = 'support-agent';

/** The example with 12 train cases, one recorded run of its release, and a candidate branch `shorter` with a prompt edit. */
async function workspaceWithCandidate(config: (c: Record<string, unknown>) => void = () => {}): Promise<string> {
  const dir = await exampleWorkspace();
  keepTrainCases(dir, (_id, index) => index < 12);
  const configFile = path.join(dir, 'agentdevel.config.json');
  const edited = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config(edited);
  writeFileSync(configFile, `${JSON.stringify(edited, null, 2)}\n`);
  git(dir, 'commit', '-qam', '12 train cases');
  const run = await cliAsync(['run', '-C', dir]);
  expect(run.code, run.stderr).toBe(0);
  git(dir, 'checkout', '-q', '-b', 'shorter');
  const prompt = path.join(dir, `blueprints/${BP}/system.hbs`);
  writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nKeep replies short.\n`);
  git(dir, 'commit', '-qam', 'keep replies short');
  git(dir, 'checkout', '-q', 'main');
  return dir;
}

/** The escaped markdown of the summary and report.md, read as it renders. */
const rendered = (file: string) => readFileSync(file, 'utf8').replace(/\\([!-/:-@[-`{-~])/g, '$1');

function baselineRuns(dir: string): number {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    return Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE purpose = 'baseline'`)?.n);
  } finally {
    sql.close();
  }
}

describe('the baseline screen, taken again', () => {
  it('says which part of the key differs from the recorded run (trials changed), in the output, --json, the summary and the report', async () => {
    const dir = await workspaceWithCandidate();
    const summary = path.join(dir, '.agentdevel', 'summary.md');
    // A gate runs under the line's config (a checkout's edit is not its rule); --trials holds under any.
    const gated = await cliAsync(['gate', '--candidate', 'shorter', '--trials', '2', '--json', '--summary', summary, '-C', dir]);
    expect([0, 1], gated.stderr).toContain(gated.code);
    const result = JSON.parse(gated.stdout) as { baselineScreen: string; reports: string[] };
    const why = /3 run now \(72 case-trials\); run now because the recorded run of this version \(run run-\S+\) differs: trials 1 then, 2 now$/;
    expect(result.baselineScreen).toMatch(why);
    expect(rendered(summary)).toMatch(/run now because the recorded run of this version \(run run-\S+\) differs: trials 1 then, 2 now/);
    expect(rendered(String(result.reports.find((f) => f.endsWith('report.md'))))).toMatch(/\| Baseline screen \| .*run now because the recorded run of this version \(run run-\S+\) differs: trials 1 then, 2 now/);
    const plain = await cliAsync(['gate', '--candidate', 'shorter', '--trials', '2', '-C', dir]);
    // The same gate again reuses the screen it took: nothing to explain.
    expect(plain.stdout).toMatch(/baseline screen of main@\S+ \(initial\): 3 records, 3 reused from this store; no baseline case-trial ran/);
  }, 240_000);

  it('under gate.policy "flips" takes the screen again beside the candidate instead of reading a recorded one, and says why', async () => {
    const dir = await workspaceWithCandidate((config) => {
      (config.gate as Record<string, unknown>).policy = 'flips';
    });
    expect(baselineRuns(dir)).toBe(0);
    const gated = await cliAsync(['gate', '--candidate', 'shorter', '--json', '-C', dir]);
    expect([0, 1], gated.stderr).toContain(gated.code);
    const result = JSON.parse(gated.stdout) as { baselineScreen: string };
    expect(result.baselineScreen).toMatch(/1 record, 1 run now \(12 case-trials\); run now because gate\.policy is "flips", where the screen is the verdict: the baseline runs beside the candidate rather than being read from run run-\S+, recorded earlier/);
    expect(baselineRuns(dir)).toBe(1);
  }, 240_000);
});
