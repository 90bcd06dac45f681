// The test hook's switch (AGENTDEVEL_TEST_PAUSE_AT, read only in app/command-options.ts): unset it does
// nothing; set, it names a known moment and a marker file, or the command refuses to start.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointOf } from '../../src/app/command-options.ts';
import { pauseAt } from '../../src/adapters/checkpoint/test-pause.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { noCheckpoint } from '../../src/domain/ports/checkpoint.ts';
import { tempDir } from '../helpers/workspace.ts';

describe('the test hook AGENTDEVEL_TEST_PAUSE_AT', () => {
  it('is a no-op unless set', () => {
    expect(checkpointOf({ env: {}, cwd: tempDir() })).toBe(noCheckpoint);
    expect(checkpointOf({ env: { AGENTDEVEL_TEST_PAUSE_AT: '' }, cwd: tempDir() })).toBe(noCheckpoint);
  });

  it('refuses a moment it does not know, and a pause without its marker file (USAGE)', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        checkpointOf({ env, cwd: tempDir() });
      } catch (error) {
        return error;
      }
      return null;
    };
    const unknown = refusal({ AGENTDEVEL_TEST_PAUSE_AT: 'journal-writen', AGENTDEVEL_TEST_PAUSE_FILE: 'p' });
    expect(unknown).toBeInstanceOf(AgentdevelError);
    expect((unknown as AgentdevelError).message).toBe('AGENTDEVEL_TEST_PAUSE_AT: expected one of release-committed, journal-written, refs-moved, worker-took-job, got "journal-writen"');
    const noFile = refusal({ AGENTDEVEL_TEST_PAUSE_AT: 'journal-written' });
    expect((noFile as AgentdevelError).code).toBe('USAGE');
    expect((noFile as AgentdevelError).message).toMatch(/without AGENTDEVEL_TEST_PAUSE_FILE/);
  });

  it('passes every other moment at once, writing nothing', async () => {
    const cwd = tempDir();
    const checkpoint = checkpointOf({ env: { AGENTDEVEL_TEST_PAUSE_AT: 'refs-moved', AGENTDEVEL_TEST_PAUSE_FILE: 'paused' }, cwd });
    await checkpoint('release-committed');
    await checkpoint('journal-written');
    await checkpoint('worker-took-job');
    expect(existsSync(path.join(cwd, 'paused'))).toBe(false);
  });

  it('at its moment, the marker appears whole (renamed into place) for each job that reaches it, and nothing is left aside', async () => {
    const cwd = tempDir();
    const marker = path.join(cwd, 'paused');
    // Two jobs reach it together; the pause gives up after 300 ms here (10 minutes in a command).
    const checkpoint = pauseAt('worker-took-job', marker, 300);
    const held = await Promise.allSettled([checkpoint('worker-took-job'), checkpoint('worker-took-job')]);
    // Both held until the bound, neither broken by the other's file aside (a shared one would fail a rename).
    expect(held.map((h) => (h.status === 'rejected' ? String((h.reason as Error).message) : h.status))).toEqual([
      expect.stringMatching(/^paused at worker-took-job/),
      expect.stringMatching(/^paused at worker-took-job/),
    ]);
    expect(readdirSync(cwd)).toEqual(['paused']);
    expect(readFileSync(marker, 'utf8')).toBe(`worker-took-job ${process.pid}\n`);
  });
});
