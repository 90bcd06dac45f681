// The HTML flip report in a real browser: Debian's chromium (installed by .ci/run), driven by
// playwright-core. The page must show the flipped cases, a side-by-side trace and the RC's
// diff with no network; a screenshot is kept in test-artifacts/ (git-ignored).
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exampleWorkspace, git, repoRoot, tempDir } from '../helpers/workspace.ts';

const CHROMIUM = '/usr/bin/chromium';
const artifacts = path.join(repoRoot, 'test-artifacts');

let dir: string;
let context: BrowserContext;

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
    // Each fixed case: the baseline failing, the candidate passing, each with its trace, side by side.
    for (const section of await fixed.all()) {
      const baseline = section.locator('.side.baseline');
      const candidate = section.locator('.side.candidate');
      await expect(baseline.locator('h4').textContent()).resolves.toMatch(/^baseline: 0\/1 trials passed/);
      await expect(candidate.locator('h4').textContent()).resolves.toMatch(/^candidate: 1\/1 trials passed/);
      expect(await baseline.locator('ol.trace li').count()).toBeGreaterThan(2);
      expect(await candidate.locator('ol.trace li').count()).toBeGreaterThan(2);
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

  it('leads a rejected gate with its regression: case id and expected against actual on the first screen at 1280 and 390 px, nothing spilling past its card', async () => {
    const written = cli(['report', 'iter-001', '--json', '-C', dir]);
    expect(written.code, written.stderr).toBe(0);
    const { report } = JSON.parse(written.stdout) as { report: string };
    const decision = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:releases/support-agent/rejected/iter-001/decision.json')) as { gate: { p2f: string[] } };
    const regression = decision.gate.p2f[0] as string;
    expect(regression).toBeDefined();
    mkdirSync(artifacts, { recursive: true });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
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
      // No element reaches past its card, and no card past the page.
      // Runs in the page (the test's own types know no DOM, so it is passed as source).
      const spills = (await page.evaluate(`(() => {
        const found = [];
        const pageWidth = document.documentElement.clientWidth;
        for (const card of document.querySelectorAll('section.case, section.headline, .side, table.summary, table.checks')) {
          const outer = card.getBoundingClientRect();
          if (outer.right > pageWidth + 1) found.push(card.className + ' ends at ' + outer.right + ' > ' + pageWidth);
          for (const el of card.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            // Inside a scrolling box (a long <pre>) the box itself is what must fit.
            const scroller = el.parentElement && el.parentElement.closest('pre, details:not([open])');
            if (scroller && card.contains(scroller)) continue;
            if (r.right > outer.right + 1 || r.left < outer.left - 1) found.push(el.tagName + '.' + el.className + ' in ' + card.className + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' outside ' + Math.round(outer.left) + '..' + Math.round(outer.right));
          }
        }
        return found;
      })()`)) as string[];
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
