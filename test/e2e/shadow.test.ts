import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, exampleWorkspace, git, lineState, tempDir } from '../helpers/workspace.ts';

describe('agentdevel shadow --against REF', () => {
  it("prints a human fix's flips beside agentdevel's own RC from the same base, exits 0, and moves no line, branch or tag", async () => {
    const dir = await exampleWorkspace();
    // A hand-written fix on its own branch: the shop's "confirm first" rule, in the prompt.
    git(dir, 'checkout', '-q', '-b', 'human-fix');
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    const text = readFileSync(prompt, 'utf8');
    writeFileSync(prompt, text.replace('You can use these tools', 'Before you cancel an order or return items, say what you will do and ask the customer to confirm. Act only after a clear yes.\n\nYou can use these tools'));
    git(dir, 'commit', '-qam', 'human fix: ask before acting');
    git(dir, 'checkout', '-q', 'main');
    const before = lineState(dir);

    const result = cli(['shadow', '--against', 'human-fix', '-C', dir]);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/shadow against human-fix, both gated against the base/);
    expect(result.stdout).toMatch(/^F→P\s+\d+: .*\s{2}\d+: /m);
    expect(result.stdout).toMatch(/^P→F\s+\d+: /m);
    expect(result.stdout).toMatch(/fixed by both: /);
    expect(result.stdout).toMatch(/the gate prefers: (human|agentdevel|neither|either) \(/);
    // Nothing moved: the line, every branch, every tag, every agentdevel ref.
    expect(lineState(dir)).toBe(before);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    // CI: --summary writes the comparison as markdown, its own section, also on the job page; a
    // branch name that is markup (a table pipe, HTML, a mention) stays text.
    git(dir, 'branch', 'fix-<b>|@team', 'human-fix');
    const reports = tempDir();
    const summary = path.join(reports, 'shadow-summary.md');
    const stepSummary = path.join(reports, 'step-summary.md');
    writeFileSync(stepSummary, '### agentdevel gate: the gate\'s own section\n');
    const json = cli(['shadow', '--against', 'fix-<b>|@team', '--json', '--summary', summary, '-C', dir], { env: { GITHUB_STEP_SUMMARY: stepSummary } });
    expect(json.code).toBe(0);
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown.startsWith("### agentdevel shadow (advisory): `fix-<b>|@team` beside agentdevel's own RC\n")).toBe(true);
    const row = markdown.split('\n').find((l) => l.startsWith('| change |'));
    expect(row).toContain('`fix-<b>\\|@team`');
    expect(row?.split(/(?<!\\)\|/).length).toBe(5);
    expect(markdown).toMatch(/^\| F→P \| \d+: `train-\d{3}`/m);
    expect(markdown).toMatch(/^- \*\*The gate prefers:\*\* (human|agentdevel|neither|either) \(/m);
    expect(readFileSync(stepSummary, 'utf8')).toBe(`### agentdevel gate: the gate's own section\n${markdown}\n`);
    git(dir, 'branch', '-D', 'fix-<b>|@team');
    const outcome = JSON.parse(json.stdout) as { human: { f2p: string[]; verdict: string }; agentdevel: { f2p: string[]; verdict: string; intent: unknown } };
    expect(outcome.human.f2p.length).toBeGreaterThan(0);
    expect(outcome.agentdevel.verdict).not.toBe('none');
    expect(outcome.agentdevel.intent).not.toBeNull();
    expect(lineState(dir)).toBe(before);
    expect(cli(['shadow', '--against', 'no-such-branch', '-C', dir]).code).toBe(2);
  }, 180_000);
});
