// One temporary folder for the whole suite (see vitest.config.ts): TMPDIR points into it, so the
// folders the tests make (tempDir, mkdtemp) and those of the processes they start land there, and
// it is removed when the suite ends, instead of some four hundred folders left in /tmp per run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(tmpdir(), 'agentdevel-suite-'));
  // Read by os.tmpdir() in the test workers (forked with this environment) and in every child.
  process.env.TMPDIR = scratch;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  };
}
