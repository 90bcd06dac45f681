// The test hook's switch (AGENTDEVEL_TEST_PAUSE_AT, read only in cli/io.ts): unset it does
// nothing; set, it names a known moment and a marker file, or the command refuses to start.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointOf } from '../../src/cli/io.ts';
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
});
