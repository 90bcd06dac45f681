import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliAsync, exampleWorkspace, git, keepTrainCases } from '../helpers/workspace.ts';

/**
 * Branch `two-edits` off main: a return-window rule in the prompt (fixes late returns) and a
 * list_orders that keeps only the last order (breaks searches). Main stays checked out.
 */
function twoEditsBranch(dir: string): void {
  git(dir, 'checkout', '-qb', 'two-edits');
  const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
  writeFileSync(prompt, readFileSync(prompt, 'utf8').replace('You can use these tools', 'Items can be returned only within 30 days of delivery. Check the delivery date with get_order first, and politely refuse returns of orders delivered earlier than that.\n\nYou can use these tools'));
  const listOrders = path.join(dir, 'blueprints/support-agent/tools/list_orders.ts');
  writeFileSync(listOrders, readFileSync(listOrders, 'utf8').replace('ctx.env.listOrders(args.customer_id),', '(ctx.env.listOrders(args.customer_id) as unknown[]).slice(-1),'));
  git(dir, 'commit', '-qam', 'a return window, and a list_orders that keeps only the last order');
  git(dir, 'checkout', '-q', 'main');
}

describe('attribute', () => {
  it('traces each flip of an RC with two independent edits to the edit that caused it', async () => {
    const dir = await exampleWorkspace();
    // Six cases: three late returns the return-window rule fixes, two searches a crippled
    // list_orders breaks, and one status question neither edit touches.
    const keep = ['train-002', 'train-008', 'train-018', 'train-003', 'train-019', 'train-005'];
    keepTrainCases(dir, (id) => keep.includes(id));
    git(dir, 'commit', '-qam', 'six train cases');
    const line = git(dir, 'rev-parse', 'HEAD').trim();

    twoEditsBranch(dir);

    const result = await cliAsync(['attribute', 'two-edits', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as {
      edits: string[];
      flips: Array<{ caseId: string; direction: string; edits: string[]; evidence: string }>;
      fullRuns: { caseTrials: number; reused: number };
      cost: { trials: number; runs: number; caseTrials: number; bound: { runs: number; caseTrials: number } };
    };
    const prompts = 'blueprints/support-agent/system.hbs';
    const tools = 'blueprints/support-agent/tools/list_orders.ts';
    expect(outcome.edits.sort()).toEqual([prompts, tools]);
    const by = Object.fromEntries(outcome.flips.map((f) => [f.caseId, f]));
    expect(Object.keys(by).sort()).toEqual(['train-002', 'train-003', 'train-008', 'train-018', 'train-019']);
    for (const id of ['train-002', 'train-008', 'train-018']) expect(by[id]).toMatchObject({ direction: 'f2p', edits: [prompts], evidence: 'reverted' });
    for (const id of ['train-003', 'train-019']) expect(by[id]).toMatchObject({ direction: 'p2f', edits: [tools], evidence: 'reverted' });
    // The whole bound is stated first: the two train-split runs, then the variants, each flipped case on as many fresh
    // trials as the confirmation planner gives a case of its family (3 fixes share α: 16 trials; 2 regressions: 15).
    expect(result.stderr).toMatch(/2 edits: the base and the candidate on the train split \(2 runs of every case × 1 trial; none for a version already recorded\), then at most 4 variant runs/);
    expect(result.stderr).toMatch(/5 flips, 2 edits: at most 4 variant runs of the flipped cases \(320 case-trials: 16 fresh trials a case\)/);
    expect(outcome.fullRuns).toEqual({ caseTrials: 12, reused: 0 });
    // One revert per edit sufficed here, within the bound.
    expect(outcome.cost).toEqual({ trials: 16, runs: 2, caseTrials: 160, bound: { runs: 4, caseTrials: 320 } });
    // A stated trial count replaces the planner's.
    const stated = await cliAsync(['attribute', 'two-edits', '--variant-trials', '2', '--json', '-C', dir]);
    expect(stated.code, stated.stderr).toBe(0);
    expect((JSON.parse(stated.stdout) as typeof outcome).cost).toEqual({ trials: 2, runs: 2, caseTrials: 20, bound: { runs: 4, caseTrials: 40 } });
    expect(cli(['attribute', 'two-edits', '--variant-trials', 'lots', '-C', dir]).stderr).toMatch(/--variant-trials: expected a whole number from 1 to 64, got "lots"/);
    // Nothing is written to the line.
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(line);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  }, 180_000);

  it('on a rejection (attribution.onRejection), the gate traces the regressions and the synthesizer’s next request says which edit broke what', async () => {
    const dir = await exampleWorkspace();
    keepTrainCases(dir, (id) => ['train-002', 'train-008', 'train-018', 'train-003', 'train-019', 'train-005'].includes(id));
    const configFile = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    config.attribution = { onRejection: true, maxEdits: 4, variantTrials: 2 };
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    git(dir, 'commit', '-qam', 'six train cases; attribution on rejection, 2 fresh trials a variant');
    twoEditsBranch(dir);

    const gated = await cliAsync(['gate', '--candidate', 'two-edits', '--promote', '--json', '-C', dir]);
    expect(gated.code, gated.stderr).toBe(1);
    const decision = JSON.parse(gated.stdout) as { outcome: string; p2f: string[] };
    expect(decision.outcome).toBe('rejected');
    expect(decision.p2f.sort()).toEqual(['train-003', 'train-019']);
    // The bound is stated before the variants run: 2 edits, 2 regressions, 2 fresh trials each.
    expect(gated.stderr).toMatch(/two-edits is rejected with 2 regressions: tracing each to the edit it depends on/);
    expect(gated.stderr).toMatch(/2 flips, 2 edits: at most 4 variant runs of the flipped cases \(16 case-trials: 2 fresh trials a case\)/);

    // Recorded with the rejection, in git.
    const tools = 'blueprints/support-agent/tools/list_orders.ts';
    const document = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:diagnostics/support-agent/iter-001/attribution.json')) as {
      schema: string;
      flips: Array<{ caseId: string; direction: string; edits: string[]; evidence: string }>;
      cost: { trials: number; runs: number; caseTrials: number };
    };
    expect(document.schema).toBe('agentdevel/attribution@1');
    expect(document.flips.sort((a, b) => a.caseId.localeCompare(b.caseId))).toEqual([
      { caseId: 'train-003', direction: 'p2f', edits: [tools], evidence: 'reverted' },
      { caseId: 'train-019', direction: 'p2f', edits: [tools], evidence: 'reverted' },
    ]);
    expect(document.cost).toMatchObject({ trials: 2, runs: 2, caseTrials: 8 });

    // The synthesizer's next request, read from git, names the edit behind each regression.
    const request = cli(['prompts', '--role', 'synthesizer', '-C', dir]);
    expect(request.code, request.stderr).toBe(0);
    for (const id of ['train-003', 'train-019']) expect(request.stdout).toContain(`"${id}": "${tools} (reverting this edit alone undoes the regression)"`);
    expect(request.stdout).toMatch(/"brokenBy" says which of its edits each broken case depends on/);
  }, 180_000);
});
