// The layered gate end to end on the bundled example (mock engine): the checks layer vetoes a
// broken must-pass case even when the flips would accept; the approval layer holds a release
// until a person approves (all or nothing, recoverable) or declines it; an RC that only costs
// less is promoted on efficiency only when the config allows it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/app/workspace.ts';
import { prepareApproval } from '../../src/pipeline/workspace/approval.ts';
import { XMLParser } from 'fast-xml-parser';
import MarkdownIt from 'markdown-it';
import { cli, decisionLog, exampleWorkspace, git, lineState, tempDir } from '../helpers/workspace.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';

function setGate(dir: string, gate: Record<string, unknown>, message: string): void {
  const file = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as { gate: Record<string, unknown> };
  config.gate = { ...config.gate, ...gate };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  git(dir, 'commit', '-qam', message);
}

const log = decisionLog;

describe('the checks layer', () => {
  it('vetoes a candidate that breaks a must-pass case, even when the flips layer would accept it', async () => {
    const dir = await exampleWorkspace();
    // The flips layer tolerates one confirmed regression here, so only the checks layer can refuse.
    setGate(dir, { maxSignificantRegressions: 1 }, 'tolerate one regression');
    git(dir, 'checkout', '-q', '-b', 'breaks-must-pass');
    const wrapper = path.join(dir, 'blueprints/support-agent/tools/get_order.ts');
    writeFileSync(wrapper, readFileSync(wrapper, 'utf8').replace('=> ctx.env.getOrder(args.order_id)', "=> { if (args.order_id === 'W1015') throw new Error('order service down'); return ctx.env.getOrder(args.order_id); }"));
    git(dir, 'commit', '-qam', 'get_order fails for one order');
    git(dir, 'checkout', '-q', 'main');

    const out = tempDir('veto-');
    const result = cli(['gate', '--candidate', 'breaks-must-pass', '--summary', path.join(out, 'summary.md'), '--junit', path.join(out, 'junit.xml'), '-C', dir]);
    expect(result.code).toBe(1);
    // The veto's reason, naming the case and what failed in it, in all four outputs.
    const reason = /checks layer: 1 must-pass case failed in the candidate: train-025 \([^)]*scorer[^)]*expected/;
    // 1. The CLI: the decision, then why, before anything else.
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('breaks-must-pass: rejected');
    expect(lines[1]).toMatch(/^ {2}why: /);
    expect(lines[1]).toMatch(reason);
    // 2. The summary (markdown: its punctuation is escaped, so compare the rendered text).
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    const summaryText = new MarkdownIt({ html: true }).render(summary).replace(/<[^>]+>/g, '').replace(/\u2060/g, '');
    expect(summaryText).toMatch(reason);
    expect(summary.indexOf('train-025')).toBeLessThan(summary.indexOf('**Checks**'));
    // 3. The HTML report: the headline opens the page.
    const reportFile = /^ {2}report: (.+)$/m.exec(result.stdout)?.[1] ?? '';
    const html = readFileSync(reportFile, 'utf8');
    const headline = /<section class="headline failed" id="decision">(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    expect(headline.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&')).toMatch(reason);
    // 4. JUnit: the must-pass case is the failure, and the reason is a suite property.
    const xml = readFileSync(path.join(out, 'junit.xml'), 'utf8');
    const suite = (new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { testsuite: { testcase: Array<Record<string, unknown>>; properties: { property: Array<Record<string, string>> } } } }).testsuites.testsuite;
    const failure = suite.testcase.find((t) => t['@_name'] === 'train-025')?.failure as Record<string, string>;
    expect(failure['@_type']).toBe('veto');
    expect(failure['@_message']).toMatch(/^checks layer: must-pass case failed: .*scorer/);
    expect(suite.properties.property.find((p) => p['@_name'] === 'agentdevel.reason.1')?.['@_value']).toMatch(reason);

    const json = JSON.parse(readFileSync(path.join(path.dirname(reportFile), 'decision.json'), 'utf8')) as { gate: { verdict: string; p2f: string[]; reasons: string[]; layers: Array<{ layer: string; verdict: string }> } };
    expect(json.gate.verdict).toBe('reject');
    expect(json.gate.p2f).toEqual(['train-025']);
    expect(json.gate.layers.map((l) => [l.layer, l.verdict])).toEqual([
      ['checks', 'veto'],
      ['flips', 'accept'],
      ['requirements', 'not_run'],
    ]);
    expect(json.gate.reasons[0]).toMatch(reason);
  }, 180_000);
});

describe('the approval layer', () => {
  it('holds an accepted RC for approval; approve promotes it after a crash mid-way; decline records the refusal', async () => {
    const dir = await exampleWorkspace();
    setGate(dir, { layers: [{ layer: 'checks', mustPass: ['tag:must-pass'] }, { layer: 'flips' }, { layer: 'requirements' }, { layer: 'approval' }] }, 'a person approves releases');
    const iterate = cli(['iterate', '--max-iterations', '3', '--json', '-C', dir]);
    expect(iterate.code).toBe(0);
    expect((JSON.parse(iterate.stdout) as { stopReason: string }).stopReason).toMatch(/iteration 2 \(support-agent\/v1\) awaits approval: `agentdevel approve 2`/);
    expect(log(dir).map((e) => [e.iteration, e.decision, e.tag])).toEqual([
      [1, 'rejected', null],
      [2, 'pending', 'support-agent/v1'],
    ]);
    expect(git(dir, 'tag')).toBe('');
    expect(git(dir, 'rev-parse', '--verify', '-q', 'refs/agentdevel/pending/support-agent/iter-002')).toMatch(/^[0-9a-f]{40}$/);
    // Another iterate builds nothing on a release that awaits a person.
    const again = cli(['iterate', '--json', '-C', dir]);
    expect((JSON.parse(again.stdout) as { iterations: unknown[] }).iterations).toEqual([]);

    // A crash after the approval's journal is written and before anything moved: the next command finishes it.
    const before = git(dir, 'rev-parse', 'main');
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: { now: () => new Date('2026-11-22T12:00:00Z') } });
    await prepareApproval(workspace, 2, 'Reviewer <reviewer@example.com>', { now: () => new Date('2026-11-22T12:00:00Z') }, { textDiff: wordDiff });
    await workspace.close();
    expect(git(dir, 'rev-parse', 'main')).toBe(before);
    expect(existsSync(path.join(dir, '.agentdevel', 'promotion.json'))).toBe(true);
    // Any writer finishes it first thing (here `run`, whose records of this release are reused).
    expect(cli(['run', '-C', dir]).code).toBe(0);
    expect(existsSync(path.join(dir, '.agentdevel', 'promotion.json'))).toBe(false);
    expect(git(dir, 'tag')).toBe('support-agent/v1');
    expect(git(dir, 'rev-parse', 'main')).toBe(git(dir, 'rev-parse', 'support-agent/v1^{commit}'));
    expect(git(dir, 'for-each-ref', 'refs/agentdevel/pending/')).toBe('');
    const decision = JSON.parse(git(dir, 'show', 'support-agent/v1:releases/support-agent/v1/decision.json')) as { outcome: string; approval: { verdict: string; by: string } };
    expect(decision).toMatchObject({ outcome: 'promoted', approval: { verdict: 'approved', by: 'Reviewer <reviewer@example.com>' } });
    expect(git(dir, 'show', 'support-agent/v1:releases/support-agent/v1/report.md')).toMatch(/\| Decision \| \*\*promoted\*\* as `support-agent\/v1`, approved by Reviewer/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(log(dir).map((e) => e.decision)).toEqual(['rejected', 'promoted']);
    // The approved release's committed report no longer waits, and `report` rebuilds it; the index lists it with its approver.
    expect(git(dir, 'show', 'support-agent/v1:releases/support-agent/v1/report.html')).not.toMatch(/awaiting approval/);
    expect(git(dir, 'show', 'support-agent/v1:releases/support-agent/index.html')).toMatch(/<code>support-agent\/v1<\/code>/);
    for (const target of [[], ['support-agent/v1']]) {
      const rebuilt = cli(['report', ...target, '--json', '-C', dir]);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      const written = JSON.parse(rebuilt.stdout) as { report: string; index: string; outcome: string };
      expect(written.outcome).toBe('promoted');
      expect(readFileSync(written.report, 'utf8')).toMatch(/approval layer: approved by Reviewer &lt;reviewer@example.com&gt;/);
      const index = readFileSync(written.index, 'utf8');
      expect(index).toMatch(/<td data-label="release"><a href="v1\/report.html"><code>support-agent\/v1<\/code><\/a><\/td><td data-label="date">2026-11-22<\/td>/);
      expect(index).toMatch(/<td data-label="approved by">Reviewer &lt;reviewer@example.com&gt;<\/td>/);
    }

    // The next accepted RC waits too; this one is declined, recorded in git, and the line stays.
    expect(cli(['iterate', '--max-iterations', '1', '-C', dir]).code).toBe(0);
    const pending = log(dir).find((e) => e.decision === 'pending');
    expect(pending).toBeDefined();
    const lineBefore = lineState(dir).split('\n').filter((l) => !l.includes('refs/agentdevel/'));
    expect(cli(['decline', String(pending?.iteration), '-C', dir]).code).toBe(2);
    const declined = cli(['decline', String(pending?.iteration), '--reason', 'not this quarter', '--by', 'Reviewer', '--json', '-C', dir]);
    expect(declined.code).toBe(0);
    expect(lineState(dir).split('\n').filter((l) => !l.includes('refs/agentdevel/'))).toEqual(lineBefore);
    const entry = log(dir).find((e) => e.iteration === pending?.iteration);
    expect(entry?.decision).toBe('declined');
    const folder = `releases/support-agent/declined/iter-${String(pending?.iteration).padStart(3, '0')}`;
    const document = JSON.parse(git(dir, 'show', `refs/agentdevel/rc/support-agent/iter-${String(pending?.iteration).padStart(3, '0')}:${folder}/decision.json`)) as { approval: unknown };
    expect(document.approval).toMatchObject({ verdict: 'declined', by: 'Reviewer', reason: 'not this quarter' });
    // report.md's Decision row is rendered again from the declined document; the rest stays as the gate wrote it.
    const report = git(dir, 'show', `refs/agentdevel/rc/support-agent/iter-${String(pending?.iteration).padStart(3, '0')}:${folder}/report.md`);
    expect(report).toMatch(/^\| Decision \| \*\*declined\*\* by Reviewer on \S+: not this quarter \|$/m);
    expect(report).not.toMatch(/\*\*pending\*\*/);
  }, 400_000);
});

describe('efficiency releases', () => {
  it('promote an RC that only costs less when allowed, and reject it when not', async () => {
    const dir = await exampleWorkspace();
    // The release re-reads every order before it answers: more calls, the same verdicts.
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    const original = readFileSync(prompt, 'utf8');
    writeFileSync(prompt, `${original.trimEnd()}\n\nJust before you answer the customer, look the order up again with get_order to double-check the figures.\n`);
    git(dir, 'commit', '-qam', 'the release re-reads orders');
    git(dir, 'checkout', '-q', '-b', 'cheaper');
    writeFileSync(prompt, original);
    git(dir, 'commit', '-qam', 'stop re-reading orders');
    git(dir, 'checkout', '-q', 'main');

    const off = cli(['gate', '--candidate', 'cheaper', '--targets', 'missing_required_output', '--json', '-C', dir]);
    expect(off.code).toBe(1);
    const offJson = JSON.parse(off.stdout) as { decision: string; f2p: string[]; p2f: string[]; reasons: string[] };
    expect(offJson).toMatchObject({ decision: 'reject', f2p: [], p2f: [] });
    expect(offJson.reasons.join(' ')).toMatch(/0 confirmed fixes \(at least 1 required\)/);

    setGate(dir, { allowEfficiencyReleases: true }, 'efficiency releases allowed');
    git(dir, 'rebase', '-q', 'main', 'cheaper');
    git(dir, 'checkout', '-q', 'main');
    const on = cli(['gate', '--candidate', 'cheaper', '--targets', 'missing_required_output', '--promote', '--json', '-C', dir]);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ decision: 'accept', outcome: 'promoted', tag: 'support-agent/v1' });
    const report = git(dir, 'show', 'support-agent/v1:releases/support-agent/v1/report.md');
    expect(report).toMatch(/\| Efficiency release \| promoted on efficiency: \d+ of \d+ cases (cost less|score higher)/);
    expect(report).toMatch(/\| Trace cost \(R_cost\) \| [\d.]+ → [\d.]+ per case-trial \(weights: steps 0.01, repeated calls 0.05, calls that changed no state 0.1\)/);
    const entry = log(dir).at(-1) as { efficiencyRelease: boolean; traceCost: { value: number; weights: unknown }; violationRate: number | null };
    expect(entry.efficiencyRelease).toBe(true);
    expect(entry.traceCost.weights).toEqual({ steps: 0.01, repeats: 0.05, noops: 0.1 });
    // The two example cases with a requirement of their own still miss their explicit yes in this release.
    expect(entry.violationRate).toBeCloseTo(2 / 44, 12);
  }, 300_000);
});
