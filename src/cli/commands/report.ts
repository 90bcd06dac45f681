import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readLineHistory, readLineRefs } from '../../pipeline/workspace/line-history.ts';
import { readRecordedDecision } from '../../pipeline/workspace/recorded-report.ts';
import { renderFlipReportHtml } from '../../stages/report/html/flip-report.ts';
import { renderLineIndexHtml } from '../../stages/report/html/line-index.ts';
import { renderChangelog } from '../../stages/report/changelog.ts';
import { reportTitle } from '../../stages/release/outcome.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { openFile } from '../open-file.ts';
import { DEFAULT_REPORT_DIR } from '../report-dir.ts';
import type { ReportOptions } from './report.options.ts';

/**
 * `agentdevel report [TAG|RC] [--open]`: the HTML flip report of a recorded decision, rebuilt
 * from git (so rejected RCs on their audit refs get one too), and the line's index beside it.
 */
export async function reportCommand(io: Io, options: ReportOptions, target: string | undefined): Promise<number> {
  // Everything it reads is in git: the store is never opened (a fast start).
  const command = await openCommand(io, options, null, 'at_start', 'unused');
  try {
    const { workspace, output } = command;
    // The line's tags and seals are listed once, for the report and for the index.
    const lineRefs = await readLineRefs(workspace.repo, workspace.config);
    const recorded = await readRecordedDecision(workspace, target ?? null, lineRefs);
    const outDir = path.resolve(options.out ? io.cwd : workspace.root, options.out ?? DEFAULT_REPORT_DIR);
    // The same layout as releases/ in git, so the index's links to vN/report.html work here too.
    const file = path.join(outDir, recorded.folder.replace(/^releases\//, ''), 'report.html');
    const doc = recorded.document;
    const html = renderFlipReportHtml({ title: reportTitle({ ...doc, candidate: doc.candidate }), document: doc, evidence: recorded.cases, diagnosis: recorded.diagnosis, gradient: recorded.gradient, labelMerges: recorded.labelMerges }, { textDiff: command.pipelineContext.textDiff });
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, html);
    const index = path.join(outDir, workspace.config.blueprint, 'index.html');
    const history = await readLineHistory(workspace.repo, workspace.config, lineRefs);
    await writeFile(index, renderLineIndexHtml({ blueprint: workspace.config.blueprint, ...history }));
    // The changelog lives in git (releases/<bp>/CHANGELOG.md): rebuilt in the working tree from the decisions.
    const changelog = path.join(workspace.root, 'releases', workspace.config.blueprint, 'CHANGELOG.md');
    if (history.releases.length > 0) {
      await mkdir(path.dirname(changelog), { recursive: true });
      await writeFile(changelog, renderChangelog(workspace.config.blueprint, history.changelog ?? []));
    }
    if (options.open) await openFile(file);
    if (output.json) output.result({ ref: recorded.ref, report: file, index, changelog, outcome: doc.outcome, release: doc.release });
    else {
      output.line(`${recorded.ref}: ${doc.outcome}${doc.release ? ` as ${doc.release}` : ''}`);
      output.line(`report: ${file}`);
      output.line(`index:  ${index}`);
    }
    return 0;
  } finally {
    await command.close();
  }
}
