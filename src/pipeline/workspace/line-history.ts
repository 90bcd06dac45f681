import { intentText } from '../../domain/release-candidate.ts';
import type { Config } from '../../config/schema.ts';
import { parseCaseEvidenceRuns } from '../../domain/case-evidence.ts';
import { parseDecisionDocument } from '../../domain/decision.ts';
import { TEST_SEAL_FILE } from '../../domain/test-seal.ts';
import type { HistoryReader, RefDetail, RefReader } from '../../domain/ports/repository.ts';
import type { ReleasePoint } from '../../stages/report/html/line-index.ts';
import type { LineHistory } from '../../stages/release/artifacts.ts';
import { sealOf, sealRefPrefix } from './test-seal.ts';
import type { ChangelogEntry } from '../../stages/report/changelog.ts';

const tagsPrefix = (config: Config): string => `refs/tags/${config.line.tagPrefix}${config.blueprint}/`;

/** The release tags `<prefix><blueprint>/vN` among `refs`, oldest first. */
function releasesAmong(refs: readonly RefDetail[], config: Config): Array<{ tag: string; version: number; detail: RefDetail }> {
  const prefix = `${tagsPrefix(config)}v`;
  const tags: Array<{ tag: string; version: number; detail: RefDetail }> = [];
  for (const detail of refs) {
    const version = Number(detail.ref.slice(prefix.length));
    if (detail.ref.startsWith(prefix) && Number.isInteger(version)) tags.push({ tag: detail.ref.slice('refs/tags/'.length), version, detail });
  }
  return tags.sort((a, b) => a.version - b.version);
}

/** The line's releases `<prefix><blueprint>/vN`, oldest first, with the commit each names (one git process, or none given `lineRefs`). */
export async function releaseTags(repo: RefReader & HistoryReader, config: Config, lineRefs?: LineRefs): Promise<Array<{ tag: string; version: number; detail: RefDetail }>> {
  return releasesAmong(lineRefs ?? (await repo.refDetails([tagsPrefix(config)])), config);
}

/** The refs the line's history reads (its release tags and its test seals), with what each names. */
export type LineRefs = readonly RefDetail[];

/** The refs the line's history reads: its release tags and its test seals (one git process). */
export async function readLineRefs(repo: RefReader & HistoryReader, config: Config): Promise<LineRefs> {
  return repo.refDetails([tagsPrefix(config), sealRefPrefix(config)]);
}

/**
 * What each release of the line says about itself, read from its own decision.json and
 * cases.json in git (a release written before cases.json existed shows pass^1 only). Three git
 * processes whatever the number of releases: the tags and test seals with their commits and
 * dates, every release's files and seal record, and the dates of the candidates.
 */
export async function readLineHistory(repo: RefReader & HistoryReader, config: Config, lineRefs?: LineRefs): Promise<LineHistory> {
  const releases: ReleasePoint[] = [];
  const changelog: ChangelogEntry[] = [];
  let initialPassRate: number | null = null;
  const refs = lineRefs ?? (await readLineRefs(repo, config));
  const tags = releasesAmong(refs, config);
  const seals = new Map(refs.filter((r) => r.ref.startsWith(sealRefPrefix(config))).map((r) => [r.ref.slice(sealRefPrefix(config).length), r.sha]));
  const folderOf = (version: number) => `releases/${config.blueprint}/v${version}`;
  // Every release's decision.json and cases.json, and the record of its test seal if it has one.
  const names: string[] = [];
  const at = tags.map(({ version, detail }) => {
    const seal = detail.commit ? seals.get(detail.commit) : undefined;
    const first = names.push(`${detail.sha}:${folderOf(version)}/decision.json`, `${detail.sha}:${folderOf(version)}/cases.json`) - 2;
    return { decision: first, cases: first + 1, seal: seal === undefined ? null : names.push(`${seal}:${TEST_SEAL_FILE}`) - 1 };
  });
  const texts = await repo.readTexts(names);
  const decisions = tags.map(({ tag, version }, i) => {
    const text = texts[at[i]?.decision ?? -1] ?? null;
    return text === null ? null : parseDecisionDocument(text, `${tag}:${folderOf(version)}/decision.json`);
  });
  const candidateDates = await repo.commitDates(decisions.flatMap((d) => (d?.document?.candidate.commit ? [d.document.candidate.commit] : [])));
  for (const [i, { tag, version, detail }] of tags.entries()) {
    const folder = folderOf(version);
    const decision = decisions[i];
    if (!decision) continue;
    const casesText = texts[at[i]?.cases ?? -1] ?? null;
    const cases = casesText === null ? null : parseCaseEvidenceRuns(casesText, `${tag}:${folder}/cases.json`);
    const passRates = decision.document?.gate.passRates ?? null;
    // A seal that cannot be read shows no test figure here (evaluate-test says why).
    const sealAt = at[i]?.seal ?? null;
    const seal = sealAt === null ? null : sealOf(texts[sealAt] ?? null);
    const intent = decision.document?.intent ?? null;
    if (releases.length === 0) initialPassRate = passRates?.baseline ?? null;
    const candidateCommit = decision.document?.candidate.commit ?? null;
    changelog.push({
      release: tag,
      date: candidateCommit ? (candidateDates.get(candidateCommit)?.slice(0, 10) ?? null) : null,
      intent,
      f2p: [...decision.f2p],
      p2f: [...decision.p2f],
      approvedBy: decision.document?.approval?.verdict === 'approved' ? decision.document.approval.by : null,
      simulated: decision.simulated,
    });
    const passRate = passRates?.candidate ?? cases?.runs.candidate?.passRate ?? null;
    if (passRate === null) continue;
    releases.push({
      release: tag,
      iteration: decision.iteration,
      passRate,
      passHat: cases?.runs.candidate?.passHat ?? { 1: passRate },
      f2p: decision.f2p.length,
      p2f: decision.p2f.length,
      href: `v${version}/report.html`,
      simulated: decision.simulated,
      date: decision.document?.approval?.at ?? detail.date,
      intent: intent ? intentText(intent) : null,
      approvedBy: decision.document?.approval?.verdict === 'approved' ? decision.document.approval.by : null,
      caseTrials: cases?.runs.candidate ? cases.runs.candidate.cases * cases.runs.candidate.trials : null,
      testSplit: seal ? { passRate: seal.passRate, passed: seal.passed, graded: seal.graded } : null,
    });
  }
  return { initialPassRate, releases, changelog };
}
