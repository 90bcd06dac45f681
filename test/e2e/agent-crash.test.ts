// A crashing agent keeps its cause: a command agent with a syntax error shows the error's first
// line and its line number in `run`'s failing list and in `show`, and the tail of its stderr is
// in the trace, redacted (a value passed through passEnv never shows).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, runMain, tempDir, writeFileIn } from '../helpers/workspace.ts';

const agentdevel = (dir: string, args: string[]) => runMain([...args, '-C', dir], { cwd: dir, env: { AGENT_TOKEN: 'hunter2-correct-horse' } });

describe('an agent that crashes', () => {
  it('keeps its error and line number in run and show, and its stderr tail in the trace, redacted', async () => {
    const dir = path.join(tempDir('agentdevel-crash-'), 'ws');
    writeFileIn(dir, 'agentdevel.config.json', JSON.stringify({ blueprint: 'adder', task: 'sums', models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' }, command: { passEnv: ['AGENT_TOKEN'] } }, null, 2));
    writeFileIn(dir, 'blueprints/adder/blueprint.json', JSON.stringify({ runtime: 'command', command: ['node', 'agent.mjs'], timeoutMs: 20_000 }));
    // The main module imports a helper that logs the token and then a module with a syntax error on line 3.
    writeFileIn(dir, 'blueprints/adder/agent.mjs', "import './log.mjs';\nimport './sum.mjs';\n");
    writeFileIn(dir, 'blueprints/adder/log.mjs', "console.error('token is ' + process.env.AGENT_TOKEN);\n");
    writeFileIn(dir, 'blueprints/adder/sum.mjs', 'export function sum(a, b) {\n  const total = a + b;\n  return total 1;\n}\n');
    writeFileIn(dir, 'rubrics/sums/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer' }] }));
    writeFileIn(dir, 'rubrics/sums/rubric.md', 'Answer with the sum of a and b.\n');
    writeFileIn(dir, 'rubrics/sums/train.jsonl', `${JSON.stringify({ id: 'c1', a: 1, b: 2, expected: { answer: 3 } })}\n`);
    writeFileIn(dir, 'rubrics/sums/test.jsonl', `${JSON.stringify({ id: 't1', a: 1, b: 1, expected: { answer: 2 } })}\n`);
    writeFileIn(dir, '.gitignore', '.agentdevel/\ntraces/\n');
    execFileSync('git', ['init', '-q', '-b', 'main', dir]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'an agent with a syntax error');

    // Modules are parsed before any runs, so the syntax error stops the agent before the helper prints.
    const run = await agentdevel(dir, ['run']);
    expect(run.stdout).toMatch(/^ {2}c1 {2}.*agent error: exited with code 1: SyntaxError: Unexpected number \(at sum\.mjs:3\)/m);
    const show = await agentdevel(dir, ['show', 'c1']);
    expect(show.stdout).toMatch(/agent error: exited with code 1: SyntaxError: Unexpected number \(at sum\.mjs:3\)/);
    // The tail of stderr, as Node printed it: the line, the caret, the error.
    expect(show.stdout).toMatch(/stderr \(last lines\):[\s\S]*return total 1;[\s\S]*SyntaxError: Unexpected number/);

    // A runtime error after the helper printed the token: the tail is kept, the token is not.
    writeFileIn(dir, 'blueprints/adder/sum.mjs', "export function sum(a, b) {\n  return a + b;\n}\nthrow new TypeError('no input parser');\n");
    git(dir, 'commit', '-qam', 'a runtime error instead');
    const again = await agentdevel(dir, ['run']);
    expect(again.stdout).toMatch(/agent error: exited with code 1: TypeError: no input parser \(at sum\.mjs:4\)/);
    const shown = (await agentdevel(dir, ['show', 'c1'])).stdout;
    expect(shown).toMatch(/stderr \(last lines\):[\s\S]*token is/);
    expect(shown).not.toContain('hunter2-correct-horse');
  }, 120_000);
});
