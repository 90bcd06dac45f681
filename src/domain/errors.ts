// The error catalogue: every error a user can see has a code, a one-line message and a next
// step. Anything thrown that is not an AgentdevelError is a bug and prints its stack (exit 70).

export const EXIT = {
  ok: 0,
  rejected: 1,
  usage: 2,
  infra: 3,
  internal: 70,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface CatalogueEntry {
  readonly exit: ExitCode;
  readonly hint: string;
}

const catalogue = {
  USAGE: { exit: EXIT.usage, hint: 'Run `agentdevel --help` for the commands and their options.' },
  CONFIG_MISSING: {
    exit: EXIT.usage,
    hint: 'Run agentdevel in a workspace (a git repository with agentdevel.config.json), or pass -C DIR.',
  },
  CONFIG_INVALID: {
    exit: EXIT.usage,
    hint: 'Fix the key named above; agentdevel.config.schema.json describes every key.',
  },
  CASES_INVALID: {
    exit: EXIT.usage,
    hint: 'Each line of a split is one JSON object with a unique string "id".',
  },
  TASK_INVALID: { exit: EXIT.usage, hint: 'Fix the task folder named above (rubrics/<task>/).' },
  BLUEPRINT_INVALID: { exit: EXIT.usage, hint: 'Fix the blueprint folder named above (blueprints/<name>/).' },
  NOT_A_REPOSITORY: {
    exit: EXIT.usage,
    hint: 'agentdevel keeps releases in git: run `git init` and commit the workspace first.',
  },
  DIRTY_TREE: {
    exit: EXIT.usage,
    hint: 'Commit or stash your changes (git stash -u), then run the command again.',
  },
  REF_NOT_FOUND: { exit: EXIT.usage, hint: 'Pass a branch, tag or commit that exists in this repository.' },
  CANDIDATE_NOT_ON_RELEASE: {
    exit: EXIT.usage,
    hint: 'Rebase the candidate onto the current release of the line, then gate it again.',
  },
  CANDIDATE_BEHIND: {
    exit: EXIT.usage,
    hint: 'Rebase the branch onto the current release (git rebase <line branch>) and gate it again, or pass --allow-behind to gate it as it is.',
  },
  PENDING_NOT_GATED: {
    exit: EXIT.usage,
    hint: 'The pending ref no longer points at what the gate accepted: decline it and gate the change again.',
  },
  PENDING_UNVERIFIED: {
    exit: EXIT.usage,
    hint: 'Nothing on this machine records that the gate wrote this pending release: gate the candidate here, or review the pending commit and pass --trust-pending with its full id.',
  },
  HISTORY_SHALLOW: {
    exit: EXIT.usage,
    hint: 'Fetch the whole history first (git fetch --unshallow; in CI, check out with fetch-depth: 0), then run the command again.',
  },
  DEMO_DIR_NOT_EMPTY: { exit: EXIT.usage, hint: 'Pass a new or empty folder to --dir.' },
  RECORDS_EDITED: {
    exit: EXIT.usage,
    hint: 'agentdevel writes releases/<bp>/ and diagnostics/<bp>/ with its decisions, and a gate trusts what the line holds there: leave them out of the change (git checkout <line branch> -- releases diagnostics), then gate it again.',
  },
  TEST_SPLIT_SEALED: {
    exit: EXIT.usage,
    hint: 'The test split is evaluated once per release; its earlier result is shown by `agentdevel log`.',
  },
  WORKSPACE_LOCKED: {
    exit: EXIT.infra,
    hint: 'Another agentdevel command holds this workspace; wait for it, or pass --wait SECONDS.',
  },
  MODEL_UNAVAILABLE: {
    exit: EXIT.infra,
    hint: 'The model API could not be reached after retries; check ANTHROPIC_BASE_URL, the key and the status page, then re-run.',
  },
  MODEL_OUTPUT_INVALID: {
    exit: EXIT.infra,
    hint: "The model API answered, but not in the form asked, even after a repair turn. Read the rule and the answer above; use a stronger model for that role, or check that a proxy passes the tool schema through unchanged.",
  },
  BUDGET_REACHED: {
    exit: EXIT.infra,
    hint: 'Everything spent is kept (records, the cost ledger): run the command again with a larger --budget (or `budget` in agentdevel.config.json) and it resumes from there. `--estimate` projects what the work needs.',
  },
  GATE_UNDECIDED: {
    exit: EXIT.infra,
    hint: 'Too many cases have no verdict (infrastructure errors: the model API, a crashing scorer, a tool host); `agentdevel run` shows them. Fix the cause and gate again.',
  },
  HISTORY_INVALID: {
    exit: EXIT.usage,
    hint: 'A decision recorded in git under refs/agentdevel/ cannot be read; the message names the ref and file.',
  },
  INFRA: { exit: EXIT.infra, hint: 'An infrastructure step failed; the message says which. Re-run when it is fixed.' },
  GIT_FAILED: { exit: EXIT.infra, hint: 'A git command failed; the message has git\'s own words.' },
  REPLAY_MISS: {
    exit: EXIT.infra,
    hint: 'Replay needs the same workspace, commit and config as the recording; record again with --record DIR.',
  },
  STORE_DAMAGED: {
    exit: EXIT.usage,
    hint: 'The store only indexes what git holds: move .agentdevel/state.db aside (mv .agentdevel/state.db .agentdevel/state.db.bad) and run the command again.',
  },
  STORE_TOO_NEW: {
    exit: EXIT.usage,
    hint: 'Use the agentdevel that wrote it (upgrade this one), or move .agentdevel/state.db aside to start a new index; history stays in git.',
  },
  FILE_SYSTEM: {
    exit: EXIT.infra,
    hint: 'Free space or fix the permissions or the file named above, then run the command again; nothing half-written is kept.',
  },
  PROMOTION_UNFINISHED: {
    exit: EXIT.usage,
    hint: 'Do what the message says, then run any agentdevel command: it finishes the promotion.',
  },
  API_KEY_REJECTED: {
    exit: EXIT.usage,
    hint: 'Check the key the message names: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL for a Claude role, OPENAI_API_KEY and OPENAI_BASE_URL (or the variables the role names) for an openai role: is it current, for this organisation, and does that server expect it?',
  },
  QUEUE_UNAVAILABLE: {
    exit: EXIT.infra,
    hint: 'Check that Redis runs and is reachable at the --queue URL (redis-cli -u URL ping), then run the command again: results already collected are not run twice.',
  },
  QUEUE_KEY_MISMATCH: {
    exit: EXIT.usage,
    hint: 'Give this command and every worker the same AGENTDEVEL_QUEUE_KEY (it is never sent to Redis), restart the workers that hold another one, then run the command again.',
  },
  QUEUE_NO_WORKERS: {
    exit: EXIT.infra,
    hint: 'Start workers on the same queue (`agentdevel worker --queue URL`), then run the command again.',
  },
  QUEUE_BUNDLE_TOO_LARGE: {
    exit: EXIT.usage,
    hint: 'The blueprint and task folders travel to workers as one git bundle in Redis: move large files out of them (data the environment needs can live on the workers).',
  },
  UNCONTAINED_SECRETS: {
    exit: EXIT.infra,
    hint: 'This machine allows no PID and mount namespace (util-linux unshare), so an untrusted process could read agentdevel\'s environment in /proc: run where namespaces are allowed (as root, or with unprivileged user namespaces enabled), or unset the variables named above.',
  },
  API_KEY_MISSING: {
    exit: EXIT.usage,
    hint: 'Export the variable the message names (ANTHROPIC_API_KEY for a Claude role, OPENAI_API_KEY or the role\'s apiKeyEnv for an openai role), or set the role to "mock" in agentdevel.config.json.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof catalogue;

export interface ErrorLocation {
  readonly file?: string;
  readonly line?: number;
  readonly key?: string;
}

export class AgentdevelError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string;
  readonly location: ErrorLocation;

  constructor(code: ErrorCode, message: string, options: { hint?: string; cause?: unknown; location?: ErrorLocation } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentdevelError';
    this.code = code;
    this.exitCode = catalogue[code].exit;
    this.hint = options.hint ?? catalogue[code].hint;
    this.location = options.location ?? {};
  }
}

export function isAgentdevelError(error: unknown): error is AgentdevelError {
  return error instanceof AgentdevelError;
}

/** Every code with its exit code and next step, in the catalogue's order (docs/reference/errors.md is generated from it). */
export function catalogueEntries(): ReadonlyArray<{ readonly code: ErrorCode; readonly exit: ExitCode; readonly hint: string }> {
  return (Object.entries(catalogue) as Array<[ErrorCode, CatalogueEntry]>).map(([code, entry]) => ({ code, exit: entry.exit, hint: entry.hint }));
}

/** The catalogue's next step for a code (for a message that adds to it). */
export function catalogueHint(code: ErrorCode): string {
  return catalogue[code].hint;
}
