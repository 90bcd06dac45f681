// Types of agentdevel's library entry point (src/api.ts checks that it matches them).

export interface WorkspaceOptions {
  /** The workspace: a git repository with agentdevel.config.json. Relative to the current directory (like the CLI's -C), or absolute. */
  readonly dir: string;
  /** Where progress lines go (default: nowhere). */
  readonly progress?: NodeJS.WritableStream;
}

export interface CaseReason {
  readonly caseId: string;
  readonly passes: number;
  readonly graded: number;
  readonly infraErrors: number;
  /** The first bad trial's reason: the scorer's check (expected against actual), the critic's label, the agent's error. */
  readonly reason: string;
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
  /** Write JUnit XML here (like `run --junit`); relative to the current directory. */
  readonly junit?: string;
}

export interface GateCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly message: string;
}

/** The gate's decision (the `gate` object of decision.json, schema agentdevel/decision@3). */
export interface GateDecision {
  readonly policy: 'flips' | 'stochastic';
  readonly verdict: 'accept' | 'reject' | 'undecided';
  readonly checks: readonly GateCheck[];
  readonly reasons: readonly string[];
  readonly warnings: readonly string[];
  /** Confirmed regressions (pass → fail). */
  readonly p2f: readonly string[];
  /** Confirmed fixes (fail → pass). */
  readonly f2p: readonly string[];
  /** Cases that moved within noise. */
  readonly flaky: readonly string[];
  readonly screening: { readonly p2f: readonly string[]; readonly f2p: readonly string[] };
  readonly aggregate: { readonly worse: number; readonly better: number; readonly pValue: number; readonly level: number | null };
  readonly passRates: { readonly baseline: number; readonly candidate: number };
  readonly rates: { readonly p2fRate: number; readonly f2pRate: number; readonly hitRate: number | null };
}

/** A person's change beyond the blueprint, by kind of path (README, "In CI"). */
export interface HumanChange {
  /** Whether it edits the blueprint folder; false: the release is compared with itself. */
  readonly blueprint: boolean;
  /** Its edits to the task folder: both sides ran on the candidate's task; null when it edits none. */
  readonly task: {
    readonly folder: string;
    readonly paths: readonly string[];
    readonly cases: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly edited: readonly string[] };
    /** The release's blueprint in the candidate's tree: a commit on no branch. */
    readonly baseline: { readonly commit: string; readonly label: string };
    /** The release's screen on the cases the change added or edited. */
    readonly releaseOnCases: ReadonlyArray<{ readonly caseId: string; readonly passes: number; readonly graded: number }>;
  } | null;
  /** agentdevel.config.json's changed top-level keys; the gate ran under the line's config. */
  readonly config: { readonly file: string; readonly keys: readonly string[] } | null;
  /** Paths neither the blueprint, the task nor the config: listed, not gated. */
  readonly notGated: readonly string[];
}

export interface GateSummary {
  readonly outcome: 'promoted' | 'pending' | 'rejected' | 'accepted';
  readonly tag: string | null;
  readonly decision: GateDecision;
  /** Files a dry gate wrote to `reportDir`. */
  readonly reports: readonly string[];
  readonly simulated: boolean;
  /** What a person's change touched beyond the blueprint, and how the gate treated it (decision.json's `change`); null for a change to the blueprint alone. */
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
}

export interface IterationSummary {
  readonly iteration: number;
  /** pending: accepted by the gate, awaiting a person's approval (the approval layer). */
  readonly kind: 'promoted' | 'pending' | 'rejected' | 'no_candidate';
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly tag: string | null;
  readonly reasons: readonly string[];
  /** Where the iteration's diagnosis report is: `file` in git at `ref` (`git show ref:file`), or in agentdevel's state folder when `ref` is null; null without a diagnosis. */
  readonly diagnosis: { readonly note: string; readonly file: string; readonly ref: string | null } | null;
}

export interface IterateOutcome {
  readonly iterations: readonly IterationSummary[];
  readonly stopReason: string;
  readonly release: string;
  readonly simulated: boolean;
}

/** Runs the working tree (or `ref`) over the train split, or only the cases named. */
export function run(options: RunOptions): Promise<RunSummary>;
/** Gates a candidate against the current release; `promote` records it on the line. */
export function gate(options: GateOptions): Promise<GateSummary>;
/** Compares two recorded runs (names or ids) with the gate's own code. */
export function compare(options: WorkspaceOptions & { readonly baseline: string; readonly candidate: string }): Promise<GateDecision>;
/** The release loop until a stop condition (or `maxIterations`). */
export function iterate(options: WorkspaceOptions & { readonly maxIterations?: number }): Promise<IterateOutcome>;
