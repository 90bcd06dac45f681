import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync, exampleWorkspace, git, keepTrainCases } from '../helpers/workspace.ts';

describe('attribute', () => {
  it('traces each flip of an RC with two independent edits to the edit that caused it', async () => {
    const dir = await exampleWorkspace();
    // Six cases: three late returns the return-window rule fixes, two searches a crippled
    // list_orders breaks, and one status question neither edit touches.
    const keep = ['train-002', 'train-008', 'train-018', 'train-003', 'train-019', 'train-005'];
    keepTrainCases(dir, (id) => keep.includes(id));
    git(dir, 'commit', '-qam', 'six train cases');
    const line = git(dir, 'rev-parse', 'HEAD').trim();

    git(dir, 'checkout', '-qb', 'two-edits');
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, readFileSync(prompt, 'utf8').replace('You can use these tools', 'Items can be returned only within 30 days of delivery. Check the delivery date with get_order first, and politely refuse returns of orders delivered earlier than that.\n\nYou can use these tools'));
    const listOrders = path.join(dir, 'blueprints/support-agent/tools/list_orders.ts');
    writeFileSync(listOrders, readFileSync(listOrders, 'utf8').replace('ctx.env.listOrders(args.customer_id),', '(ctx.env.listOrders(args.customer_id) as unknown[]).slice(-1),'));
    git(dir, 'commit', '-qam', 'a return window, and a list_orders that keeps only the last order');
    git(dir, 'checkout', '-q', 'main');

    const result = await cliAsync(['attribute', 'two-edits', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as {
      edits: string[];
      flips: Array<{ caseId: string; direction: string; edits: string[]; evidence: string }>;
      runs: number;
      caseTrials: number;
      bound: { runs: number; caseTrials: number };
    };
    const prompts = 'blueprints/support-agent/system.hbs';
    const tools = 'blueprints/support-agent/tools/list_orders.ts';
    expect(outcome.edits.sort()).toEqual([prompts, tools]);
    const by = Object.fromEntries(outcome.flips.map((f) => [f.caseId, f]));
    expect(Object.keys(by).sort()).toEqual(['train-002', 'train-003', 'train-008', 'train-018', 'train-019']);
    for (const id of ['train-002', 'train-008', 'train-018']) expect(by[id]).toMatchObject({ direction: 'f2p', edits: [prompts], evidence: 'reverted' });
    for (const id of ['train-003', 'train-019']) expect(by[id]).toMatchObject({ direction: 'p2f', edits: [tools], evidence: 'reverted' });
    // Bounded and stated: one revert per edit sufficed here, within the stated bound.
    expect(outcome.runs).toBe(2);
    expect(outcome.caseTrials).toBe(10);
    expect(outcome.bound).toEqual({ runs: 4, caseTrials: 20 });
    expect(result.stderr).toMatch(/5 flips, 2 edits: at most 4 variant runs of the flipped cases \(20 case-trials\)/);
    // Nothing is written to the line.
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(line);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  }, 180_000);
});
