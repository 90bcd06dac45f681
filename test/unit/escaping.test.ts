// Every output format is safe for any text (issue 17, class 3). Property-based: arbitrary Unicode
// (and the characters each format cares about) as outputs, case ids, approver names and branch
// names, into the JUnit, the PR summary, the markdown report, the HTML report and commit messages.
// JUnit must parse with an XML parser and keep one testcase per case; markdown must parse with
// GitHub's rules (markdown-it with raw HTML on, as GitHub allows it) without any HTML token and
// show the text as it is; HTML must keep exactly the template's tags.
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { CASE_EVIDENCE_SCHEMA, type CaseEvidenceDocument } from '../../src/domain/case-evidence.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import { commitText } from '../../src/stages/report/escape/commit-message.ts';
import { mdCode, mdText } from '../../src/stages/report/escape/markdown.ts';
import { xml } from '../../src/stages/report/escape/xml.ts';
import { terminalJson, terminalText } from '../../src/domain/terminal-text.ts';
import { xmlCharViolations } from '../helpers/xml-chars.ts';
import { AUTO_POLICY, caseRecord, releaseEvidence } from '../helpers/records.ts';
import { decisionHeadline } from '../../src/stages/report/headline.ts';
import { renderFlipReportHtml } from '../../src/stages/report/html/flip-report.ts';
import { renderJunit } from '../../src/stages/report/junit.ts';
import { renderPrSummary } from '../../src/stages/report/pr-summary.ts';
import { decideOnRecordedRuns } from '../../src/stages/gate/compare.ts';
import { buildArtifacts, decisionDocument, tagMessage, type ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../../src/adapters/template/report-templates.ts';

const md = new MarkdownIt({ html: true });
const RUNS = { numRuns: 150 };

/** The characters and fragments each format is touchy about, mixed with arbitrary code points. */
const touchy = fc.constantFrom(
  '<', '>', '&', '"', "'", '`', '``', '```', '~~~', '|', '\\', '*', '_', '[', ']', '(', ')', '!', '#', '@', ':', '-', '=', '+', '.', '1.',
  '\n', '\r', '\r\n', '\t', '\u0000', '\u0001', '\u000b', '\u000c', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '\ud800', '\udfff', '\u00a0', '\u2060',
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<!--', '-->', ']]>', '<![CDATA[', '&amp;', '&#60;', '&lt;', '@octocat', '#12', 'Co-authored-by: x <x@y>', 'javascript:alert(1)', '<http://x.y>', '    ', '> ', '- ',
);
const text = fc.array(fc.oneof(touchy, fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join(''));
const ids = fc.uniqueArray(text, { minLength: 3, maxLength: 5 });
/** Characters XML 1.0 forbids outright, even as references. */
const forbidden = fc.constantFrom('\u0000', '\u0001', '\u0008', '\u000b', '\u001f', '\ufffe', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff');
/**
 * Case ids of which two differ only in a forbidden character and the visible text it is written
 * as (`a\u0000b` and `a\\u{0}b`): they read alike once escaped, so only the de-duplication keeps them apart.
 */
const twinIds = fc.tuple(ids, text, forbidden, text).map(([others, before, character, after]) => {
  const shown = `\\u{${(character.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;
  return [...new Set([`${before}${character}${after}`, `${before}${shown}${after}`, ...others])];
});

/** A record with the text everywhere a report shows one: output, the scorer's reason, the errors. */
const record = (caseId: string, pass: boolean | null, output: string): CaseRecord =>
  caseRecord(caseId, pass, {
    output,
    traceRef: 't.jsonl',
    scorer: pass === null ? null : { pass, checks: [{ scorer: 'exact', pass, ...(pass ? {} : { where: output, expected: output, actual: `${output}!`, message: output }) }] },
    critic: null,
    error: pass === null ? output : null,
    agentError: pass === false ? output : null,
  });

/** A rejected gate on arbitrary text: the first id regressed, the second was fixed, the third moved within noise. */
function gateOn(caseIds: readonly string[], output: string, branch: string, approver: string): { evidence: ReleaseEvidence; cases: CaseEvidenceDocument } {
  const [reg, fix, noisy] = caseIds as [string, string, string];
  const flips = decideOnRecordedRuns({
    baseline: summarizeCases([record(reg, true, output), record(fix, false, output)]),
    candidate: summarizeCases([record(reg, false, output), record(fix, true, output)]),
    policy: AUTO_POLICY,
    noise: { variedCases: 0 },
    intent: null,
  });
  const side = (pass: boolean) => ({
    passes: pass ? 1 : 0,
    graded: 1,
    shown: { trial: 0, status: 'ok' as const, pass, output, scorer: record('x', pass, output).scorer, critic: null, agentError: pass ? null : output, error: null, reason: pass ? 'passed' : `exact scorer: expected ${output}`, trace: [{ type: 'final' as const, output }], omittedEvents: 0 },
  });
  const cases: CaseEvidenceDocument = {
    schema: CASE_EVIDENCE_SCHEMA,
    runs: { baseline: null, candidate: null },
    cases: [
      { caseId: reg, kind: 'regression', input: output, expected: output, baseline: side(true), candidate: side(false) },
      { caseId: fix, kind: 'fix', input: output, expected: output, baseline: side(false), candidate: side(true) },
      { caseId: noisy, kind: 'flaky', input: output, expected: output, baseline: side(true), candidate: side(false) },
    ],
    // Lines are classified by their first character, so the text stays inside its lines here.
    diff: `diff --git a/x b/x\n+x ${output.replace(/\n/g, ' ')}\n-x ${output.replace(/\n/g, ' ')}`,
    diffTruncated: false,
  };
  const evidence = releaseEvidence({
    iteration: 2,
    candidate: { ref: branch, commit: 'c'.repeat(40), tree: 'd'.repeat(40), parent: 'b'.repeat(40) },
    baseline: { commit: 'b'.repeat(40), label: `bp/v1 ${approver}`, runId: 'run-1', recordRunIds: ['run-1'] },
    candidateRunId: 'run-2',
    decision: { ...flips.decision, verdict: 'reject', p2f: [reg], f2p: [fix], flaky: [noisy], warnings: [output] },
    intent: { targets: [output], rationale: output },
    baselineCases: flips.baselineCases,
    candidateCases: flips.candidateCases,
    edits: [{ status: 'M', path: output }],
    cases,
    simulated: false,
    mockRoles: [],
    models: {},
  });
  return { evidence, cases };
}

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];
const flat = (tokens: readonly Token[]): Token[] => tokens.flatMap((t) => [t, ...flat(t.children ?? [])]);
const RAW_HTML = new Set(['html_block', 'html_inline']);

/** What mdText shows for a value: one line, NUL as U+FFFD, whitespace runs as one space, trimmed. */
const shownText = (value: string): string =>
  value
    .replace(/\u0000/g, '\ufffd')
    .replace(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g, ' ')
    .replace(/[\t ]+/g, ' ')
    .trim();

describe('markdown escaping (GitHub rules: CommonMark, tables, raw HTML allowed)', () => {
  it('shows any text literally in a paragraph and in a table cell: no HTML, no link, no emphasis', () => {
    fc.assert(
      fc.property(text, (value) => {
        const cell = mdText(value);
        // Inside a line, at the start of one (a title), and as a list item's text.
        for (const doc of [`before ${cell}`, `| a | b |\n| --- | --- |\n| x | ${cell} |`, `${cell}`, `- ${cell}`]) {
          const tokens = flat(md.parse(doc, {}));
          expect(tokens.filter((t) => RAW_HTML.has(t.type) || t.type === 'link_open' || t.type === 'em_open' || t.type === 'strong_open' || t.type === 'code_inline' || t.type === 's_open')).toEqual([]);
          const blocks = tokens.filter((t) => t.nesting === 1 && t.block).map((t) => t.type);
          expect(blocks.filter((type) => !['paragraph_open', 'table_open', 'thead_open', 'tbody_open', 'tr_open', 'th_open', 'td_open'].includes(type))).toEqual(doc.startsWith('- ') ? ['bullet_list_open', 'list_item_open'] : []);
          const inline = tokens.filter((t) => t.type === 'text').map((t) => t.content).join('');
          // The word joiner that breaks a mention is invisible: compare without it, after trimming
          // (it is not whitespace, so a joiner at the end keeps the space before it).
          const shown = shownText(value);
          const expected = (doc.startsWith('|') ? `abx${shown}` : doc.startsWith('before') ? `before ${shown}` : shown).trim();
          expect(inline.replace(/\u2060/g, '')).toBe(expected.replace(/\u2060/g, ''));
        }
      }),
      // A lone word joiner, and one after a space, were once counterexamples (seed -1576247305).
      { ...RUNS, examples: [['\u2060'], [' \u2060'], ['x \u2060'], ['\u2060@x'], ['1. x'], ['12) x'], ['- x'], ['# x'], ['> x'], ['==='], ['---'], ['see https://x.y'], ['www.x.y'], [':smile:'], ['~~x~~'], ['$x$']] },
    );
  });

  it('keeps any text as one code span, in a paragraph and in a table cell', () => {
    fc.assert(
      fc.property(text, (value) => {
        const expected = value === '' ? '\u00a0' : value.replace(/\u0000/g, '\ufffd').replace(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g, ' ');
        const inParagraph = flat(md.parse(`x ${mdCode(value)} y`, {}));
        expect(inParagraph.filter((t) => t.type === 'code_inline').map((t) => t.content)).toEqual([expected]);
        const inTable = flat(md.parse(`| a | b |\n| --- | --- |\n| ${mdCode(value, { table: true })} | z |`, {}));
        expect(inTable.filter((t) => t.type === 'td_open')).toHaveLength(2);
        expect(inTable.filter((t) => t.type === 'code_inline').map((t) => t.content)).toEqual([expected]);
        expect(inTable.some((t) => RAW_HTML.has(t.type))).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('terminal escaping (labels, descriptions and any text from git, printed on stdout and stderr)', () => {
  /** What a terminal obeys rather than shows: C0 controls but the line feed and tab, DEL, C1 controls, bidi overrides and isolates. */
  const obeyed = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  const controls = fc.constantFrom('\u001b[2J', '\u001b]0;title\u0007', '\u009b31m', '\r', '\b', '\u007f', '\u202e', '\u2066', '\u001bP+q\u001b\\');
  const anything = fc.array(fc.oneof(controls, touchy, fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join(''));

  it('leaves no character a terminal would obey, keeps lines and tabs, and changes nothing else', () => {
    fc.assert(
      fc.property(anything, (value) => {
        const shown = terminalText(value);
        expect(shown).not.toMatch(obeyed);
        expect(shown.split('\n').length).toBe(value.split('\n').length);
        if (!obeyed.test(value)) expect(shown).toBe(value);
      }),
      RUNS,
    );
    expect(terminalText('a\u001b[2Jb')).toBe('a\\u{1B}[2Jb');
  });

  it('keeps JSON the same value while no character a terminal would obey is left', () => {
    fc.assert(
      fc.property(anything, (value) => {
        const printed = terminalJson(JSON.stringify({ label: value }));
        expect(printed).not.toMatch(obeyed);
        expect(JSON.parse(printed)).toEqual({ label: value });
      }),
      RUNS,
    );
  });
});

describe('the strict check of XML 1.0 characters the tests below rely on', () => {
  it('finds what the parser lets through: NUL, U+0001, U+FFFF, lone surrogates and references to them', () => {
    for (const bad of ['\u0000', '\u0001', '\uffff', '\ufffe', '\ud800', '\udfff', '\udfff\ud800', '&#0;', '&#x1;', '&#xFFFF;', '&#55296;']) {
      const document = `<a b="x">${bad}</a>`;
      expect(xmlCharViolations(document), JSON.stringify(bad)).not.toEqual([]);
    }
    expect(XMLValidator.validate('<a>\u0000\u0001\uffff\ud800</a>')).toBe(true);
    expect(xmlCharViolations('<a b="&#9;&#10;&#x1F600;">\t\n\r \ud83d\ude00 \ud7ff \ue000 \ufffd</a>')).toEqual([]);
  });
});

describe('every output of a decision, on arbitrary text', () => {
  it('JUnit parses as XML and keeps one testcase per case, whatever the ids and outputs', () => {
    fc.assert(
      fc.property(twinIds, text, text, text, (caseIds, output, branch, approver) => {
        const { evidence } = gateOn(caseIds, output, branch, approver);
        const document = { ...decisionDocument(evidence), approval: { verdict: 'declined' as const, by: approver, at: '2026-11-23T00:00:00Z', reason: output } };
        const headline = decisionHeadline(document, evidence.cases);
        const records = caseIds.map((id, i) => record(id, i === 0 ? false : i === caseIds.length - 1 ? null : true, output));
        const junit = renderJunit({ suite: `agentdevel.${branch}`, records, gate: { candidate: branch, decision: evidence.decision, headline, baselineCases: evidence.baselineCases, simulated: false } });
        expect(XMLValidator.validate(junit)).toBe(true);
        // The validator lets through characters XML forbids: every character is checked against XML 1.0's Char.
        expect(xmlCharViolations(junit)).toEqual([]);
        const suite = (new XMLParser({ ignoreAttributes: false, trimValues: false, isArray: (name) => name === 'testcase' }).parse(junit) as { testsuites: { testsuite: { testcase: Array<Record<string, string>> } } }).testsuites.testsuite;
        // One per case plus the gate's own; ids that differ only in characters XML forbids stay apart.
        expect(new Set(suite.testcase.map((t) => `${t['@_classname']}\u0000${t['@_name']}`)).size).toBe(caseIds.length + 1);
      }),
      RUNS,
    );
  });

  it('the PR summary and report.md parse without any raw HTML, and show each id and branch as code', () => {
    fc.assert(
      fc.property(ids, text, text, text, (caseIds, output, branch, approver) => {
        const { evidence, cases } = gateOn(caseIds, output, branch, approver);
        const document = { ...decisionDocument(evidence), approval: { verdict: 'declined' as const, by: approver, at: '2026-11-23T00:00:00Z', reason: output } };
        const headline = decisionHeadline(document, cases);
        const summary = renderPrSummary({ candidate: { label: branch, commit: 'c'.repeat(40) }, baseline: 'bp/v1', headline, decision: evidence.decision, cases, simulated: false, mockRoles: [], links: { report: output, artifactPage: `https://x.y/${output}` } });
        const report = buildArtifacts(evidence, { textDiff: wordDiff, templates: renderReportTemplate }).find((f) => f.path.endsWith('/report.md'))?.content ?? '';
        for (const doc of [summary, report]) {
          const tokens = flat(md.parse(doc, {}));
          expect(tokens.filter((t) => RAW_HTML.has(t.type))).toEqual([]);
          const code = new Set(tokens.filter((t) => t.type === 'code_inline').map((t) => t.content));
          const asCode = (v: string) => (v === '' ? '\u00a0' : v.replace(/\u0000/g, '\ufffd').replace(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g, ' '));
          expect(code.has(asCode(caseIds[0] as string))).toBe(true);
          expect(code.has(asCode(branch))).toBe(true);
        }
        // The approver's name reaches the summary as text, never as markup or a mention.
        const text = flat(md.parse(summary, {})).filter((t) => t.type === 'text').map((t) => t.content).join('');
        expect(text.replace(/\u2060/g, '')).toContain(shownText(`declined by ${approver} on 2026-11-23`).replace(/\u2060/g, ''));
      }),
      { numRuns: 60 },
    );
  });

  it('report.html keeps exactly the tags of its template, whatever the text', () => {
    const tags = (page: string) => [...page.matchAll(/<[^>]*>/g)].map((m) => m[0].replace(/"[^"]*"/g, '""'));
    const plain = gateOn(['a', 'b', 'c'], 'x', 'y', 'z');
    const expected = tags(renderFlipReportHtml({ title: 't', document: decisionDocument(plain.evidence), evidence: plain.cases, diagnosis: null }, { textDiff: wordDiff }));
    fc.assert(
      fc.property(ids, text, text, text, (caseIds, output, branch, approver) => {
        const { evidence, cases } = gateOn(caseIds, output, branch, approver);
        const page = renderFlipReportHtml({ title: branch, document: decisionDocument(evidence), evidence: cases, diagnosis: null }, { textDiff: wordDiff });
        expect(tags(page)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('commit and tag messages keep user text on one line: no forged subject or trailer', () => {
    fc.assert(
      fc.property(ids, text, text, (caseIds, output, approver) => {
        const line = commitText(approver);
        expect(line).not.toMatch(/[\n\r\u0085\u2028\u2029]/);
        const { evidence } = gateOn(caseIds, output, 'b', approver);
        const message = tagMessage({ ...evidence, release: 'bp/v2' });
        // Its lines are agentdevel's own: each starts with one of its own words.
        for (const l of message.trimEnd().split('\n').slice(2)) expect(l).toMatch(/^(Intent|Fixed|Regressed|Moved within noise|Change|Report|Simulation): /);
      }),
      RUNS,
    );
  });

  it('xml() output is always well-formed as content and as an attribute', () => {
    fc.assert(
      fc.property(text, (value) => {
        const document = `<a b="${xml(value)}">${xml(value)}</a>`;
        expect(XMLValidator.validate(document)).toBe(true);
        expect(xmlCharViolations(document)).toEqual([]);
      }),
      RUNS,
    );
  });
});
