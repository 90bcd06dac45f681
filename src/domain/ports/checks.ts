// The blueprint's own checks (gate layer "checks", `blueprintChecks`): commands the candidate's
// blueprint names, run as untrusted code in its folder. The gate needs only their outcomes; how
// they are run (limits, containment) is the process adapter's (adapters/process/blueprint-checks.ts).

/** One command a blueprint check runs. */
export interface BlueprintCheck {
  readonly name: string;
  readonly command: readonly string[];
  readonly timeoutMs: number;
}

export interface BlueprintCheckOutcome {
  readonly name: string;
  readonly ok: boolean;
  /** The exit status and the last lines of output, or the limit it broke, for the report. */
  readonly detail: string;
}

/** Runs a candidate's blueprint checks in its blueprint folder, one after the other. */
export interface BlueprintCheckRunner {
  run(checks: readonly BlueprintCheck[], blueprintDir: string, memoryMb: number): Promise<BlueprintCheckOutcome[]>;
}
