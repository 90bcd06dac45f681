import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferTypedChanges } from '../../src/domain/blueprint-components.ts';
import { creditDocumentSchema } from '../../src/domain/credit.ts';
import { parseGradientDocument } from '../../src/domain/gradient.ts';
import { editsByType } from '../../src/domain/release-candidate.ts';
import { cliAsync, decisionLogAsync, git, tempDir } from '../helpers/workspace.ts';

const root = 'blueprints/orders-crew';

const sorted = (groups: Record<string, string[]>) => Object.fromEntries(Object.entries(groups).map(([type, ids]) => [type, [...ids].sort()]));

/** The blueprint's files at a commit, as the component model reads them. */
function filesAt(dir: string, commit: string): Array<{ path: string; content: string }> {
  return git(dir, 'ls-tree', '-r', '--name-only', commit, '--', root)
    .split('\n')
    .filter(Boolean)
    .map((file) => ({ path: file, content: git(dir, 'show', `${commit}:${file}`) }));
}

describe('demo --example orders-crew: components, typed edits and gradient records of a crew', () => {
  it("types every RC's edits as its diff shows them, and records members, wrappers and the orchestrator with evidence-bound fulfilment", async () => {
    const dir = path.join(tempDir('agentdevel-crew-gradient-'), 'ws');
    const result = await cliAsync(['demo', '--example', 'orders-crew', '--dir', dir, '--max-iterations', '5']);
    expect(result.code, result.stderr).toBe(0);

    // Every RC is typed, and its types are what its edits do to the blueprint.
    const log = await decisionLogAsync(dir);
    expect(log.length).toBe(5);
    for (const entry of log) {
      const commit = entry.commit as string;
      const parent = git(dir, 'rev-parse', `${commit}^`).trim();
      const before = filesAt(dir, parent);
      const after = new Map(filesAt(dir, commit).map((f) => [f.path, f.content]));
      const changed = git(dir, 'diff', '--name-only', parent, commit, '--', root).split('\n').filter(Boolean);
      const inferred = editsByType(inferTypedChanges(before, changed.map((p) => ({ path: p, content: after.get(p) ?? null })), root));
      expect(sorted(entry.editsByType as Record<string, string[]>), `iteration ${String(entry.iteration)}`).toEqual(sorted(inferred));
    }
    // The search tool's RC: a new wrapper, lookup given it, a new paragraph for the orchestrator.
    const search = log.find((e) => (e.targets as string[]).includes('step_budget_exhausted'));
    expect(search?.editsByType).toEqual({ remove: [], revise: ['member:lookup'], add: ['tool:find_orders_by_item', 'section:when-the-customer'] });

    // The last iteration's gradient records: the crew as the component model sees it.
    const gradient = parseGradientDocument(git(dir, 'show', 'refs/agentdevel/gradient/orders-crew/iter-005:gradient.json'), 'gradient.json');
    const byId = new Map(gradient.components.map((c) => [c.component, c]));
    const ids = [...byId.keys()];
    expect(ids).toEqual(expect.arrayContaining(['orchestrator', 'member:lookup', 'member:refunds', 'member:delivery-notes', 'tool:get_order', 'tool:list_orders', 'tool:cancel_order', 'partial:partials/answer-format']));
    expect(ids.filter((id) => id.startsWith('partial:members/'))).toEqual([]);
    expect(ids).not.toContain('member:orchestrator');
    expect(byId.get('member:lookup')?.path).toBe(`${root}/members/lookup.hbs`);
    expect(byId.get('tool:get_order')?.contributions.length).toBeGreaterThan(0);

    // The planted free rider takes part in passing cases, but nothing it answers is used: it fulfils nothing.
    const credit = creditDocumentSchema.parse(JSON.parse(git(dir, 'show', `orders-crew/v3:diagnostics/orders-crew/iter-004/credit.json`)));
    expect(credit.components.find((c) => c.name === 'delivery-notes')?.freeRider).toBe(true);
    const rider = byId.get('member:delivery-notes');
    expect(rider?.evidence.caseIds.length).toBeGreaterThan(0);
    expect(rider?.fulfilled).toEqual([]);
    expect(rider?.contributions).toEqual([]);
    // The members that do the work fulfil the policy, on the judge's word.
    expect(byId.get('member:refunds')?.fulfilled).toContain('policy-outcome');
    expect(new Set(byId.get('member:refunds')?.contributions.map((c) => c.basis))).toEqual(new Set(['judge']));
  }, 240_000);
});
