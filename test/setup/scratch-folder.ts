// One temporary folder for the whole suite (see vitest.config.ts): TMPDIR points into it, so the
// folders the tests make (tempDir, mkdtemp) and those of the processes they start land there, and
// it is removed when the suite ends, instead of some four hundred folders left in /tmp per run.
// tsx's cache of compiled sources stays where it was (a link to it), warm from run to run.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(tmpdir(), 'agentdevel-suite-'));
  // As tsx names it: by the effective user id, else the user's name.
  const tsxCache = `tsx-${process.geteuid ? process.geteuid() : userInfo().username}`;
  mkdirSync(path.join(tmpdir(), tsxCache), { recursive: true, mode: 0o700 });
  symlinkSync(path.join(tmpdir(), tsxCache), path.join(scratch, tsxCache));
  // Read by os.tmpdir() in the test workers (forked with this environment) and in every child.
  process.env.TMPDIR = scratch;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    // The link goes, not what it points to.
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  };
}
