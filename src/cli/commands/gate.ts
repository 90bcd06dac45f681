import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { intentText } from '../../domain/release-candidate.ts';
import { gateCandidate } from '../../pipeline/gate/submitted-candidate.ts';
import { flipReasons } from '../../stages/report/case-reasons.ts';
import { changeLines } from '../../stages/report/change-text.ts';
import { gateHeadline, writeGateOutputs } from '../../app/ci-outputs.ts';
import { openCommand } from '../open-command.ts';
import { announceEstimate, printEstimate } from './estimate.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import { DEFAULT_REPORT_DIR } from '../report-dir.ts';
import type { GateOptions } from './gate.options.ts';

/** Where a dry gate writes its reports unless --report-dir says otherwise (git-ignored state). */

export async function gateCommand(io: Io, options: GateOptions): Promise<number> {
  if (options.estimate) return printEstimate(io, options, { command: 'gate' });
  if (!options.candidate) throw new AgentdevelError('USAGE', 'gate needs --candidate REF (a branch, tag or commit)');
  const targets = (options.targets ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const command = await openCommand(io, options, 'gate');
  try {
    await announceEstimate(command, { command: 'gate' });
    // The hit rate compares the critic's labels with the targets: a label it never gave cannot be hit.
    const known = command.workspace.store.taxonomy().map((s) => s.label);
    for (const target of targets.filter((t) => known.length > 0 && !known.includes(t))) {
      command.reporter.emit({ type: 'warning', message: `--targets: "${target}" is not a symptom label of the taxonomy (${known.join(', ')}); no fix can count as a hit for it` });
    }
    const reportDir = options.promote ? null : path.resolve(options.reportDir ? io.cwd : command.workspace.root, options.reportDir ?? DEFAULT_REPORT_DIR);
    const result = await gateCandidate(command.pipelineContext, {
      ref: options.candidate,
      promote: options.promote === true,
      targets,
      reportDir,
      allowBehind: options.allowBehind === true,
      baseline: options.baseline ?? null,
      resealTest: options.resealTest === true,
    });
    const { decision } = result;
    const headline = gateHeadline(result);
    const reportHtml = result.reportFiles.find((f) => f.endsWith('report.html')) ?? null;
    const { summary: summaryFiles, junit } = await writeGateOutputs(io, options, command.workspace, result);
    if (command.output.json) {
      command.output.result({
        candidate: result.candidate,
        commit: result.commit,
        decision: decision.verdict,
        outcome: result.outcome,
        tag: result.tag,
        headline: { outcome: headline.outcome, reasons: headline.reasons },
        p2f: decision.p2f,
        f2p: decision.f2p,
        flaky: decision.flaky,
        reasons: decision.reasons,
        intent: result.evidence.intent,
        caseReasons: Object.fromEntries(flipReasons(result.evidence.cases)),
        screening: decision.screening,
        p2fRate: decision.rates.p2fRate,
        f2pRate: decision.rates.f2pRate,
        hitRate: decision.rates.hitRate,
        baselinePassRate: decision.passRates.baseline,
        candidatePassRate: decision.passRates.candidate,
        worseOverall: decision.aggregate,
        tests: decision.tests,
        procedure: decision.procedure,
        power: decision.power,
        layers: decision.layers,
        warnings: decision.warnings,
        ranCandidate: result.ranCandidate,
        baselineScreen: result.evidence.screenText ?? null,
        change: result.evidence.change ?? null,
        reports: result.reportFiles,
        summary: summaryFiles,
        junit,
        simulated: result.simulated,
        mockRoles: result.mockRoles,
      });
    } else {
      const reasons = flipReasons(result.evidence.cases);
      // The decision and its reasons first, in the words of every other output.
      command.output.line(`${result.candidate}: ${headline.outcome}`);
      for (const reason of headline.reasons) command.output.line(`  ${headline.failed ? 'why' : 'ok '}: ${reason}`);
      if (result.evidence.screenText) command.output.line(`  ${result.evidence.screenText}`);
      // A person's change beyond the blueprint: what each kind of path meant to the gate.
      for (const line of changeLines(result.evidence.change ?? null)) command.output.line(`  ${line}`);
      command.output.line(`  intent: ${result.evidence.intent ? intentText(result.evidence.intent) : 'none given'}`);
      command.output.line(`  layers: ${decision.layers.map((l) => `${l.layer} ${l.verdict}`).join(', ')}`);
      for (const check of decision.checks) command.output.line(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.message}`);
      const flips = (title: string, ids: readonly string[]) => {
        if (ids.length === 0) return;
        command.output.line(`  ${title}:`);
        for (const id of ids) command.output.line(`    ${id}  ${reasons.get(id) ?? ''}`.trimEnd());
      };
      flips('regressed (P→F)', decision.p2f);
      flips('fixed (F→P)', decision.f2p);
      if (decision.flaky.length) command.output.line(`  moved within noise: ${decision.flaky.join(', ')}`);
      for (const warning of decision.warnings) command.output.line(`  warning: ${warning}`);
      if (decision.procedure.guarantee) command.output.line(`  guarantee: ${decision.procedure.guarantee}`);
      if (decision.power?.text.length) {
        command.output.line('  what this gate could see:');
        for (const line of decision.power.text) command.output.line(`    ${line}`);
      }
      if (reportHtml) command.output.line(`  report: ${reportHtml}`);
      if (result.simulated) command.output.line(simulationNote);
    }
    return decision.verdict === 'accept' ? 0 : 1;
  } finally {
    await command.close();
  }
}
