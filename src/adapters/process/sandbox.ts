import type { SandboxLimits, ScriptRun, ScriptSandbox } from '../../domain/ports/sandbox.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnvironment } from '../../domain/environment.ts';
import { launcher, LIMIT_REFUSED_EXIT, limitedCommand, ranOutOfMemory } from './memory-limit.ts';
import { permissionArgs } from './node-permissions.ts';
import { runProcess, type ProcessOutcome, type ProcessRequest } from './runner.ts';

const entry = fileURLToPath(new URL('./sandbox-entry.mjs', import.meta.url));

export type { SandboxLimits };

/** What one script run asks for (the port's ScriptRun). */
export type SandboxRequest = ScriptRun;

/** What a script may read and write, besides itself. */
export type SandboxGrant = Pick<ScriptRun, 'readable' | 'writable'>;

/**
 * The command line that runs `script` under the sandbox; shared by scripts and the tool host.
 * The child runs in its own process group under the permission model, with the V8 heap limited
 * by `--max-old-space-size` and all its other memory by RLIMIT_DATA (see memory-limit.ts).
 */
export async function sandboxInvocation(
  script: string,
  grant: SandboxGrant,
  args: readonly string[],
  memoryMb: number,
): Promise<ProcessRequest> {
  const permissions = {
    read: [entry, script, ...grant.readable].map((p) => path.resolve(p)),
    write: grant.writable.map((p) => path.resolve(p)),
  };
  const node = [
    ...permissionArgs(permissions),
    `--max-old-space-size=${memoryMb}`,
    '--disable-warning=ExperimentalWarning',
    entry,
    path.resolve(script),
    ...args,
  ];
  return {
    ...limitedCommand(await launcher(), memoryMb, node),
    // Nothing of agentdevel's environment: no API keys, no tokens.
    env: childEnvironment({ PATH: '/nonexistent' }),
    cwd: path.dirname(path.resolve(script)),
  };
}

/**
 * Why a sandboxed child stopped, when it broke a limit or a rule (null otherwise): the time
 * limit, the memory limit, or a denied attempt to signal another process.
 */
export function brokenLimit(outcome: ProcessOutcome, limits: SandboxLimits): string | null {
  if (outcome.timedOut) return `killed after the time limit of ${limits.timeoutMs} ms`;
  if (outcome.outputCutAt !== undefined) return `stopped: its output passed ${outcome.outputCutAt} bytes`;
  const stopped = /sandbox: stopped: (.*)/.exec(outcome.stderr)?.[1];
  if (stopped) return `stopped: ${stopped.trim()}`;
  if (outcome.exitCode === LIMIT_REFUSED_EXIT && /ulimit/.test(outcome.stderr)) return `could not start: the shell refused the memory limit (${lastLines(outcome.stderr)})`;
  if (ranOutOfMemory(outcome.stderr)) return `killed at the memory limit of ${limits.memoryMb} MB`;
  return null;
}

export type SandboxVerdict =
  | { readonly kind: 'ok'; readonly outcome: ProcessOutcome }
  | { readonly kind: 'failed'; readonly reason: string; readonly outcome: ProcessOutcome };

/**
 * Runs untrusted JavaScript in a separate Node process under the permission model: it reads
 * only `readable`, writes only `writable`, cannot start processes or workers, sees no
 * environment variables and no network, and is killed at the time or memory limit.
 */
export const runSandboxed = (async (request: SandboxRequest): Promise<SandboxVerdict> => {
  const outcome = await runProcess({
    ...(await sandboxInvocation(request.script, request, request.args, request.limits.memoryMb)),
    timeoutMs: request.limits.timeoutMs,
    maxOutputBytes: 4 * 1024 * 1024,
  });
  if (outcome.spawnError) return { kind: 'failed', reason: `could not start: ${outcome.spawnError}`, outcome };
  const broken = brokenLimit(outcome, request.limits);
  if (broken) return { kind: 'failed', reason: broken, outcome };
  if (outcome.signal) return { kind: 'failed', reason: `killed by ${outcome.signal}`, outcome };
  if (outcome.exitCode !== 0) {
    return { kind: 'failed', reason: `exited with code ${outcome.exitCode}: ${lastLines(outcome.stderr)}`, outcome };
  }
  return { kind: 'ok', outcome };
}) satisfies ScriptSandbox;

export function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at ') && !l.includes('ExperimentalWarning') && !l.includes('--trace-warnings'));
  const error = lines.find((l) => /^(\w*Error|sandbox:)/.test(l));
  return (error ?? lines.at(-1) ?? '(no output)').slice(0, 300);
}
