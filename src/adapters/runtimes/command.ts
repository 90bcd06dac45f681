import type { Case } from '../../domain/case.ts';
import { traceEventProblem, traceEventSchema } from '../../domain/trace.ts';
import { childEnvironment } from '../../domain/environment.ts';
import { InfraError } from '../../domain/ports/model.ts';
import { SpawnerLost, startLineRunner, type LineRunner } from '../process/spawner.ts';
import { stderrCause, stderrTail } from '../process/stderr-tail.ts';
import { brokenLimit } from '../process/sandbox.ts';
import { untrustedCommand, type UntrustedLaunch } from '../process/untrusted.ts';
import type { LoadedBlueprint } from '../blueprint/load.ts';
import type { CommandManifest } from '../../domain/blueprint-manifest.ts';
import { visibleCase, type CaseOutcome, type Runtime, type TraceSink } from '../../domain/ports/runtime.ts';

export interface CommandOptions {
  readonly blueprint: LoadedBlueprint;
  readonly manifest: CommandManifest;
  /** Names of environment variables the agent may see (from the workspace config, not the blueprint). */
  readonly passEnv: readonly string[];
  /** Paths of a case the grading reads (`caseGradingPaths`): the agent never sees them. */
  readonly gradingPaths: readonly string[];
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** The sandbox's memory limit (sandbox.memoryMb), applied to the agent's process and all it starts. */
  readonly memoryMb: number;
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
 * started by small helper processes (spawners), so concurrency runs them side by side. Each
 * runs as untrusted code (untrusted.ts): under the memory limit, and contained, so nothing it
 * starts outlives its case-trial.
 */
export function startCommand(options: CommandOptions): Runtime {
  const [command] = options.manifest.command;
  const spawners = Math.min(MAX_SPAWNERS, Math.max(1, Math.ceil((options.concurrency ?? 1) / RUNS_PER_SPAWNER)));
  // Made with the first launch: where the containment launcher is, it serves as the spawner.
  let processes: LineRunner | null = null;
  let launching: Promise<UntrustedLaunch> | null = null;
  let closed = false;
  async function ready(): Promise<{ readonly launch: UntrustedLaunch; readonly processes: LineRunner }> {
    launching ??= untrustedCommand(options.manifest.command, options.memoryMb, { parentEnv: options.parentEnv, passed: options.passEnv });
    const launch = await launching;
    // Closed while the probes ran: no spawner is started that nothing would stop.
    if (closed) throw new InfraError('agent', 'the agent\'s runtime was closed');
    processes ??= startLineRunner(spawners, { launcher: launch.launcher });
    return { launch, processes };
  }
  async function runCase(testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    let output: unknown = null;
    let lineNumber = 0;
    const { launch, processes } = await ready();
    const outcome = await processes.run(
      {
        ...launch,
        cwd: options.blueprint.root,
        // The trial number lets an agent that samples seed itself, so a run can be reproduced.
        env: { ...childEnvironment(options.parentEnv, options.passEnv), AGENTDEVEL_TRIAL: String(trial) },
        input: JSON.stringify(visibleCase(testCase, options.gradingPaths)),
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
    // The memory limit and the namespace come with a shell in front: it reports a command it cannot find as 127.
    const missing = launch.command !== command && outcome.exitCode === 127 && /not found|No such file/.test(outcome.stderr);
    const broken = outcome.exitCode === 0 || outcome.timedOut ? null : brokenLimit(outcome, { timeoutMs: options.manifest.timeoutMs, memoryMb: options.memoryMb });
    if (outcome.spawnError) sink.emit({ type: 'error', kind: 'agent', message: `could not start ${command}: ${outcome.spawnError}` });
    else if (missing) sink.emit({ type: 'error', kind: 'agent', message: `could not start ${command}: ${stderrCause(outcome.stderr) ?? 'not found'}` });
    else if (outcome.timedOut) sink.emit({ type: 'error', kind: 'agent', message: `timed out after ${options.manifest.timeoutMs} ms` });
    else if (outcome.exitCode !== 0) {
      // The limit it broke, else the cause in one line (the error and its file:line), then a
      // bounded tail of stderr: all go to the trace, which the recorder redacts.
      const cause = stderrCause(outcome.stderr);
      sink.emit({ type: 'error', kind: 'agent', message: broken ?? `exited with ${outcome.signal ?? `code ${outcome.exitCode}`}${cause ? `: ${cause}` : ''}` });
      const tail = stderrTail(outcome.stderr);
      if (tail) sink.emit({ type: 'error', kind: 'agent', message: `stderr (last lines):\n${tail}` });
    }
    return { output, observation: null };
  }
  return {
    runCase,
    prepare: async () => {
      await (await ready()).processes.prepare();
    },
    close: async () => {
      closed = true;
      await processes?.close();
    },
  };
}
