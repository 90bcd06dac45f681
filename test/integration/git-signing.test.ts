// Commits agentdevel makes are signed where the user's git signs them: git gets the signing
// agent's socket (here ssh-agent, with `gpg.format ssh`), never agentdevel's secrets.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/adapters/git/git.ts';
import { tempDir } from '../helpers/workspace.ts';

let agent: { sock: string; pid: number };
let saved: { sock: string | undefined; secret: string | undefined };

beforeAll(() => {
  const started = execFileSync('ssh-agent', ['-s'], { encoding: 'utf8' });
  agent = { sock: /SSH_AUTH_SOCK=([^;]+);/.exec(started)?.[1] ?? '', pid: Number(/SSH_AGENT_PID=(\d+);/.exec(started)?.[1]) };
  saved = { sock: process.env.SSH_AUTH_SOCK, secret: process.env.ANTHROPIC_API_KEY };
  process.env.SSH_AUTH_SOCK = agent.sock;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-signing-test-secret';
});

afterAll(() => {
  if (saved.sock === undefined) delete process.env.SSH_AUTH_SOCK;
  else process.env.SSH_AUTH_SOCK = saved.sock;
  if (saved.secret === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = saved.secret;
  if (agent.pid > 0) process.kill(agent.pid, 'SIGTERM');
});

describe('signed commits', () => {
  it('an RC commit is signed with the key in ssh-agent when the repository signs commits, and its hooks see no secret', async () => {
    const dir = tempDir('agentdevel-signing-');
    const key = path.join(tempDir('agentdevel-key-'), 'id');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'agentdevel-test', '-f', key]);
    expect(spawnSync('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: agent.sock } }).status).toBe(0);
    // Only the agent holds the private key now, as for a user whose key lives in ssh-agent.
    rmSync(key);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Signer');
    git('config', 'user.email', 'signer@example.invalid');
    git('config', 'gpg.format', 'ssh');
    git('config', 'user.signingkey', `${key}.pub`);
    git('config', 'commit.gpgSign', 'true');
    // A hook that writes down what it sees of the environment.
    const seen = path.join(dir, '.git', 'seen-env');
    writeFileSync(path.join(dir, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\nenv > "${seen}"\n`, { mode: 0o755 });
    writeFileSync(path.join(dir, 'prompt.md'), 'Answer briefly.\n');
    const repo = await GitRepo.open(dir);
    const commit = await repo.commitAll(dir, 'rc: a signed candidate');
    expect(git('cat-file', 'commit', commit)).toContain('-----BEGIN SSH SIGNATURE-----');
    const hookEnv = readFileSync(seen, 'utf8');
    expect(hookEnv).toContain(`SSH_AUTH_SOCK=${agent.sock}`);
    expect(hookEnv).not.toContain('sk-ant-signing-test-secret');
  });
});
