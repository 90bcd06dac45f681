// What `sync` says when git refuses: git's own lines (rejected refs, fatal errors), never only an
// exit code, and never a credential from the remote's URL.
import { describe, expect, it } from 'vitest';
import { gitComplaint } from '../../src/adapters/git/transfer.ts';

describe('gitComplaint', () => {
  it('keeps the lines that say what git refused, and redacts a password in a URL', () => {
    const stderr = [
      'From https://ci-bot:ghp_secretToken123@example.com/org/repo',
      ' * [new ref]         refs/agentdevel/rc/bp/iter-001 -> refs/agentdevel-fetched/origin/rc/bp/iter-001',
      ' ! [rejected]        bp/v2      -> bp/v2  (would clobber existing tag)',
      "error: some local refs could not be updated; try running 'git remote prune origin'",
    ].join('\n');
    expect(gitComplaint(stderr)).toBe("! [rejected]        bp/v2      -> bp/v2  (would clobber existing tag); error: some local refs could not be updated; try running 'git remote prune origin'");
    expect(gitComplaint("fatal: unable to access 'https://ci-bot:ghp_secretToken123@example.com/org/repo/': Could not resolve host")).toBe("fatal: unable to access 'https://ci-bot:[redacted]@example.com/org/repo/': Could not resolve host");
    // Nothing git flagged: its last lines, as they are.
    expect(gitComplaint('one\ntwo\nthree\nfour\n')).toBe('two; three; four');
  });
});
