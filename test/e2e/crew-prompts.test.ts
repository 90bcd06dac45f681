// `prompts --role critic|reviewer|diagnostician` on a crew explain what a crew's trace is (the
// `agent` of each event, a member's reply never reaching the user); on a single agent they do not.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaffoldExample } from '../../src/app/example.ts';
import { cliAsync, exampleWorkspace, tempDir } from '../helpers/workspace.ts';

const ROLES = ['critic', 'reviewer', 'diagnostician'] as const;

/** The system blocks each role is sent, after one recorded run of a few cases. */
async function systemBlocks(dir: string): Promise<Record<string, string>> {
  const run = await cliAsync(['run', '--case', 'train-001', '--case', 'train-002', '--case', 'train-003', '-C', dir]);
  expect(run.code, run.stderr).toBe(0);
  const blocks: Record<string, string> = {};
  for (const role of ROLES) {
    const shown = await cliAsync(['prompts', '--role', role, '--json', '-C', dir]);
    expect(shown.code, shown.stderr).toBe(0);
    const body = (JSON.parse(shown.stdout) as { body: { system: Array<{ text: string }> } }).body;
    blocks[role] = body.system.map((b) => b.text).join('\n');
  }
  return blocks;
}

describe('the prompts of the roles that read traces', () => {
  it('explain a crew to the critic, the reviewer and the diagnostician, and say nothing of crews to a single agent', async () => {
    const crew = path.join(tempDir('agentdevel-crew-prompts-'), 'ws');
    await scaffoldExample(crew, 'orders-crew');
    const [ofCrew, ofSingle] = await Promise.all([systemBlocks(crew), exampleWorkspace().then(systemBlocks)]);
    for (const role of ROLES) {
      expect(ofCrew[role], role).toContain('<crew>');
      expect(ofCrew[role], role).toMatch(/"agent" field/);
      expect(ofCrew[role], role).toMatch(/the user never sees them/);
      expect(ofSingle[role], role).not.toContain('<crew>');
      expect(ofSingle[role], role).not.toMatch(/orchestrator/);
    }
  }, 180_000);
});
