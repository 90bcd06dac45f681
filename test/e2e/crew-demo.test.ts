import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { creditDocumentSchema } from '../../src/domain/credit.ts';
import { cliAsync, git, tempDir } from '../helpers/workspace.ts';

describe('demo --example orders-crew', () => {
  it('runs offline; traces name the members; the credit table flags the planted free rider', async () => {
    const dir = path.join(tempDir('agentdevel-crew-demo-'), 'ws');
    const result = await cliAsync(['demo', '--example', 'orders-crew', '--dir', dir, '--max-iterations', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/simulated/);

    // Traces carry the agent that produced each event.
    const shown = await cliAsync(['show', 'train-001', '-C', dir]);
    expect(shown.stdout).toContain('[lookup] → get_order');
    expect(shown.stdout).toContain('[orchestrator] → lookup');

    // The credit document is in git, versioned, on the line (iteration 2 was promoted) …
    const tag = git(dir, 'tag', '--list', 'orders-crew/*').trim().split('\n')[0] as string;
    expect(tag).toBe('orders-crew/v1');
    const credit = creditDocumentSchema.parse(JSON.parse(git(dir, 'show', `${tag}:diagnostics/orders-crew/iter-002/credit.json`)));
    const byName = new Map(credit.components.map((c) => [c.name, c]));
    expect([...byName.values()].map((c) => c.kind).sort()).toEqual(['member', 'member', 'member', 'partial', 'tool', 'tool', 'tool', 'tool', 'tool']);
    const rider = byName.get('delivery-notes');
    expect(rider?.successRate).toBeGreaterThanOrEqual(0.9);
    expect(rider?.helpfulness?.rate).toBeLessThanOrEqual(0.1);
    expect(rider?.freeRider).toBe(true);
    const refunds = byName.get('refunds');
    expect(refunds?.helpfulness?.rate).toBeGreaterThanOrEqual(0.9);
    expect(refunds?.freeRider).toBe(false);
    // Ranked apart: first by success rate, last by helpfulness.
    expect(credit.ranking.bySuccessRate[0]).toBe('delivery-notes');
    expect(credit.ranking.byHelpfulness.at(-1)).toBe('delivery-notes');
    // Calls on the last RC's flips are counted (iteration 1's RC flipped nothing: a rejected RC of no fixes).
    expect(credit.lastRc?.iteration).toBe(1);
    // The partial is credited for the turns of the members whose prompts include it.
    expect(byName.get('partials/answer-format.hbs')?.calls).toBeGreaterThan(0);

    // … and the iteration's report shows the table with the flag.
    const report = readFileSync(path.join(dir, 'releases/orders-crew/v1/report.md'), 'utf8');
    expect(report).toContain('## Credit per component');
    expect(report).toMatch(/\| `delivery-notes` \| member \|.*\*\*free rider\*\* \|/);

    // Ablation by role: CodeCrew's table, the flips against the full crew, and nothing promoted.
    const refs = git(dir, 'for-each-ref');
    const ablated = await cliAsync(['ablate', '--without', 'refunds', '-C', dir]);
    expect(ablated.code, ablated.stderr).toBe(0);
    expect(ablated.stdout).toMatch(/^setting\s+pass rate\s+change \(points\)$/m);
    expect(ablated.stdout).toMatch(/^full crew\s+\d+\.\d%\s+—$/m);
    const row = /^without refunds\s+(\d+\.\d)%\s+−(\d+\.\d)$/m.exec(ablated.stdout);
    expect(row).not.toBeNull();
    expect(ablated.stdout).toMatch(/^without refunds: P→F [1-9]\d* \(train-001/m);
    expect(git(dir, 'for-each-ref')).toBe(refs);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const unknown = await cliAsync(['ablate', '--without', 'nobody', '-C', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--without: "nobody" is not a member of the crew in blueprints\/orders-crew\/blueprint.json \(lookup, refunds, delivery-notes\)/);
  }, 240_000);
});
