// docs/getting-started.md takes a new user from a fresh clone to a dry gate of their own
// `command` agent with copy-paste commands only. Its shell blocks run here as written, in order,
// from the clone (bash, a home folder of its own, no network), so a step that stops working, or
// an instruction that only works after a registry release, fails this test.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/workspace.ts';

const page = readFileSync(path.join(repoRoot, 'docs', 'getting-started.md'), 'utf8');
const blocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());

describe('docs/getting-started.md', () => {
  it('runs from nothing to a dry gate that rejects the broken branch and names the case', () => {
    // `npm ci` is what the suite itself stands on: the clone is installed already.
    const steps = blocks.filter((block) => block !== 'npm ci');
    expect(blocks).toContain('npm ci');
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const home = tempDir('agentdevel-home-');
    const ran = spawnSync('bash', ['-eo', 'pipefail', '-c', steps.join('\n')], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 240_000,
      env: {
        ...process.env,
        HOME: home,
        CI: 'true',
        ANTHROPIC_API_KEY: '',
        npm_config_cache: path.join(home, '.npm'),
        npm_config_offline: 'true',
        GIT_AUTHOR_NAME: 'New User',
        GIT_AUTHOR_EMAIL: 'new.user@example.com',
        GIT_COMMITTER_NAME: 'New User',
        GIT_COMMITTER_EMAIL: 'new.user@example.com',
      },
    });
    const shown = `${ran.stdout}\n${ran.stderr}`;
    expect(ran.status, shown).toBe(0);
    // The scaffold passes, and still passes under the task with every scorer kind.
    expect(ran.stdout.match(/pass rate 100\.0% \(6\/6 case-trials\)/g)?.length, shown).toBe(2);
    expect(ran.stdout).toMatch(/trial 0: PASS/);
    // The dry gate rejects the rounding branch (exit 1) and names the case with its reason.
    expect(ran.stdout).toMatch(/round-answers: rejected/);
    expect(ran.stdout).toMatch(/regression add-2: numeric scorer: expected "2\.75 ± 0\.000001" at answer, got 3/);
    expect(ran.stdout).toMatch(/exit code 1/);
  });
});
