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
        p2fRate: decision.p2fRate,
        f2pRate: decision.f2pRate,
        hitRate: decision.hitRate,
        baselinePassRate: decision.baselinePassRate,
        candidatePassRate: decision.candidatePassRate,
        reasons: decision.reasons,
        ranCandidate: result.ranCandidate,
        simulated: result.simulated,
      });
    } else {
      command.output.line(`${result.candidate}: ${result.outcome}${result.tag ? ` as ${result.tag}` : ''}`);
      for (const check of decision.checks) command.output.line(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.message}`);
      if (decision.f2p.length) command.output.line(`  fixed (F→P): ${decision.f2p.join(', ')}`);
      if (decision.p2f.length) command.output.line(`  regressed (P→F): ${decision.p2f.join(', ')}`);
      if (result.simulated) command.output.line(simulationNote);
    }
    return decision.verdict === 'accept' ? 0 : 1;
  } finally {
    await command.close();
  }
}
