import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { readBlueprintFiles } from '../../src/adapters/blueprint/load.ts';
import { describe, expect, it } from 'vitest';
import { zeroUsage, type RcHistoryEntry, type RepairRequest } from '../../src/domain/ports/model.ts';
import { silentReporter } from '../../src/domain/ports/reporter.ts';
import type { ReleaseCandidate } from '../../src/domain/release-candidate.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate, type BuiltCandidate } from '../../src/pipeline/loop/candidate.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import { editsFingerprint } from '../../src/stages/synthesize/edits.ts';
import { synthesize } from '../../src/stages/synthesize/synthesize.ts';
import { scriptedModel } from '../helpers/scripted-model.ts';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { initWorkspace } from '../../src/app/init-workspace.ts';
import { exampleWorkspace, git, tempDir } from '../helpers/workspace.ts';

const diagnosis = {
  summary: 's',
  totals: { records: 2, failing: 2, infraErrors: 0 },
  dominantSymptoms: [{ label: 'tool_error', count: 2, share: 1, description: 'd' }],
  patterns: [],
  representativeCases: [],
  affectedSurface: [{ label: 'tool_error', caseIds: ['c1', 'c2'] }],
};
const taxonomy = [
  { label: 'missing_required_step', description: 'acted without confirmation' },
  { label: 'tool_error', description: 'a tool failed' },
];
const intent = { targets: ['tool_error'], rationale: 'normalize ids' };
const proposals: Record<string, ReleaseCandidate> = {
  outside: { edits: [{ path: 'rubrics/orders/rubric.md', content: 'be lenient' }], intent },
  brokenWrapper: { edits: [{ path: 'blueprints/support-agent/tools/get_order.ts', content: "import { z } from 'zod';\nexport default { name: 'get_order' };\n", type: 'revise', component: 'tool:get_order' }], intent },
  brokenTemplate: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'Hello {{#each tools}} unclosed', type: 'revise', component: 'agent' }], intent },
  good: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'You help customers.\n{{#each tools}}- {{name}}\n{{/each}}', type: 'revise', component: 'agent' }], intent },
  commandMissingPartial: { edits: [{ path: 'blueprints/my-agent/prompt.hbs', content: 'Convert.\n{{> partials/units}}\n', type: 'add', component: 'partial:prompt' }], intent },
  commandGood: {
    edits: [
      { path: 'blueprints/my-agent/prompt.hbs', content: 'Convert.\n{{> partials/units}}\n', type: 'add', component: 'partial:prompt' },
      { path: 'blueprints/my-agent/partials/units.hbs', content: 'F = C * 9/5 + 32\n', type: 'add', component: 'partial:partials/units' },
    ],
    intent,
  },
  unlabelledTarget: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'Normalise ids.\n{{#each tools}}- {{name}}\n{{/each}}', type: 'revise', component: 'agent' }], intent: { targets: ['Normalise IDs'], rationale: 'normalise ids' } },
  coinedTarget: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'Normalise ids.\n{{#each tools}}- {{name}}\n{{/each}}', type: 'revise', component: 'agent' }], intent: { targets: ['order_id_not_canonical'], rationale: 'normalise ids' } },
};

const rejectedGood = (targets: string[], scope: string[]): RcHistoryEntry => ({
  iteration: 1,
  targets,
  rationale: 'r',
  decision: 'rejected',
  reasons: ['hit rate 0.0%: 0 of 2 fixes had a targeted symptom'],
  fingerprint: editsFingerprint((proposals.good as ReleaseCandidate).edits),
  fixed: [],
  broken: [],
  edited: [],
  scope,
});

/** A fresh `init --runtime command` workspace, committed. */
async function commandWorkspace(): Promise<string> {
  const dir = path.join(tempDir(), 'command');
  mkdirSync(dir);
  git(dir, 'init', '-q', '--initial-branch=main');
  await initWorkspace(dir, 'command');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

async function synthesizeWith(sequence: Array<keyof typeof proposals>, maxRepairs: number, history: RcHistoryEntry[] = [], setup: { dir: () => Promise<string>; blueprint: string; taxonomy?: typeof taxonomy } = { dir: exampleWorkspace, blueprint: 'support-agent' }) {
  const dir = await setup.dir();
  const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: { now: () => new Date() } });
  const base = git(dir, 'rev-parse', 'HEAD');
  const repairs: Array<RepairRequest | null> = [];
  let built: BuiltCandidate | null = null;
  const model = scriptedModel({
    synthesize: async (request) => {
      repairs.push(request.repair);
      return { value: proposals[sequence[Math.min(repairs.length - 1, sequence.length - 1)] as string] as ReleaseCandidate, usage: zeroUsage };
    },
  });
  try {
    const outcome = await synthesize(
      { blueprint: setup.blueprint, files: await readBlueprintFiles(dir, setup.blueprint), brief: blueprintBrief(setup.blueprint === 'support-agent' ? 'tool-loop' : 'command'), evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] }, diagnosis, history, taxonomy: setup.taxonomy ?? taxonomy, task: { rubric: 'r', environmentApi: null }, model: 'scripted', maxRepairs },
      {
        model,
        reporter: silentReporter,
        validate: async (candidate) => {
          built = await buildCandidate(workspace, base, 1, candidate);
          return { built, problem: await checkCandidateLoads(workspace, built) };
        },
      },
    );
    const feedback = repairs.map((r) => r?.error ?? null);
    return { outcome, feedback, repairs, base, dir, runs: workspace.store.runCount() };
  } finally {
    if (built) await discardCandidate(workspace, built);
    await workspace.close();
  }
}

describe('RC synthesis', () => {
  it('refuses edits outside the blueprint and broken blueprints, with bounded repairs, then accepts a good RC', async () => {
    const { outcome, feedback } = await synthesizeWith(['outside', 'brokenWrapper', 'brokenTemplate', 'good'], 3);
    expect(outcome.kind).toBe('candidate');
    expect(feedback[0]).toBeNull();
    expect(feedback[1]).toMatch(/rubrics\/orders\/rubric\.md: outside blueprints\/support-agent\//);
    expect(feedback[2]).toMatch(/does not load: .*tools\/get_order\.ts: "description" must be/);
    expect(feedback[3]).toMatch(/does not load: blueprints\/support-agent\/system\.hbs:1: template does not compile: parse error: Expecting .*got 'EOF'/);
  });

  it('gives a command RC whose template names a missing partial a repair turn before any case runs', async () => {
    const { outcome, feedback, runs } = await synthesizeWith(['commandMissingPartial', 'commandGood'], 1, [], { dir: commandWorkspace, blueprint: 'my-agent' });
    expect(feedback[1]).toMatch(/does not load: blueprints\/my-agent\/prompt\.hbs:2: template is invalid: the partial "partials\/units" does not exist/);
    expect(outcome.kind).toBe('candidate');
    expect(runs).toBe(0);
  });

  it('records "no valid RC" when the repairs run out, leaving the line untouched', async () => {
    const { outcome, base, dir } = await synthesizeWith(['outside'], 1);
    expect(outcome.kind).toBe('no_candidate');
    if (outcome.kind === 'no_candidate') {
      expect(outcome.reason).toMatch(/no valid RC after 2 attempts/);
      expect(outcome.attempts).toHaveLength(2);
    }
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
    expect(git(dir, 'branch', '--list', 'agentdevel/*')).toBe('');
  });

  it('treats empty edits as no RC at once', async () => {
    proposals.empty = { edits: [], intent };
    const { outcome, feedback } = await synthesizeWith(['empty'], 3);
    expect(outcome.kind).toBe('no_candidate');
    expect(feedback).toHaveLength(1);
  });

  it('shows the model its refused proposal and the exact problems in the repair', async () => {
    const { outcome, repairs } = await synthesizeWith(['coinedTarget', 'good'], 1);
    expect(outcome.kind).toBe('candidate');
    expect(JSON.parse(repairs[1]?.previousOutput ?? '')).toEqual(proposals.coinedTarget);
    expect(repairs[1]?.error).toBe('intent.targets: "order_id_not_canonical" is not a symptom label of the taxonomy (one of: missing_required_step, tool_error)');
  });

  it('holds targets to what the prompt says when the taxonomy is empty: any snake_case label, nothing else', async () => {
    const empty = { dir: exampleWorkspace, blueprint: 'support-agent', taxonomy: [] };
    const { outcome, repairs } = await synthesizeWith(['unlabelledTarget', 'coinedTarget'], 1, [], empty);
    expect(repairs[1]?.error).toBe('intent.targets: "Normalise IDs" is not a symptom label (snake_case, 2 to 64 characters); the taxonomy is empty, so any such label is taken');
    expect(outcome.kind === 'candidate' && outcome.candidate.intent.targets).toEqual(['order_id_not_canonical']);
  });

  it('takes edits a rejected RC had again when the targets or the scope changed, and refuses them when nothing did', async () => {
    const sameAgain = await synthesizeWith(['good'], 0, [rejectedGood(['tool_error'], ['c1', 'c2'])]);
    expect(sameAgain.outcome.kind).toBe('no_candidate');
    expect(sameAgain.outcome.kind === 'no_candidate' && sameAgain.outcome.reason).toMatch(
      /rejected in iteration 1 with the same targets \(tool_error\) and the same cases in scope; the gate said: hit rate 0\.0%/,
    );
    expect((await synthesizeWith(['good'], 0, [rejectedGood(['order_id_not_canonical'], ['c1', 'c2'])])).outcome.kind).toBe('candidate');
    expect((await synthesizeWith(['good'], 0, [rejectedGood(['tool_error'], ['c1'])])).outcome.kind).toBe('candidate');
    const released = await synthesizeWith(['good'], 0, [{ ...rejectedGood(['order_id_not_canonical'], []), decision: 'promoted' }]);
    expect(released.outcome.kind === 'no_candidate' && released.outcome.reason).toMatch(/already released in iteration 1/);
  });
});
