import type { Case } from '../../domain/case.ts';
import { traceEventProblem, traceEventSchema } from '../../domain/trace.ts';
import { childEnvironment } from '../../domain/environment.ts';
import { InfraError } from '../../domain/ports/model.ts';
import { SpawnerLost, startLineRunner } from '../process/spawner.ts';
import { stderrCause, stderrTail } from '../process/stderr-tail.ts';
import type { LoadedBlueprint } from '../blueprint/load.ts';
import type { CommandManifest } from '../../domain/blueprint-manifest.ts';
import { visibleCase, type CaseOutcome, type Runtime, type TraceSink } from '../../domain/ports/runtime.ts';

export interface CommandOptions {
  readonly blueprint: LoadedBlueprint;
  readonly manifest: CommandManifest;
  /** Names of environment variables the agent may see (from the workspace config, not the blueprint). */
  readonly passEnv: readonly string[];
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly concurrency?: number;
}

/** Most spawners a run uses: beyond this the machine's cores, not the spawners, are the limit. */
const MAX_SPAWNERS = 4;
/**
 * Case-trials in flight per spawner. A spawner's thread is held only while it starts a process
 * (a millisecond or two), not while the process runs, so one serves several; and each spawner
 * is a Node process that costs some 60 ms of CPU and 40 MB to start.
 */
const RUNS_PER_SPAWNER = 8;

/**
 * Any executable as an agent: the case (without its grading fields) as JSON on stdin, trace
 * events as JSON lines on stdout, streamed into the trace as they arrive. The processes are
 * started by small helper processes (spawners), so concurrency runs them side by side.
 */
export function startCommand(options: CommandOptions): Runtime {
  const [command, ...args] = options.manifest.command;
  const processes = startLineRunner(Math.min(MAX_SPAWNERS, Math.max(1, Math.ceil((options.concurrency ?? 1) / RUNS_PER_SPAWNER))));
  async function runCase(testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    let output: unknown = null;
    let lineNumber = 0;
    const outcome = await processes.run(
      {
        command: command as string,
        args,
        cwd: options.blueprint.root,
        // The trial number lets an agent that samples seed itself, so a run can be reproduced.
        env: { ...childEnvironment(options.parentEnv, options.passEnv), AGENTDEVEL_TRIAL: String(trial) },
        input: JSON.stringify(visibleCase(testCase)),
        timeoutMs: options.manifest.timeoutMs,
      },
      (line) => {
        lineNumber += 1;
        if (line.trim() === '') return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          sink.emit({ type: 'error', kind: 'agent', message: `stdout line ${lineNumber} is not JSON` });
          return;
        }
        // The runner writes the trace's own start event; an agent's start (with or without ids) is redundant, not wrong.
        if (parsed !== null && typeof parsed === 'object' && (parsed as { type?: unknown }).type === 'start') return;
        const event = traceEventSchema.safeParse(parsed);
        if (!event.success) {
          sink.emit({ type: 'error', kind: 'agent', message: `stdout line ${lineNumber} is not a trace event: ${traceEventProblem(parsed)}` });
          return;
        }
        if (event.data.type === 'final') output = event.data.output;
        sink.emit(event.data);
      },
    ).catch((error: unknown) => {
      // The spawner went away: this machine failed the case-trial, not the agent.
      if (error instanceof SpawnerLost) throw new InfraError('agent', error.message, { cause: error });
      throw error;
    });
    if (outcome.spawnError) sink.emit({ type: 'error', kind: 'agent', message: `could not start ${command}: ${outcome.spawnError}` });
    else if (outcome.timedOut) sink.emit({ type: 'error', kind: 'agent', message: `timed out after ${options.manifest.timeoutMs} ms` });
    else if (outcome.exitCode !== 0) {
      // The cause in one line (the error and its file:line), then a bounded tail of stderr:
      // both go to the trace, which the recorder redacts.
      const cause = stderrCause(outcome.stderr);
      sink.emit({ type: 'error', kind: 'agent', message: `exited with ${outcome.signal ?? `code ${outcome.exitCode}`}${cause ? `: ${cause}` : ''}` });
      const tail = stderrTail(outcome.stderr);
      if (tail) sink.emit({ type: 'error', kind: 'agent', message: `stderr (last lines):\n${tail}` });
    }
    return { output, observation: null };
  }
  return { runCase, close: async () => processes.close() };
}
