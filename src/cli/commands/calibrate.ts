import { AgentdevelError } from '../../domain/errors.ts';
import { calibrateAgent, calibrateCritic } from '../../pipeline/gate/calibrate.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import type { CalibrateOptions } from './calibrate.options.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** Noise floors: the agent's flip rate against itself (A/A), and with --critic the critic's disagreement. */
export async function calibrateCommand(io: Io, options: CalibrateOptions): Promise<number> {
  const repeats = Number(options.repeats ?? 3);
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > 20) throw new AgentdevelError('USAGE', `--repeats: expected 1 to 20, got "${options.repeats}"`);
  const command = await openCommand(io, options, 'calibrate');
  try {
    const { noise, first } = await calibrateAgent(command.pipelineContext);
    const critic = options.critic ? await calibrateCritic(command.pipelineContext, first, repeats) : null;
    const decision = noise.comparison.decision;
    if (command.output.json) {
      command.output.result({
        release: noise.release,
        trials: noise.trials,
        runs: noise.runs,
        agent: { cases: noise.cases, flipRate: noise.flipRate, changed: noise.changed, flaky: decision.flaky, regressions: decision.p2f, worseOverallP: decision.aggregate.pValue, decision: decision.verdict },
        critic,
        simulated: first.simulated,
      });
    } else {
      command.output.line(`${noise.release}, two runs of ${noise.trials} trial${noise.trials === 1 ? '' : 's'} per case (${noise.runs.join(' vs ')}):`);
      command.output.line(`  agent flip rate against itself: ${pct(noise.flipRate)} (${noise.changed.length} of ${noise.cases} cases${noise.changed.length ? `: ${noise.changed.join(', ')}` : ''})`);
      command.output.line(
        `  the gate on this A/A pair: ${decision.verdict} (${decision.policy}; worse overall? ${decision.aggregate.worse} of ${decision.aggregate.worse + decision.aggregate.better} moved cases dropped, p = ${decision.aggregate.pValue.toFixed(4)})`,
      );
      for (const warning of decision.warnings) command.output.line(`  warning: ${warning}`);
      if (critic) {
        command.output.line(`  critic (${critic.model}), ${critic.records} case-trials graded ${critic.repeats + 1} times: pass/fail disagreement ${pct(critic.passDisagreement)}, label disagreement ${pct(critic.labelDisagreement)}`);
      }
      if (first.simulated) command.output.line(simulationNote);
    }
    return 0;
  } finally {
    await command.close();
  }
}
