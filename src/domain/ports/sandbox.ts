// Untrusted JavaScript run apart (a generated diagnosis script): it reads only what it is
// granted, writes only its own folders, sees no environment and no network, and is stopped at its
// limits. adapters/process/sandbox.ts (runSandboxed) implements it; app/compose wires it.

export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly memoryMb: number;
}

export interface ScriptRun {
  /** Absolute path of the untrusted script (an ES module). */
  readonly script: string;
  readonly args: readonly string[];
  /** Files and folders the script may read, besides itself. */
  readonly readable: readonly string[];
  /** Folders the script may write. */
  readonly writable: readonly string[];
  readonly limits: SandboxLimits;
}

/** Ran to exit 0, or why not (could not start, a limit it broke, a signal, its exit code and last lines). */
export type ScriptVerdict = { readonly kind: 'ok' } | { readonly kind: 'failed'; readonly reason: string };

export type ScriptSandbox = (run: ScriptRun) => Promise<ScriptVerdict>;
