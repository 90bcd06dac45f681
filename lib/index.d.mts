// Generated from src/api.ts by scripts/write-library-types.ts: edit the source, then run
// `npx tsx scripts/write-library-types.ts`. test/unit/library-types.test.ts fails when this file is stale.

export interface WorkspaceOptions {
  /** The workspace (a git repository with agentdevel.config.json), relative to the current directory or absolute, like `-C`. */
  readonly dir: string;
  /** Where progress lines go (default: nowhere). */
  readonly progress?: NodeJS.WritableStream;
}

export interface RunSummary {
  readonly runId: string;
  readonly passRate: number;
  readonly failing: readonly CaseReason[];
  /** True only when the mock engine played the agent. */
  readonly simulated: boolean;
  /** The JUnit file written (the `junit` option), else null. */
  readonly junit: string | null;
}

export interface RunOptions extends WorkspaceOptions {
  /** A branch, tag or commit to run instead of the working tree. */
  readonly ref?: string;
  readonly trials?: number;
  /** Only these train cases (like `run --case`). */
  readonly cases?: readonly string[];
  /** Write JUnit XML here (like `run --junit`). */
  readonly junit?: string;
}

export interface GateSummary {
  readonly outcome: ReleaseOutcome;
  readonly tag: string | null;
  readonly decision: GateDecision;
  /** Files a dry gate wrote to `reportDir`. */
  readonly reports: readonly string[];
  readonly simulated: boolean;
  /** What a person's change touched beyond the blueprint, and how the gate treated it (null: the blueprint alone). */
  readonly change: HumanChange | null;
  /** The summary files written: the `summary` option's, and $GITHUB_STEP_SUMMARY on GitHub Actions. */
  readonly summary: readonly string[];
  /** The JUnit file written (the `junit` option), else null. */
  readonly junit: string | null;
}

export interface GateOptions extends WorkspaceOptions {
  /** The branch, tag or commit to gate. */
  readonly candidate: string;
  /** Record it on the line: promote it when accepted, record the rejection otherwise. */
  readonly promote?: boolean;
  /** Symptom labels the change intends to fix (enables the hit-rate check). */
  readonly targets?: readonly string[];
  /** Where a gate without `promote` writes its reports (a folder per candidate below it); none when absent. */
  readonly reportDir?: string;
  /** Write the pull request summary (markdown) here, like `gate --summary`. */
  readonly summary?: string;
  /** Write JUnit XML here, like `gate --junit`. */
  readonly junit?: string;
  /** Gate against this commit instead of the current release, like `gate --baseline` (a change merged into the line without a gate). */
  readonly baseline?: string;
  /** Let a change to the sealed test split through, like `gate --reseal-test`; otherwise it is refused. */
  readonly resealTest?: boolean;
}

export type GateDecision = {
  policy: "flips" | "stochastic";
  verdict: "accept" | "reject" | "undecided";
  checks: GateCheck[];
  reasons: string[];
  warnings: string[];
  /** Regressions the gate names: every P→F flip (flips policy) or the confirmed ones. */
  p2f: string[];
  /** Fixes the gate counts: every F→P flip (flips policy) or the confirmed ones. */
  f2p: string[];
  /** Cases whose outcome moved in screening but not beyond noise. */
  flaky: string[];
  /** The raw screening flips, before any confirmation. */
  screening: {
    p2f: string[];
    f2p: string[];
  };
  /**
   * Exact one-sided sign test: is the candidate worse overall? Over the moved cases' first fresh
   * pairs (fresh), or over the screening runs' moved cases (screening: single stage, and @2).
   */
  aggregate: {
    worse: number;
    better: number;
    pValue: number;
    level: number | null;
    source: "screening" | "fresh";
  };
  tests: CaseTest[];
  procedure: Procedure;
  rates: {
    p2fRate: number;
    f2pRate: number;
    hitRate: number | null;
  };
  /** pass^1 of each side: the mean over cases of the share of graded trials that passed. */
  passRates: {
    baseline: number;
    candidate: number;
  };
  /** What this decision could have seen (absent before @3). */
  power: PowerStatement | null;
  /** Every layer in order; the verdict above is theirs together. */
  layers: LayerVerdict[];
  cost: {
    /** The weights of R_cost = steps·w + repeats·w + noops·w. */
    weights: {
      steps: number;
      repeats: number;
      noops: number;
    };
    /** Mean R_cost per case-trial of each side's screening run. */
    baseline: number;
    candidate: number;
  } | null;
  /** The weighted composite of each side (report.composite); it breaks ties, it never gates. */
  composite: {
    weights: {
      readonly [key: string]: number;
    };
    baseline: number;
    candidate: number;
  } | null;
  efficiency: {
    /** Which per-case score was compared: the composite (report.composite) or the trace cost. */
    measure: "cost" | "composite";
    better: number;
    worse: number;
    /** One-sided exact sign test over cases whose score differs: is the candidate better? */
    pValue: number;
    promoted: boolean;
  } | null;
  /** Requirement-level evidence, when the task has requirements. */
  requirements: {
    fixed: {
      caseId: string;
      requirement: string;
    }[];
    broken: {
      caseId: string;
      requirement: string;
    }[];
    stillFailing: {
      caseId: string;
      requirement: string;
    }[];
    /** Share of case-trials the scorers pass but a requirement only the critic judges fails. */
    violationRate: {
      baseline: number;
      candidate: number;
      cases: string[];
    };
  } | null;
};

export interface IterateOutcome {
  readonly iterations: IterationSummary[];
  readonly stopReason: string;
  readonly release: string;
  readonly simulated: boolean;
  readonly ablation: "no-gate" | "no-diagnosis" | "critic-sees-blueprint" | null;
}

/** One case of a run that did not pass every trial, with the reason of its first bad trial. */
export interface CaseReason {
  readonly caseId: string;
  readonly passes: number;
  readonly graded: number;
  readonly infraErrors: number;
  /** The first bad trial's reason: the scorer's check (expected against actual), the critic's label, the agent's error. */
  readonly reason: string;
}

/**
 * What the gate made of a release candidate: promoted, pending (held for a person's approval) or
 * rejected when the decision is recorded in git; accepted or rejected by a dry gate, which records
 * nothing. A person's verdict on a pending release adds "declined" (the document's outcomes).
 */
export type ReleaseOutcome = "rejected" | "pending" | "promoted" | "accepted";

export type HumanChange = {
  /** Whether it edits the blueprint folder; false: the release is compared with itself. */
  blueprint: boolean;
  /** Its edits to the task folder; null when it edits none. */
  task: {
    /** rubrics/<task>/ */
    folder: string;
    /** The paths it changes there. */
    paths: string[];
    /** The train split's cases by id, against where the change was cut from. */
    cases: {
      added: string[];
      removed: string[];
      edited: string[];
    };
    /**
     * The version the candidate was compared with: the release's blueprint in the candidate's
     * tree (a commit on no branch, whose parent is the release), named "<release> on <ref>'s task".
     */
    baseline: {
      commit: string;
      label: string;
    };
    /** The release's screen on the cases the change added or edited. */
    releaseOnCases: {
      caseId: string;
      passes: number;
      graded: number;
    }[];
  } | null;
  /** agentdevel.config.json, when it changes it: the top-level keys whose values differ. The gate ran under the line's. */
  config: {
    file: string;
    keys: string[];
  } | null;
  /** Paths it changes that are neither the blueprint, the task nor the config: not gated. */
  notGated: string[];
  /** What grades the cases (the task folder but its splits), when it differs from the release's; absent in decisions recorded before it was. */
  grading?: GradingChange | null;
  /** The sealed test split, when the change edits, adds to, moves or deletes it (only with --reseal-test); absent before it was recorded. */
  testSplit?: TestSplitChange | null;
};

export type GateCheck = {
  name: "requirements" | "graded" | "scope" | "confirmation" | "infra_balance" | "regressions" | "regression_rate" | "paired_test" | "fixes" | "hit_rate" | "efficiency" | "must_pass" | "blueprint_check" | "trace_cost" | "violation_rate" | "approval";
  ok: boolean;
  message: string;
  /** The cases a failed check is about (a must-pass case that failed), so every output can name them. */
  cases?: string[];
};

export type CaseTest = {
  caseId: string;
  direction: "regression" | "fix";
  screening: {
    baseline: {
      passes: number;
      graded: number;
    };
    candidate: {
      passes: number;
      graded: number;
    };
  };
  /** Fresh trials run only to decide this case (two-stage gate); null when the screening data decide (single stage). */
  confirmation: {
    baseline: {
      passes: number;
      graded: number;
    };
    candidate: {
      passes: number;
      graded: number;
    };
  } | null;
  /** One-sided exact p-value of the full-size test (Boschloo on fresh trials, Fisher on screening data); a bound when the case stopped early. */
  pValue: number | null;
  pBound: "exact" | "at_most" | "at_least" | null;
  /** Holm-adjusted (weighted Holm from @3) within the case's family: significant when at most the family's level. */
  adjustedPValue: number | null;
  /**
   * stopped_early: the full-size test could no longer reach its level; futile: its predicted chance
   * of reaching it fell below gate.futility; unreachable: no K within the cap could reach it (@2).
   */
  outcome: "confirmed" | "not_confirmed" | "stopped_early" | "futile" | "incomplete" | "unreachable";
  /** Its weight in the family (a unanimous screen weighs more), its level and K (absent before @3). */
  weight: number | null;
  bar: number | null;
  trialsPerSide: number | null;
};

export type Procedure = {
  kind: "flips" | "single_stage" | "two_stage" | "not_run";
  alpha: number | null;
  /** Level of the paired sign test over all cases' screening outcomes. */
  aggregateLevel: number | null;
  /** Family-wise level of the per-case regression tests. */
  familyLevel: number | null;
  /** Family-wise level of the per-case fix tests (absent before @3, when it was familyLevel). */
  fixLevel: number | null;
  /** How many records of the baseline's screen selected the moved cases (absent before @3: one). */
  baselineRecords: number | null;
  /** The most fresh trials per side of any case's design, per family; null when the family was empty. */
  trialsPerSide: {
    regression: number | null;
    fix: number | null;
  };
  /** The procedure in plain words, and the error rate it guarantees. */
  text: string;
  guarantee: string | null;
};

export type PowerStatement = {
  /** The power the detectable effects are stated at. */
  statedPower: number;
  families: {
    direction: "regression" | "fix";
    level: number;
    classes: {
      /** What put a case in this class, in words ("every baseline trial passed"). */
      screen: string;
      weight: number;
      cases: number;
      bar: number;
      trialsPerSide: number;
      /** The smallest drop (regressions) or rise (fixes) confirmed with the stated power, from each baseline pass chance; null: none is. */
      detectable: {
        from: number;
        change: number | null;
      }[];
    }[];
  }[];
  /** The paired test (over the moved cases' first fresh pairs, or, in one stage, over every graded case's runs): the smallest common drop it detects. */
  aggregate: {
    pairs: number;
    level: number;
    rate: number;
    detectableDrop: number | null;
  } | null;
  /** Set when the decision saw a drop it could not have confirmed with the stated power. */
  underpowered: {
    caseId: string;
    fresh: {
      baseline: {
        passes: number;
        graded: number;
      };
      candidate: {
        passes: number;
        graded: number;
      };
    };
    /** Its one-sided p-value before any correction. */
    pValue: number;
    /** This design's chance of confirming a drop that size. */
    power: number;
    /** Fresh trials a side that would confirm it with the stated power; null beyond what was searched. */
    trialsNeeded: number | null;
  } | null;
  /** Likely regressions where nothing can be re-run (single stage): ranked by p, none of them confirmed. */
  likely: {
    regressions: {
      caseId: string;
      pValue: number;
      fdrAdjusted: number;
    }[];
    /** The false discovery rate the FDR names are taken at, and the names: a label, never a gate. */
    fdr: number;
    namedAtFdr: string[];
    /** Whether any single case could reach its corrected level at these trial counts. */
    confirmable: boolean;
    /** The smallest p-value one case can reach at these trial counts, and the level it would need. */
    smallestPValue: number;
    bar: number;
    /** Trials a side at which one case could reach that level at all (a perfect split). */
    trialsNeeded: number | null;
    /** Trials a side that would confirm a drop of gate.detectableDrop from 100% with the stated power (absent before decision@3's later writers). */
    trialsForPower?: number | null;
  } | null;
  /** All of it in words, as the reports print it. */
  text: string[];
};

export type LayerVerdict = {
  layer: "checks" | "requirements" | "approval" | "flips";
  verdict: "pass" | "not_run" | "veto" | "accept" | "reject" | "undecided" | "pending";
  checks: GateCheck[];
  /** Requirement violations the requirements layer found, each naming the requirement and the case. */
  violations: {
    requirement: string;
    caseId: string;
    reason: string;
  }[];
};

export interface IterationSummary extends IterationResult {
  readonly rc: string | null;
  readonly tag: string | null;
  readonly reasons: readonly string[];
  readonly targets: readonly string[];
  readonly diagnosisSource: "generated" | "builtin" | "none";
  readonly ablation: "no-gate" | "no-diagnosis" | "critic-sees-blueprint" | null;
  /** Model-phrased gradient claims dropped this iteration because their evidence did not resolve. */
  readonly gradientDropped?: number;
  /** Where the iteration's diagnosis report is; null when none was made (the no-diagnosis ablation). */
  readonly diagnosis: DiagnosisPointer | null;
}

export type GradingChange = {
  /** The grading files that differ between the release and the candidate (task folder relative). */
  files: string[];
  /** What the release's earlier runs were graded under: its own task. */
  release: {
    digest: string;
    commit: string;
    label: string;
  };
  /** The candidate's: what this gate graded both sides under. */
  candidate: {
    digest: string;
    commit: string;
    label: string;
  };
};

export type TestSplitChange = {
  /** rubrics/<task>/test.jsonl */
  path: string;
  /** Its git blob id where the change was cut from, and in the candidate (null: absent). */
  before: string | null;
  after: string | null;
  /** The user asked for it (--reseal-test): the seal is taken again on the candidate's split. */
  resealed: true;
};

export interface IterationResult {
  readonly iteration: number;
  readonly kind: IterationKind;
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly p2fRate: number;
}

/** Where to read an iteration's diagnosis report. */
export interface DiagnosisPointer {
  /** How it was made ("built-in diagnosis script used", …). */
  readonly note: string;
  /** report.json: a path in the workspace, committed at `ref`; or, when no decision committed it, in agentdevel's state folder. */
  readonly file: string;
  /** The git ref holding it (the release tag, or the RC's audit ref); null when it was not committed. */
  readonly ref: string | null;
}

export type IterationKind = "rejected" | "pending" | "promoted" | "no_candidate";

/** Runs the working tree (or `ref`) over the train split, or only the cases named. */
export function run(options: RunOptions): Promise<RunSummary>;

/** Gates a candidate (branch, tag or commit) against the current release; `promote` records it on the line. */
export function gate(options: GateOptions): Promise<GateSummary>;

/** Compares two recorded runs (names or ids) with the gate's own code. */
export function compare(options: WorkspaceOptions & {
  readonly baseline: string;
  readonly candidate: string;
}): Promise<GateDecision>;

/** The release loop until a stop condition (or `maxIterations`). */
export function iterate(options: WorkspaceOptions & {
  readonly maxIterations?: number;
}): Promise<IterateOutcome>;
