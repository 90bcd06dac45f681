import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/adapters/store/store.ts';
import { readTrace } from '../../src/stages/run/trace-file.ts';
import { ANSWERS, answerKeyWorkspace } from '../helpers/answer-keys.ts';
import { cliAsync, git, tempDir } from '../helpers/workspace.ts';

describe('a command agent in the decision', () => {
  it('records the agent model as "command", what ran, not the configured mock', async () => {
    const dir = path.join(tempDir(), 'command');
    mkdirSync(dir);
    git(dir, 'init', '-q', '--initial-branch=main');
    const init = await cliAsync(['init', '--runtime', 'command', '-C', dir]);
    expect(init.code).toBe(0);
    // Every next step it prints works from where the user ran it, the git commit included.
    expect(init.stdout).toContain(`git -C ${dir} add -A && git -C ${dir} commit -m "agentdevel workspace"`);
    expect(init.stdout).toContain(`npx agentdevel run -C ${dir}`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'init');
    git(dir, 'checkout', '-qb', 'tweak');
    const agent = path.join(dir, 'blueprints/my-agent/agent.mjs');
    writeFileSync(agent, readFileSync(agent, 'utf8').replace('The answer is', 'The result is'));
    git(dir, 'commit', '-qam', 'tweak');
    git(dir, 'checkout', '-q', 'main');
    const gate = await cliAsync(['gate', '--candidate', 'tweak', '--promote', '-C', dir]);
    expect(gate.code, gate.stderr).toBe(0);
    const decision = JSON.parse(git(dir, 'show', 'my-agent/v1:releases/my-agent/v1/decision.json')) as { models: Record<string, string> };
    expect(decision.models).toEqual({ agent: 'command', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' });
  }, 180_000);
});

describe('what a command agent sees of a case', () => {
  it('never an answer a scorer reads from the case (expectedFromCase "key.sum"), nor the case\'s requirements; the grading still reads them', async () => {
    const dir = await answerKeyWorkspace();
    const run = await cliAsync(['run', '--json', '-C', dir]);
    expect(run.code, run.stderr).toBe(0);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    const store = Store.open(dir, { now: () => new Date() });
    const records = store.records(runId);
    store.close();
    // Graded against key.sum: both pass (the agent adds up the question).
    expect(records.map((r) => [r.caseId, r.pass])).toEqual([
      ['sum-1', true],
      ['sum-2', true],
    ]);
    for (const record of records) {
      const trace = (await readTrace(path.join(dir, 'traces'), record.traceRef)) ?? [];
      const seen = trace.find((e) => e.type === 'message' && e.role === 'user') as { text: string } | undefined;
      expect(seen, `what ${record.caseId}'s agent read`).toBeDefined();
      const received = JSON.parse(seen?.text ?? 'null') as Record<string, unknown>;
      expect(received).toEqual({ id: record.caseId, question: expect.any(String), key: { note: 'kept' } });
      expect(seen?.text).not.toContain(String(ANSWERS[record.caseId]));
    }
  }, 120_000);
});
