import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseJson } from '../../domain/json.ts';
import type { Reporter } from '../../domain/ports/reporter.ts';
import { TEST_SEAL_FILE, testSealSchema, type TestSeal } from '../../domain/test-seal.ts';
import type { HistoryReader, HistoryWriter, RefReader, Remotes } from '../../domain/ports/repository.ts';

/** How long `evaluate-test` waits for each remote when it looks for seals recorded elsewhere. */
const FETCH_TIMEOUT_MS = 30_000;

export function sealRefPrefix(config: Config): string {
  return `refs/agentdevel/test/${config.blueprint}/`;
}

/** The ref that seals the test split for one release commit. */
export function sealRef(config: Config, commit: string): string {
  return `${sealRefPrefix(config)}${commit}`;
}

/**
 * The recorded test evaluation of a release commit, or null when it has none. A seal that is
 * there but unreadable is an error: the test split must not be opened again because of it.
 */
export async function readSeal(repo: RefReader & HistoryReader & HistoryWriter & Remotes, config: Config, commit: string): Promise<TestSeal | null> {
  const ref = sealRef(config, commit);
  if ((await repo.refValue(ref)) === null) return null;
  const seal = sealOf(await repo.readFileAt(ref, TEST_SEAL_FILE));
  if (seal === null) {
    throw new AgentdevelError('TEST_SPLIT_SEALED', `${ref} seals the test split of ${commit.slice(0, 10)}, but its record cannot be read`, {
      hint: `The test split of this release stays sealed. Inspect the record with: git show ${ref}`,
    });
  }
  return seal;
}

/** The seal a record holds, or null when the record is absent or unreadable. */
export function sealOf(text: string | null): TestSeal | null {
  const parsed = text === null ? null : parseJson(text);
  const seal = parsed?.ok ? testSealSchema.safeParse(parsed.value) : null;
  return seal?.success ? seal.data : null;
}

/**
 * Records a test evaluation in git: a commit holding the result, on top of the release commit,
 * at the seal's ref. The ref is created only if absent, so two evaluations cannot both seal.
 */
export async function writeSeal(repo: RefReader & HistoryReader & HistoryWriter & Remotes, config: Config, seal: TestSeal): Promise<void> {
  const message = `test evaluation of ${seal.release}: ${(seal.passRate * 100).toFixed(1)}% (${seal.runId})\n`;
  const commit = await repo.documentCommit(seal.commit, [{ name: TEST_SEAL_FILE, content: `${JSON.stringify(seal, null, 2)}\n` }], message);
  await repo.updateRefs([{ ref: sealRef(config, seal.commit), newValue: commit, oldValue: null }]);
}

/**
 * Brings the seals recorded in the remotes' clones (pushed with refs/agentdevel/*) into this one,
 * so a fresh clone knows which releases were already evaluated. Each remote gets a bounded wait;
 * one that cannot be reached is reported and skipped.
 */
export async function fetchSeals(repo: RefReader & HistoryReader & HistoryWriter & Remotes, config: Config, reporter: Reporter): Promise<void> {
  const prefix = sealRefPrefix(config);
  for (const remote of await repo.remotes()) {
    const failure = await repo.fetchRefs(remote, `${prefix}*:${prefix}*`, FETCH_TIMEOUT_MS);
    if (failure !== null) reporter.emit({ type: 'warning', message: `could not look for earlier test evaluations on the remote "${remote}": ${failure}` });
  }
}
