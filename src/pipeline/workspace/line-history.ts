import { intentText } from '../../domain/release-candidate.ts';
import type { Config } from '../../config/schema.ts';
import { parseCaseEvidenceRuns } from '../../domain/case-evidence.ts';
import { parseDecisionDocument } from '../../domain/decision.ts';
import type { GitRepo } from '../../adapters/git/git.ts';
import type { ReleasePoint } from '../../stages/report/html/line-index.ts';
import type { LineHistory } from '../../stages/release/artifacts.ts';
import { readSeal } from './test-seal.ts';
import type { ChangelogEntry } from '../../stages/report/changelog.ts';

/** The line's releases `<prefix><blueprint>/vN`, oldest first. */
export async function releaseTags(repo: GitRepo, config: Config): Promise<Array<{ tag: string; version: number }>> {
  const prefix = `refs/tags/${config.line.tagPrefix}${config.blueprint}/v`;
  const tags: Array<{ tag: string; version: number }> = [];
  for (const { ref } of await repo.refs(`refs/tags/${config.line.tagPrefix}${config.blueprint}/`)) {
    const version = Number(ref.slice(prefix.length));
    if (ref.startsWith(prefix) && Number.isInteger(version)) tags.push({ tag: ref.slice('refs/tags/'.length), version });
  }
  return tags.sort((a, b) => a.version - b.version);
}

/**
 * What each release of the line says about itself, read from its own decision.json and
 * cases.json in git (a release written before cases.json existed shows pass^1 only).
 */
export async function readLineHistory(repo: GitRepo, config: Config): Promise<LineHistory> {
  const releases: ReleasePoint[] = [];
  const changelog: ChangelogEntry[] = [];
  let initialPassRate: number | null = null;
  const tags = await releaseTags(repo, config);
  const folderOf = (version: number) => `releases/${config.blueprint}/v${version}`;
  // Every release's two files in one git process.
  const texts = await repo.readTextFilesAt(tags.flatMap(({ tag, version }) => [{ commit: tag, path: `${folderOf(version)}/decision.json` }, { commit: tag, path: `${folderOf(version)}/cases.json` }]));
  for (const [i, { tag, version }] of tags.entries()) {
    const folder = folderOf(version);
    const text = texts[2 * i] ?? null;
    if (text === null) continue;
    const decision = parseDecisionDocument(text, `${tag}:${folder}/decision.json`);
    const casesText = texts[2 * i + 1] ?? null;
    const cases = casesText === null ? null : parseCaseEvidenceRuns(casesText, `${tag}:${folder}/cases.json`);
    const passRates = decision.document?.gate.passRates ?? null;
    const commit = await repo.resolve(`${tag}^{commit}`);
    const seal = commit ? await readSeal(repo, config, commit).catch(() => null) : null;
    const intent = decision.document?.intent ?? null;
    if (releases.length === 0) initialPassRate = passRates?.baseline ?? null;
    const candidateCommit = decision.document?.candidate.commit ?? null;
    changelog.push({
      release: tag,
      date: candidateCommit ? ((await repo.commitDate(candidateCommit))?.slice(0, 10) ?? null) : null,
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
      date: decision.document?.approval?.at ?? (await repo.commitDate(tag)),
      intent: intent ? intentText(intent) : null,
      approvedBy: decision.document?.approval?.verdict === 'approved' ? decision.document.approval.by : null,
      caseTrials: cases?.runs.candidate ? cases.runs.candidate.cases * cases.runs.candidate.trials : null,
      testSplit: seal ? { passRate: seal.passRate, passed: seal.passed, graded: seal.graded } : null,
    });
  }
  return { initialPassRate, releases, changelog };
}
