import { describe, expect, it } from 'vitest';
import { zeroUsage } from '../../src/domain/model-port.ts';
import { silentReporter } from '../../src/domain/progress.ts';
import type { ReleaseCandidate } from '../../src/domain/release-candidate.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate, type BuiltCandidate } from '../../src/pipeline/candidate.ts';
import { openWorkspace } from '../../src/pipeline/workspace.ts';
import { synthesize } from '../../src/stages/synthesize/synthesize.ts';
import { scriptedModel } from '../helpers/scripted-model.ts';
import { exampleWorkspace, git } from '../helpers/workspace.ts';

const diagnosis = { summary: 's', totals: { records: 1, failing: 1, infraErrors: 0 }, dominantSymptoms: [{ label: 'tool_error', count: 1, share: 1, description: 'd' }], patterns: [], representativeCases: [], affectedSurface: [] };
const intent = { targets: ['tool_error'], rationale: 'normalize ids' };
const proposals: Record<string, ReleaseCandidate> = {
  outside: { edits: [{ path: 'rubrics/orders/rubric.md', content: 'be lenient' }], intent },
  brokenWrapper: { edits: [{ path: 'blueprints/support-agent/tools/get_order.ts', content: "import { z } from 'zod';\nexport default { name: 'get_order' };\n" }], intent },
  brokenTemplate: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'Hello {{#each tools}} unclosed' }], intent },
  good: { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'You help customers.\n{{#each tools}}- {{name}}\n{{/each}}' }], intent },
};

async function synthesizeWith(sequence: Array<keyof typeof proposals>, maxRepairs: number) {
  const dir = await exampleWorkspace();
  const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: { now: () => new Date() } });
  const base = git(dir, 'rev-parse', 'HEAD');
  const feedback: Array<string | null> = [];
  let built: BuiltCandidate | null = null;
  const model = scriptedModel({
    synthesize: async (request) => {
      feedback.push(request.repairFeedback);
      return { value: proposals[sequence[Math.min(feedback.length - 1, sequence.length - 1)] as string] as ReleaseCandidate, usage: zeroUsage };
    },
  });
  try {
    const outcome = await synthesize(
      { blueprint: 'support-agent', files: [], diagnosis, history: [{ iteration: 1, targets: ['x'], rationale: 'r', decision: 'rejected', reasons: [], fingerprint: 'f' }], model: 'scripted', maxRepairs },
      {
        model,
        reporter: silentReporter,
        validate: async (candidate) => {
          built = await buildCandidate(workspace, base, 1, candidate);
          return checkCandidateLoads(workspace, built);
        },
      },
    );
    return { outcome, feedback, base, dir };
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
});
