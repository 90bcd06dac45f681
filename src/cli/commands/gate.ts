import { AgentdevelError } from '../../domain/errors.ts';
import { gateCandidate } from '../../pipeline/gate-candidate.ts';
import { openCommand, type CommonOptions, type Io } from '../context.ts';
import { simulationNote } from './notes.ts';

export interface GateOptions extends CommonOptions {
  readonly candidate?: string;
  readonly promote?: boolean;
  readonly targets?: string;
}

export async function gateCommand(io: Io, options: GateOptions): Promise<number> {
  if (!options.candidate) throw new AgentdevelError('USAGE', 'gate needs --candidate REF (a branch, tag or commit)');
  const targets = (options.targets ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const command = await openCommand(io, options, 'gate');
  try {
    // The hit rate compares the critic's labels with the targets: a label it never gave cannot be hit.
    const known = command.workspace.store.taxonomy().map((s) => s.label);
    for (const target of targets.filter((t) => known.length > 0 && !known.includes(t))) {
      command.reporter.emit({ type: 'warning', message: `--targets: "${target}" is not a symptom label of the taxonomy (${known.join(', ')}); no fix can count as a hit for it` });
    }
    const result = await gateCandidate(command.run, { ref: options.candidate, promote: options.promote === true, targets });
    const { decision } = result;
    if (command.output.json) {
      command.output.result({
        candidate: result.candidate,
        commit: result.commit,
        decision: decision.verdict,
        outcome: result.outcome,
        tag: result.tag,
        p2f: decision.p2f,
        f2p: decision.f2p,
        flaky: decision.flaky,
        screening: decision.screening,
        p2fRate: decision.rates.p2fRate,
        f2pRate: decision.rates.f2pRate,
        hitRate: decision.rates.hitRate,
        baselinePassRate: decision.passRates.baseline,
        candidatePassRate: decision.passRates.candidate,
        worseOverall: decision.aggregate,
        tests: decision.tests,
        procedure: decision.procedure,
        reasons: decision.reasons,
        warnings: decision.warnings,
        ranCandidate: result.ranCandidate,
        simulated: result.simulated,
        mockRoles: result.mockRoles,
      });
    } else {
      command.output.line(`${result.candidate}: ${result.outcome}${result.tag ? ` as ${result.tag}` : ''}`);
      for (const check of decision.checks) command.output.line(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.message}`);
      if (decision.f2p.length) command.output.line(`  fixed (F→P): ${decision.f2p.join(', ')}`);
      if (decision.p2f.length) command.output.line(`  regressed (P→F): ${decision.p2f.join(', ')}`);
      if (decision.flaky.length) command.output.line(`  moved within noise: ${decision.flaky.join(', ')}`);
      for (const warning of decision.warnings) command.output.line(`  warning: ${warning}`);
      if (decision.procedure.guarantee) command.output.line(`  guarantee: ${decision.procedure.guarantee}`);
      if (result.simulated) command.output.line(simulationNote);
    }
    return decision.verdict === 'accept' ? 0 : 1;
  } finally {
    await command.close();
  }
}
