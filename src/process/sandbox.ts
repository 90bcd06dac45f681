import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnvironment } from './environment.ts';
import { permissionArgs } from './node-permissions.ts';
import { runProcess, type ProcessOutcome, type ProcessRequest } from './runner.ts';

const entry = fileURLToPath(new URL('./sandbox-entry.mjs', import.meta.url));

export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly memoryMb: number;
}

export interface SandboxRequest extends SandboxGrant {
  /** Absolute path of the untrusted script (an ES module). */
  readonly script: string;
  readonly args: readonly string[];
  readonly limits: SandboxLimits;
}

export interface SandboxGrant {
  /** Files and folders the script may read, besides itself. */
  readonly readable: readonly string[];
  /** Folders the script may write. */
  readonly writable: readonly string[];
}

/** The command line that runs `script` under the sandbox; shared by scripts and the tool host. */
export function sandboxInvocation(
  script: string,
  grant: SandboxGrant,
  args: readonly string[],
  memoryMb: number,
): ProcessRequest {
  const permissions = {
    read: [entry, script, ...grant.readable].map((p) => path.resolve(p)),
    write: grant.writable.map((p) => path.resolve(p)),
  };
  return {
    command: process.execPath,
    args: [
      ...permissionArgs(permissions),
      `--max-old-space-size=${memoryMb}`,
      '--disable-warning=ExperimentalWarning',
      entry,
      path.resolve(script),
      ...args,
    ],
    // Nothing of agentdevel's environment: no API keys, no tokens.
    env: childEnvironment({ PATH: '/nonexistent' }),
    cwd: path.dirname(path.resolve(script)),
  };
}

export type SandboxVerdict =
  | { readonly kind: 'ok'; readonly outcome: ProcessOutcome }
  | { readonly kind: 'failed'; readonly reason: string; readonly outcome: ProcessOutcome };

/**
 * Runs untrusted JavaScript in a separate Node process under the permission model: it reads
 * only `readable`, writes only `writable`, cannot start processes or workers, sees no
 * environment variables and no network, and is killed at the time or memory limit.
 */
export async function runSandboxed(request: SandboxRequest): Promise<SandboxVerdict> {
  const outcome = await runProcess({
    ...sandboxInvocation(request.script, request, request.args, request.limits.memoryMb),
    timeoutMs: request.limits.timeoutMs,
    maxOutputBytes: 4 * 1024 * 1024,
  });
  if (outcome.timedOut) {
    return { kind: 'failed', reason: `killed after the time limit of ${request.limits.timeoutMs} ms`, outcome };
  }
  if (outcome.spawnError) return { kind: 'failed', reason: `could not start: ${outcome.spawnError}`, outcome };
  if (/heap out of memory|Allocation failed/i.test(outcome.stderr)) {
    return { kind: 'failed', reason: `killed at the memory limit of ${request.limits.memoryMb} MB`, outcome };
  }
  if (outcome.signal) return { kind: 'failed', reason: `killed by ${outcome.signal}`, outcome };
  if (outcome.exitCode !== 0) {
    return { kind: 'failed', reason: `exited with code ${outcome.exitCode}: ${lastLines(outcome.stderr)}`, outcome };
  }
  return { kind: 'ok', outcome };
}

function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at ') && !l.includes('ExperimentalWarning') && !l.includes('--trace-warnings'));
  const error = lines.find((l) => /^(\w*Error|sandbox:)/.test(l));
  return (error ?? lines.at(-1) ?? '(no output)').slice(0, 300);
}
