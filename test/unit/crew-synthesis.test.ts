import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { blueprintManifestSchema } from '../../src/domain/blueprint-manifest.ts';
import { simulatedSynthesis } from '../../src/adapters/engines/mock/synthesizer.ts';
import { repoRoot } from '../helpers/workspace.ts';

describe('the simulated synthesizer on a crew', () => {
  it('adds the search tool to the member that lists orders, keeping the manifest valid', () => {
    const root = 'blueprints/orders-crew';
    const manifest = readFileSync(`${repoRoot}examples/orders-crew/${root}/blueprint.json`, 'utf8');
    const candidate = simulatedSynthesis({
      model: 'mock',
      blueprintName: 'orders-crew',
      blueprintRoot: root,
      blueprint: blueprintBrief('crew'),
      evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] },
      files: [
        { path: `${root}/blueprint.json`, content: manifest },
        { path: `${root}/system.hbs`, content: readFileSync(`${repoRoot}examples/orders-crew/${root}/system.hbs`, 'utf8') },
      ],
      diagnosis: { summary: '', dominantSymptoms: [{ label: 'step_budget_exhausted', count: 3, share: 0.1, description: '' }] } as never,
      history: [],
      taxonomy: [],
      task: { rubric: '', environmentApi: null },
      repair: null,
    });
    const edited = candidate.edits.find((e) => e.path === `${root}/blueprint.json`);
    const parsed = blueprintManifestSchema.parse(JSON.parse(edited?.content ?? '{}'));
    expect(parsed.runtime).toBe('crew');
    if (parsed.runtime !== 'crew') return;
    expect(parsed.members.find((m) => m.name === 'lookup')?.tools).toContain('tools/find_orders_by_item.ts');
    expect(parsed.members.find((m) => m.name === 'refunds')?.tools).not.toContain('tools/find_orders_by_item.ts');
  });
});
