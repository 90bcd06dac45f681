import type { Config } from '../../config/schema.ts';
import type { HistoryReader, RefReader } from '../../domain/ports/repository.ts';
import { SCRATCH_BRANCH_PREFIX } from '../../domain/ablation.ts';

export interface Release {
  readonly commit: string;
  /** The highest released version number (0 before the first promotion). */
  readonly version: number;
  /** A human label: the tag at the tip, or the line and a short commit. */
  readonly label: string;
}

export function tagName(config: Config, version: number): string {
  return `${config.line.tagPrefix}${config.blueprint}/v${version}`;
}

/** A scratch line keeps its audit and pending refs apart (refs/agentdevel/scratch/NAME/…), so it numbers its own iterations. */
function refNamespace(config: Config): string {
  const { branch } = config.line;
  return branch.startsWith(SCRATCH_BRANCH_PREFIX) ? `refs/agentdevel/scratch/${branch.slice(SCRATCH_BRANCH_PREFIX.length)}/` : 'refs/agentdevel/';
}

export function auditRefPrefix(config: Config): string {
  return `${refNamespace(config)}rc/${config.blueprint}/`;
}

export function auditRef(config: Config, iteration: number): string {
  return `${auditRefPrefix(config)}iter-${String(iteration).padStart(3, '0')}`;
}

/**
 * The name a decision records for its RC (`candidate.ref`, the first column of `log`): the audit
 * ref's name without "refs/", so plain git resolves it (as refs/<name>) to the RC on its own line,
 * a scratch line's included (agentdevel/scratch/NAME/rc/<bp>/iter-NNN).
 */
export function candidateRef(config: Config, iteration: number): string {
  return auditRef(config, iteration).slice('refs/'.length);
}

/** Where an iteration's gradient records live (gradient.json), written whatever the iteration then does. */
export function gradientRef(config: Config, iteration: number): string {
  return `${refNamespace(config)}gradient/${config.blueprint}/iter-${String(iteration).padStart(3, '0')}`;
}

/** Where `discover` keeps its archive and bandit state (one commit per round). */
export function discoverRef(config: Config): string {
  return `${refNamespace(config)}discover/${config.blueprint}`;
}

/** Where an accepted RC waits for a person's approval (the approval layer). */
export function pendingRef(config: Config, iteration: number): string {
  return `${pendingRefPrefix(config)}iter-${String(iteration).padStart(3, '0')}`;
}

export function pendingRefPrefix(config: Config): string {
  return `${refNamespace(config)}pending/${config.blueprint}/`;
}

export function iterationOf(ref: string): number | null {
  const match = /iter-(\d+)$/.exec(ref);
  return match?.[1] ? Number(match[1]) : null;
}

export async function currentRelease(repo: RefReader, config: Config, tip: string): Promise<Release> {
  const prefix = `refs/tags/${config.line.tagPrefix}${config.blueprint}/v`;
  let version = 0;
  let label: string | null = null;
  for (const { ref } of await repo.refs(`refs/tags/${config.line.tagPrefix}${config.blueprint}/`)) {
    if (!ref.startsWith(prefix)) continue;
    const n = Number(ref.slice(prefix.length));
    if (!Number.isInteger(n)) continue;
    if (n > version) version = n;
    if ((await repo.resolve(ref)) === tip) label = ref.slice('refs/tags/'.length);
  }
  return { commit: tip, version, label: label ?? `${config.line.branch}@${tip.slice(0, 10)}${version === 0 ? ' (initial)' : ''}` };
}

/**
 * Iterations are numbered from the audit refs in git, so numbering survives losing the database,
 * and past every iteration the line's tip holds a folder of: a clone has the line but not the
 * audit refs (until `sync`), and a number used again would write over that iteration's files.
 */
export async function nextIteration(repo: RefReader & Pick<HistoryReader, 'filesUnder'>, config: Config): Promise<number> {
  const numbers = (await repo.refs(auditRefPrefix(config))).map((r) => iterationOf(r.ref) ?? 0);
  const tip = await repo.resolve(`refs/heads/${config.line.branch}`);
  const folder = `diagnostics/${config.blueprint}/`;
  for (const file of tip ? await repo.filesUnder(tip, folder) : []) {
    const match = /^iter-(\d+)\//.exec(file.path.slice(folder.length));
    if (match?.[1]) numbers.push(Number(match[1]));
  }
  return Math.max(0, ...numbers) + 1;
}
