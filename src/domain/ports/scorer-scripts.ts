// A task's custom scorer script, run as a child process (trusted: the task is frozen and lies
// outside the blueprint): it reads {case, output} on stdin and prints its verdict on stdout.
// adapters/process/scorer-scripts.ts (runScorerScript) implements it; app/compose wires it.

export interface ScorerScriptRun {
  readonly command: string;
  readonly args: readonly string[];
  /** The task's folder. */
  readonly cwd: string;
  /** The complete environment of the script: nothing is inherited from agentdevel's own. */
  readonly env: Readonly<Record<string, string>>;
  /** What the script reads on stdin. */
  readonly input: string;
  readonly timeoutMs: number;
}

export interface ScorerScriptOutcome {
  /** Null when the script did not exit by itself (killed, or never started). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export type ScorerScriptRunner = (run: ScorerScriptRun) => Promise<ScorerScriptOutcome>;
