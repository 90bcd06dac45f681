import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync, git, tempDir } from '../helpers/workspace.ts';

describe('a command agent in the decision', () => {
  it('records the agent model as "command", what ran, not the configured mock', async () => {
    const dir = path.join(tempDir(), 'command');
    mkdirSync(dir);
    git(dir, 'init', '-q', '--initial-branch=main');
    expect((await cliAsync(['init', '--runtime', 'command', '-C', dir])).code).toBe(0);
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
