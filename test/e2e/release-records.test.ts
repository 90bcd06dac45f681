// A release's records are taken once, at its first gate, and that gate says so in one sentence;
// an ad-hoc run of a dirty tree (`run --case` on an edited task) never becomes a release's record,
// so later gates against the same release run no baseline case-trial at all.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases } from '../helpers/workspace.ts';

const BP = 'support-agent';

function baselineCaseTrials(dir: string): number {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    return Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'baseline'`)?.n);
  } finally {
    sql.close();
  }
}

describe("a release's records", () => {
  it('are taken once, at the first gate, which says so; three gates in a row with ad-hoc runs of a dirty task between them run no baseline case-trial after the first', async () => {
    const dir = await exampleWorkspace();
    keepTrainCases(dir, (_id, index) => index < 8);
    git(dir, 'commit', '-qam', '8 train cases');
    const prompt = path.join(dir, `blueprints/${BP}/system.hbs`);
    for (const [branch, line] of [['short', 'Keep replies short.'], ['polite', 'Always thank the customer.'], ['careful', 'Check the order id twice.']] as const) {
      git(dir, 'checkout', '-q', '-b', branch, 'main');
      appendFileSync(prompt, `\n${line}\n`);
      git(dir, 'commit', '-qam', line);
    }
    git(dir, 'checkout', '-q', 'main');

    // An ad-hoc run of a dirty tree whose blueprint and task match the release (only the config's
    // concurrency is edited): the same run key, and still never the release's record.
    const configFile = path.join(dir, 'agentdevel.config.json');
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(/"concurrency": \d+/, '"concurrency": 2'));
    expect(git(dir, 'status', '--porcelain')).toContain('agentdevel.config.json');
    const dirtyRun = await cliAsync(['run', '-C', dir]);
    expect(dirtyRun.code, dirtyRun.stderr).toBe(0);
    git(dir, 'checkout', '-q', '--', 'agentdevel.config.json');

    const first = await cliAsync(['gate', '--candidate', 'short', '--json', '-C', dir]);
    expect([0, 1], first.stderr).toContain(first.code);
    const screen = (JSON.parse(first.stdout) as { baselineScreen: string }).baselineScreen;
    expect(screen).toMatch(/the release's 3 records are taken now, once, at its first gate \(24 case-trials\): later gates against this release reuse them/);
    expect(screen).not.toMatch(/from trial/);
    const afterFirst = baselineCaseTrials(dir);
    expect(afterFirst).toBe(24);

    const rubric = path.join(dir, 'rubrics/orders/rubric.md');
    const train = path.join(dir, 'rubrics/orders/train.jsonl');
    const firstCase = (JSON.parse(readFileSync(train, 'utf8').split('\n')[0] as string) as { id: string }).id;
    for (const [index, candidate] of ['polite', 'careful'].entries()) {
      // An ad-hoc run on a dirty task (an edited rubric), of the whole split and of one case, then the edit undone.
      appendFileSync(rubric, `\nA draft rule ${index}.\n`);
      for (const args of [['run', '--case', firstCase], ['run']]) {
        const adHoc = await cliAsync([...args, '-C', dir]);
        expect(adHoc.code, adHoc.stderr).toBe(0);
      }
      git(dir, 'checkout', '-q', '--', 'rubrics');
      const gated = await cliAsync(['gate', '--candidate', candidate, '--json', '-C', dir]);
      expect([0, 1], gated.stderr).toContain(gated.code);
      expect((JSON.parse(gated.stdout) as { baselineScreen: string }).baselineScreen).toMatch(/3 reused from this store; no baseline case-trial ran/);
    }
    expect(baselineCaseTrials(dir) - afterFirst).toBe(0);
  }, 240_000);
});
