// The HTML flip report in a real browser: Debian's chromium (installed by .ci/run), driven by
// playwright-core. The page must show the flipped cases, a side-by-side trace and the RC's
// diff with no network; a screenshot is kept in test-artifacts/ (git-ignored). Report pages run
// no script (their Content-Security-Policy forbids it): the case filters work by CSS alone.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exampleWorkspace, git, repoRoot, tempDir } from '../helpers/workspace.ts';

const CHROMIUM = '/usr/bin/chromium';
const artifacts = path.join(repoRoot, 'test-artifacts');

let dir: string;
let context: BrowserContext;

/**
 * Every element that reaches past its card, or past the page: checked with every <details> open.
 * Inside a box that scrolls or clips (a long <pre>, a wide evidence table) the box itself is what
 * must fit. Runs in the page (the test's own types know no DOM, so it is passed as source).
 */
/** The words of the line index's column headers that the browser broke across two lines. */
const WORDS_SPLIT = `(() => {
  const split = [];
  for (const th of document.querySelectorAll('table.releases th')) {
    const node = th.firstChild;
    if (!node || node.nodeType !== Node.TEXT_NODE) continue;
    let at = 0;
    for (const word of node.textContent.split(' ')) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) split.push(word);
      at += word.length + 1;
    }
  }
  return split;
})()`;

const SPILLS = `(() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const found = [];
  const pageWidth = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > pageWidth) found.push('the page is ' + document.documentElement.scrollWidth + ' px wide > ' + pageWidth);
  const clipped = (el, card) => {
    for (let p = el.parentElement; p && p !== card; p = p.parentElement) if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true;
    return false;
  };
  for (const card of document.querySelectorAll('section.case, section.headline, .side, .case-browser, table, svg.chart, header, footer, ul, p')) {
    const outer = card.getBoundingClientRect();
    if (outer.right > pageWidth + 1) found.push(card.tagName + '.' + card.className + ' ends at ' + Math.round(outer.right) + ' > ' + pageWidth);
    for (const el of card.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if ((r.width === 0 && r.height === 0) || clipped(el, card)) continue;
      if (r.right > outer.right + 1 || r.left < outer.left - 1) found.push(el.tagName + '.' + el.className + ' in ' + card.tagName + '.' + card.className + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' outside ' + Math.round(outer.left) + '..' + Math.round(outer.right));
    }
  }
  return found;
})()`;

const WIDTHS = [
  [1280, 800],
  [390, 844],
] as const;

beforeAll(async () => {
  dir = await exampleWorkspace();
  // Three iterations of the example: a rejected RC, then support-agent/v1 and support-agent/v2.
  const iterate = cli(['iterate', '--max-iterations', '3', '-C', dir], { env: { ANTHROPIC_API_KEY: '' } });
  expect(iterate.code, iterate.stderr).toBe(0);
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`).toBe(true);
  // A fresh profile each time (playwright passes it as --user-data-dir); headless is playwright's default.
  context = await chromium.launchPersistentContext(tempDir('agentdevel-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 180_000);

afterAll(async () => {
  await context?.close();
});

describe('the HTML flip report', () => {
  it('shows the fixed cases, each side by side with its trace, and the RC diff, offline; a screenshot is kept', async () => {
    const written = cli(['report', 'support-agent/v2', '--json', '-C', dir]);
    expect(written.code, written.stderr).toBe(0);
    const { report, index } = JSON.parse(written.stdout) as { report: string; index: string };

    // Nothing may come from the network: every request other than the file itself fails the test.
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    await page.goto(`file://${report}`);

    await expect(page.locator('h1').textContent()).resolves.toBe('Release support-agent/v2');
    // The fixes the decision recorded in git (9 in the bundled example), each with its own section.
    const decision = JSON.parse(git(dir, 'show', 'support-agent/v2:releases/support-agent/v2/decision.json')) as { gate: { f2p: string[] } };
    expect(decision.gate.f2p.length).toBeGreaterThan(0);
    const fixed = page.locator('section.case[data-kind="fix"]');
    expect(await fixed.evaluateAll((sections) => sections.map((s) => s.getAttribute('data-case')))).toEqual(decision.gate.f2p);
    expect(await page.locator('h3:has-text("Fixes") + ul.flips li').count()).toBe(decision.gate.f2p.length);
    // The compact table lists each one; a fix's details are closed until asked for.
    expect(await page.locator('table.case-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual(decision.gate.f2p);
    expect(await fixed.first().locator('.side.baseline').isVisible()).toBe(false);
    // Each fixed case, opened: the baseline failing, the candidate passing, each with its trace, side by side.
    for (const section of await fixed.all()) {
      await section.locator('summary').first().click();
      const baseline = section.locator('.side.baseline');
      const candidate = section.locator('.side.candidate');
      // Counted over the gate's screening runs, as report.md counts them: the release's three records.
      await expect(baseline.locator('h4').textContent()).resolves.toMatch(/^baseline: 0\/3 trials passed/);
      await expect(candidate.locator('h4').textContent()).resolves.toMatch(/^candidate: 1\/1 trials passed/);
      expect(await baseline.locator('ol.trace li').count()).toBeGreaterThan(2);
      expect(await candidate.locator('ol.trace li').count()).toBeGreaterThan(2);
      // The trace is collapsed until asked for.
      expect(await candidate.locator('ol.trace').isVisible()).toBe(false);
      const [left, right] = [await baseline.boundingBox(), await candidate.boundingBox()];
      expect(left && right && left.x + left.width <= right.x && Math.abs(left.y - right.y) < 1).toBe(true);
      // Expected against actual: the failing baseline trial names the scorer's check.
      await expect(baseline.textContent()).resolves.toMatch(/state scorer: expected/);
    }
    const diff = page.locator('pre.diff');
    await expect(diff.textContent()).resolves.toMatch(/diff --git a\/blueprints\/support-agent\//);
    expect(await diff.locator('span.add').count()).toBeGreaterThan(0);
    await expect(page.locator('#diagnosis + p').textContent()).resolves.toBeTruthy();

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'flip-report-support-agent-v2.png'), fullPage: true });
    expect(existsSync(path.join(artifacts, 'flip-report-support-agent-v2.png'))).toBe(true);

    await page.goto(`file://${index}`);
    expect(await page.locator('svg.chart path[data-series="pass rate"]').count()).toBe(1);
    expect(await page.locator('table.releases tr').count()).toBe(3);
    await page.screenshot({ path: path.join(artifacts, 'line-index.png') });
    expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
  });

  it('lays out the line index within the page at 1280 and 390 px (each release a card of labelled lines on a phone)', async () => {
    const written = cli(['report', 'support-agent/v2', '--json', '-C', dir]);
    const { index } = JSON.parse(written.stdout) as { index: string };
    for (const [width, height] of WIDTHS) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`file://${index}`);
      expect((await page.evaluate(SPILLS)) as string[], `index at ${width} px`).toEqual([]);
      // Column headers wrap between words, never inside one ("regre-ssions").
      if (width > 700) expect((await page.evaluate(WORDS_SPLIT)) as string[], `headers at ${width} px`).toEqual([]);
      await expect(page.locator('table.releases td[data-label="approved by"]').first().textContent()).resolves.toBe('the gate (no approval layer)');
      await page.screenshot({ path: path.join(artifacts, `line-index-${width}px.png`), fullPage: true });
      await page.close();
    }
  });

  it('filters the case table by class, symptom and scorer with no script (CSS only), and highlights where the outputs differ', async () => {
    const written = cli(['report', 'iter-001', '--json', '-C', dir]);
    const { report } = JSON.parse(written.stdout) as { report: string };
    const page = await context.newPage();
    await page.goto(`file://${report}`);
    // No script can run: the page has none, and its policy forbids any.
    expect(await page.locator('script').count()).toBe(0);
    await expect(page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).resolves.toMatch(/default-src 'none'/);
    const rows = page.locator('table.case-table tbody tr');
    const visible = async (locator: typeof rows) => (await locator.evaluateAll((els) => els.map((e) => [e.getAttribute('data-case'), e.getClientRects().length > 0] as const))).filter(([, shown]) => shown).map(([id]) => id);
    const all = await visible(rows);
    const classes = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-class')));
    expect(classes[0]).toBe('regression');
    expect(new Set(classes)).toEqual(new Set(['regression', 'fix']));
    // Class: only the fixes, in the table and among the cards; then all again.
    await page.locator('fieldset.facet:has(legend:text-is("class")) label', { hasText: /^fix/ }).click();
    const fixes = await visible(rows);
    expect(fixes.length).toBeGreaterThan(0);
    expect(fixes.length).toBeLessThan(all.length);
    expect(await rows.evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).every((e) => e.getAttribute('data-class') === 'fix'))).toBe(true);
    expect(await visible(page.locator('section.case'))).toEqual(fixes);
    // Symptom too: the two filters combine (a fix's symptom, with the fixes).
    const label = (await rows.and(page.locator(`[data-case="${fixes[0]}"]`)).locator('td').nth(2).textContent()) ?? '';
    await page.locator('fieldset.facet:has(legend:text-is("symptom")) label', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`) }).click();
    const both = await visible(rows);
    expect(both.length).toBeGreaterThan(0);
    for (const id of both) {
      const row = rows.and(page.locator(`[data-case="${id}"]`));
      expect(await row.getAttribute('data-class')).toBe('fix');
      await expect(row.locator('td').nth(2).textContent()).resolves.toBe(label);
    }
    await page.locator('fieldset.facet:has(legend:text-is("class")) label', { hasText: /^all/ }).click();
    await page.locator('fieldset.facet:has(legend:text-is("symptom")) label', { hasText: /^all/ }).click();
    // Scorer: each row shown names that scorer.
    const scorer = page.locator('fieldset.facet:has(legend:text-is("scorer")) label').nth(1);
    const scorerName = ((await scorer.textContent()) ?? '').replace(/ \(\d+\)$/, '');
    await scorer.click();
    for (const id of await visible(rows)) await expect(rows.and(page.locator(`[data-case="${id}"]`)).locator('td').nth(3).textContent()).resolves.toContain(scorerName);
    await page.locator('fieldset.facet:has(legend:text-is("scorer")) label', { hasText: /^all/ }).click();
    expect(await visible(rows)).toEqual(all);
    // A regression's card is open: its outputs side by side, what only the baseline said struck out, what only the candidate says marked.
    const regression = page.locator('section.case[data-kind="regression"]').first();
    expect(await regression.locator('.side.candidate').isVisible()).toBe(true);
    const removed = regression.locator('.side.baseline pre.diff-text del');
    const added = regression.locator('.side.candidate pre.diff-text ins');
    expect(await removed.count()).toBeGreaterThan(0);
    expect(await added.count()).toBeGreaterThan(0);
    type Styled = { getComputedStyle(element: unknown): { backgroundColor: string } };
    const background = (locator: typeof added) => locator.first().evaluate((e) => (globalThis as unknown as Styled).getComputedStyle(e).backgroundColor);
    expect(await background(added)).not.toBe(await background(regression.locator('.side.candidate pre.diff-text')));
    await page.screenshot({ path: path.join(artifacts, 'rejected-report-cases.png'), fullPage: true });
    await page.close();
  });

  it('leads a rejected gate with its regression: case id and expected against actual on the first screen at 1280 and 390 px, nothing spilling past its card', async () => {
    const written = cli(['report', 'iter-001', '--json', '-C', dir]);
    expect(written.code, written.stderr).toBe(0);
    const { report } = JSON.parse(written.stdout) as { report: string };
    const decision = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:releases/support-agent/rejected/iter-001/decision.json')) as { gate: { p2f: string[] } };
    const regression = decision.gate.p2f[0] as string;
    expect(regression).toBeDefined();
    mkdirSync(artifacts, { recursive: true });
    for (const [width, height] of WIDTHS) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`file://${report}`);
      // The first screen: the regression named in the headline, with what was expected and what came instead.
      const reason = page.locator('#decision li', { hasText: `regression ${regression}` }).first();
      const box = await reason.boundingBox();
      expect(box, `at ${width} px`).not.toBeNull();
      expect((box?.y ?? height) + (box?.height ?? 0), `at ${width} px`).toBeLessThanOrEqual(height);
      await expect(reason.textContent()).resolves.toMatch(/expected .* got /);
      // Its card comes before any fix's card.
      const kinds = await page.locator('section.case').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-kind')));
      expect(kinds.indexOf('regression')).toBe(0);
      // No element reaches past its card, and no card past the page, with every case and trace open.
      const spills = (await page.evaluate(SPILLS)) as string[];
      expect(spills, `at ${width} px`).toEqual([]);
      await page.screenshot({ path: path.join(artifacts, `rejected-report-${width}px.png`) });
      await page.close();
    }
  });

  it('keeps a CHANGELOG.md of the promotions, newest first, which `report` rebuilds identically', () => {
    const tags = git(dir, 'tag', '--list', 'support-agent/v*').split('\n').filter(Boolean);
    expect(tags.length).toBeGreaterThanOrEqual(2);
    const file = path.join(dir, 'releases/support-agent/CHANGELOG.md');
    const committed = git(dir, 'show', `${tags.at(-1)}:releases/support-agent/CHANGELOG.md`);
    const headings = [...committed.matchAll(/^## `(support-agent\/v\d+)` \((\d{4}-\d{2}-\d{2})\)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([...tags].reverse());
    expect(committed).toMatch(/- Fixed: `train-\d+`/);
    expect(readFileSync(file, 'utf8')).toBe(`${committed}\n`);
    rmSync(file);
    expect(cli(['report', '-C', dir]).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`${committed}\n`);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
