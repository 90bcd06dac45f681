// When a case-trial may start. The gate's confirmation runs both versions' fresh trials of a
// round as pairs (pipeline/gate/paired-turns.ts): each side's run takes a turn before each
// case-trial and ends it when the case-trial is graded, so a change of the provider at any
// moment lands on both sides alike.

/** Turns for one run's case-trials: `take` resolves when the next case-trial may start, with the function that ends its turn. */
export interface CaseTrialTurns {
  take(): Promise<() => void>;
}
