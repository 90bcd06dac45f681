// The blueprint's own checks, run as untrusted code (the BlueprintCheckRunner port).
import type { BlueprintCheck, BlueprintCheckOutcome, BlueprintCheckRunner } from '../../domain/ports/checks.ts';
import { childEnvironment } from '../../domain/environment.ts';
import { runProcess } from './runner.ts';
import { brokenLimit, lastLines } from './sandbox.ts';
import { untrustedCommand, type Containment } from './untrusted.ts';

/**
 * Runs the blueprint's own checks in the candidate's blueprint folder, like any untrusted code
 * an RC brings (untrusted.ts): its own process group, the sandbox's memory limit (the data
 * segment, as for Node children: heap, Buffers and native allocations alike), only PATH in its
 * environment, a time limit, and nothing it started outlives it, even outside its group and
 * session, with its environment cleared. A check that cannot start, breaks a limit or exits
 * non-zero fails, and the detail names the limit it broke. `containment` forces one (tests).
 */
export async function runBlueprintChecks(
  checks: readonly BlueprintCheck[],
  blueprintDir: string,
  parentEnv: Readonly<Record<string, string | undefined>>,
  memoryMb: number,
  containment?: Containment,
): Promise<BlueprintCheckOutcome[]> {
  const outcomes: BlueprintCheckOutcome[] = [];
  for (const check of checks) {
    const [command] = check.command;
    const launch = await untrustedCommand(check.command, memoryMb, { parentEnv, passed: [] }, containment);
    const outcome = await runProcess({ ...launch, cwd: blueprintDir, env: childEnvironment(parentEnv), timeoutMs: check.timeoutMs });
    const tail = `${outcome.stdout}\n${outcome.stderr}`.trim().split('\n').slice(-3).join(' / ').slice(0, 300);
    // A shell in front (the memory limit, the namespace) reports a command it cannot find as 127 (execa would have said ENOENT).
    const missing = launch.command !== command && outcome.exitCode === 127 && /not found|No such file/.test(outcome.stderr);
    const broken = outcome.exitCode === 0 ? null : brokenLimit(outcome, { timeoutMs: check.timeoutMs, memoryMb });
    const detail = outcome.spawnError
      ? `could not start ${command}: ${outcome.spawnError}`
      : missing
        ? `could not start ${command}: ${lastLines(outcome.stderr)}`
        : broken
          ? broken.replace(/^killed after the time limit of (\d+) ms$/, 'timed out after $1 ms')
          : `exit ${outcome.exitCode ?? outcome.signal}${tail ? `: ${tail}` : ''}`;
    outcomes.push({ name: check.name, ok: outcome.spawnError === null && !outcome.timedOut && outcome.exitCode === 0, detail });
  }
  return outcomes;
}

/** The port: checks run with only PATH of `parentEnv` in their environment. */
export function blueprintCheckRunner(parentEnv: Readonly<Record<string, string | undefined>>): BlueprintCheckRunner {
  return { run: (checks, blueprintDir, memoryMb) => runBlueprintChecks(checks, blueprintDir, parentEnv, memoryMb) };
}
