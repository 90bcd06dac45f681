// The line's index (index.html) and its changelog (CHANGELOG.md) describe the same releases: who
// let each one onto the line reads the same in both.
import { describe, expect, it } from 'vitest';
import { renderChangelog } from '../../src/stages/report/changelog.ts';
import { renderLineIndexHtml, type ReleasePoint } from '../../src/stages/report/html/line-index.ts';

const release = (n: number, approvedBy: string | null): ReleasePoint => ({
  release: `bp/v${n}`,
  iteration: n,
  passRate: 0.5,
  passHat: { 1: 0.5 },
  f2p: 1,
  p2f: 0,
  href: `v${n}/report.html`,
  simulated: false,
  date: '2026-01-0' + n,
  intent: 'Shorter replies',
  approvedBy,
  caseTrials: 10,
  testSplit: null,
});

/** The "approved by" cell of each row, in order. */
const approvers = (html: string): string[] => [...html.matchAll(/<td data-label="approved by">([^<]*)<\/td>/g)].map((m) => m[1] as string);

describe('who approved a release', () => {
  it('reads the same in the index and the changelog: the person, or the gate when no person was asked', () => {
    const html = renderLineIndexHtml({ blueprint: 'bp', initialPassRate: null, releases: [release(1, null), release(2, 'Reviewer')] });
    expect(approvers(html)).toEqual(['the gate (no approval layer)', 'Reviewer']);
    const changelog = renderChangelog('bp', [
      { release: 'bp/v1', date: null, intent: null, f2p: [], p2f: [], approvedBy: null, simulated: false },
      { release: 'bp/v2', date: null, intent: null, f2p: [], p2f: [], approvedBy: 'Reviewer', simulated: false },
    ]);
    expect([...changelog.matchAll(/^- Approved by: (.*)$/gm)].map((m) => m[1])).toEqual(['Reviewer', 'the gate (no approval layer)']);
  });
});
