// Secrets are values, not names. A `command` agent that receives a password through `passEnv`,
// under names no pattern recognises, prints it in its messages, its output and its errors; a run
// and a gate recorded in git must not hold it anywhere: not on stdout or stderr, not in the
// JUnit, the traces, the store, the working tree or any object git keeps. A variable the
// workspace declares in `secrets` is redacted from what the command prints, whatever its name.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openCommand } from '../../src/app/compose.ts';
import { cli, git, tempDir, writeFileIn } from '../helpers/workspace.ts';

const PASSWORD = 'hunter2-Orders';
const LOGIN = 'shop-admin-77';
const DECLARED = 'corp-vault-0042';

const AGENT = `import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
const pw = process.env.ORDERS_DB_PW, login = process.env.SHOP_LOGIN;
console.log(JSON.stringify({ type: 'message', role: 'assistant', text: 'connecting as ' + login + ' with ' + pw }));
if (input.id === 'broken') { console.log(JSON.stringify({ type: 'error', kind: 'agent', message: 'login ' + login + ':' + pw + ' refused' })); process.exit(1); }
const fixed = FIXED;
console.log(JSON.stringify({ type: 'final', output: { answer: input.a + input.b + (input.id === 'c2' && !fixed ? 1 : 0), note: JSON.stringify({ pw, login }) } }));
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe('every passEnv value and declared secret is redacted, whatever its name', () => {
  let dir: string;
  const env = { ORDERS_DB_PW: PASSWORD, SHOP_LOGIN: LOGIN, VAULT_REF: DECLARED };

  beforeAll(() => {
    dir = path.join(tempDir('agentdevel-secrets-'), 'ws');
    const config = { blueprint: 'adder', task: 'sums', models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, command: { passEnv: ['ORDERS_DB_PW', 'SHOP_LOGIN'] }, secrets: ['VAULT_REF'] };
    writeFileIn(dir, 'agentdevel.config.json', JSON.stringify(config, null, 2));
    writeFileIn(dir, 'blueprints/adder/blueprint.json', JSON.stringify({ runtime: 'command', command: ['node', 'agent.mjs'], timeoutMs: 20_000 }));
    writeFileIn(dir, 'blueprints/adder/agent.mjs', AGENT.replace('FIXED', 'false'));
    writeFileIn(dir, 'rubrics/sums/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer' }] }));
    writeFileIn(dir, 'rubrics/sums/rubric.md', 'Answer with the sum of a and b.\n');
    const cases = ['c1', 'c2', 'c3', 'broken'].map((id, i) => JSON.stringify({ id, a: i, b: 1, expected: { answer: i + 1 } }));
    writeFileIn(dir, 'rubrics/sums/train.jsonl', `${cases.join('\n')}\n`);
    writeFileIn(dir, 'rubrics/sums/test.jsonl', `${JSON.stringify({ id: 't0', a: 1, b: 1, expected: { answer: 2 } })}\n`);
    writeFileIn(dir, '.gitignore', '.agentdevel/\n');
    execFileSync('git', ['init', '-q', '-b', 'main', dir]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'an adder that talks about its password');
    git(dir, 'checkout', '-q', '-b', 'fix-c2');
    writeFileIn(dir, 'blueprints/adder/agent.mjs', AGENT.replace('FIXED', 'true'));
    git(dir, 'commit', '-qam', 'fix c2');
    git(dir, 'checkout', '-q', 'main');
  });

  it('keeps them out of stdout, stderr, the JUnit, traces, the store, the tree and every git object', () => {
    const junit = path.join(dir, '..', 'run.xml');
    const run = cli(['run', '--json', '--junit', junit, '-C', dir], { env });
    expect(run.code, run.stderr).toBe(0);
    const gate = cli(['gate', '--candidate', 'fix-c2', '-C', dir], { env });
    expect([0, 1]).toContain(gate.code);
    // The agent did print them: the redaction is what keeps them out.
    expect(run.stdout + readFileSync(junit, 'utf8')).toContain('[redacted]');
    const everything = [
      run.stdout,
      run.stderr,
      gate.stdout,
      gate.stderr,
      readFileSync(junit, 'utf8'),
      ...filesUnder(dir)
        .filter((f) => !f.includes(`${path.sep}.git${path.sep}`))
        .map((f) => readFileSync(f, 'latin1')),
      // Every object git keeps, whatever ref reaches it.
      execFileSync('git', ['-C', dir, 'log', '--all', '-p', '--format=%B'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
      execFileSync('git', ['-C', dir, 'for-each-ref', '--format=%(refname) %(contents)'], { encoding: 'utf8' }),
    ].join('\n');
    expect(everything).toContain('decision');
    for (const secret of [PASSWORD, LOGIN]) expect(everything).not.toContain(secret);
  });

  it('redacts a declared secret from what the command prints', async () => {
    const sink = { text: '', write(chunk: string) { this.text += chunk; return true; } };
    const io = { stdout: sink, stderr: sink, env: { PATH: process.env.PATH ?? '', ...env }, cwd: dir, clock: { now: () => new Date() } } as unknown as Parameters<typeof openCommand>[0];
    const command = await openCommand(io, { C: dir }, null);
    try {
      expect(command.redact(`the vault says ${DECLARED}`)).toBe('the vault says [redacted]');
      command.reporter.emit({ type: 'stage', stage: 'run', message: `vault ${DECLARED}` });
      expect(sink.text).not.toContain(DECLARED);
    } finally {
      await command.close();
    }
  });
});
