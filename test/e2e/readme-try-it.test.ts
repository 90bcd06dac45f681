// The README's "Gate your own agent" tells a new user, in a fresh clone, how to start a
// workspace of their own. Its commands run here as written (bash, from the clone, with a home folder of its own),
// so an instruction that only works after a registry release fails this test.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/workspace.ts';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const heading = '## Gate your own agent';
const tryIt = readme.slice(readme.indexOf(heading), readme.indexOf('\n## ', readme.indexOf(heading) + 1));
const blocks = [...tryIt.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());

describe("the README's Gate your own agent", () => {
  it('starts a workspace of your own from the clone, and its run passes', () => {
    const start = blocks.find((block) => block.includes('agentdevel init'));
    expect(start, 'a shell block that runs agentdevel init').toBeDefined();
    const home = tempDir('agentdevel-home-');
    // npx installs the clone from a cache of its own, which runs its `prepare` (the bundle's build)
    // in the clone itself: the suite's other files run that bundle meanwhile, so the suite's
    // set-up build is the one used (a user's npx rebuilds it, to the same result).
    const ran = spawnSync('bash', ['-eo', 'pipefail', '-c', start as string], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, HOME: home, CI: 'true', ANTHROPIC_API_KEY: '', npm_config_cache: path.join(home, '.npm'), npm_config_offline: 'true', npm_config_ignore_scripts: 'true', GIT_AUTHOR_NAME: 'New User', GIT_AUTHOR_EMAIL: 'new.user@example.com', GIT_COMMITTER_NAME: 'New User', GIT_COMMITTER_EMAIL: 'new.user@example.com' },
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(existsSync(path.join(home, 'my-agent', 'blueprints', 'my-agent', 'agent.mjs'))).toBe(true);
    expect(ran.stdout).toMatch(/pass rate 100\.0% \(6\/6 case-trials\)/);
  });
});
