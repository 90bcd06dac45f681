import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync, decisionLogAsync, exampleWorkspace, git } from '../helpers/workspace.ts';

describe('the diagnostician is told what changed in the train split', () => {
  it('names the cases added and edited since the last report, and shows the last RC\'s flips only over cases on both sides', async () => {
    const dir = await exampleWorkspace();
    const first = await cliAsync(['iterate', '--max-iterations', '1', '--json', '-C', dir], { env: { ANTHROPIC_API_KEY: '' } });
    expect(first.code, first.stderr).toBeLessThanOrEqual(1);
    const last = (await decisionLogAsync(dir)).at(-1) as { f2pCases: string[]; p2fCases: string[] };
    const moved = [...last.f2pCases, ...last.p2fCases];
    const edited = moved[0] as string;
    expect(edited).toBeDefined();

    // Between two iterations, one train case is added and one the last RC flipped is edited.
    const train = path.join(dir, 'rubrics/orders/train.jsonl');
    const lines = readFileSync(train, 'utf8').trim().split('\n');
    const added = { ...(JSON.parse(lines[0] as string) as Record<string, unknown>), id: 'train-added-1' };
    const changed = lines.map((line) => {
      const testCase = JSON.parse(line) as Record<string, unknown>;
      return testCase.id === edited ? JSON.stringify({ ...testCase, note: 'reworded' }) : line;
    });
    writeFileSync(train, `${[...changed, JSON.stringify(added)].join('\n')}\n`);
    git(dir, 'commit', '-qam', 'one train case added, one edited');

    const result = await cliAsync(['prompts', '--role', 'diagnostician', '-C', dir], { env: { ANTHROPIC_API_KEY: '' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`<case_changes>\nThe train split since the previous report: added train-added-1; removed none; edited (same id, other content) ${edited}.`);
    const shown = JSON.parse(result.stdout.slice(result.stdout.indexOf('<last_release_candidate>') + 24, result.stdout.indexOf('</last_release_candidate>'))) as {
      fixed: Record<string, string>;
      broken: Record<string, string>;
    };
    const flips = [...Object.keys(shown.fixed), ...Object.keys(shown.broken)];
    expect(flips).not.toContain(edited);
    expect(flips).not.toContain('train-added-1');
    expect(flips.sort()).toEqual(moved.filter((id) => id !== edited).sort());
  }, 600_000);
});
