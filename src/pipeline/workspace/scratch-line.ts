import type { Config } from '../../config/schema.ts';
import { SCRATCH_BRANCH_PREFIX, SCRATCH_NAME_PATTERN } from '../../domain/ablation.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { Workspace } from './workspace.ts';

/**
 * A scratch line: its own branch (agentdevel/scratch/NAME), tags (scratch/NAME/…) and audit refs
 * (refs/agentdevel/scratch/NAME/…), started from the real line's tip. Experiments (ablations)
 * promote there; nothing they do can move the real line, its tags or its iteration numbers.
 */
export function scratchConfig(config: Config, name: string): Config {
  if (!SCRATCH_NAME_PATTERN.test(name)) {
    throw new AgentdevelError('USAGE', `--line: "${name}" is not a scratch line name (letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit; no "..", and not ending in "." or ".lock")`);
  }
  return { ...config, line: { branch: `${SCRATCH_BRANCH_PREFIX}${name}`, tagPrefix: `scratch/${name}/${config.line.tagPrefix}` } };
}

/** The scratch line's name, or null on the real line. */
export function scratchName(config: Config): string | null {
  return config.line.branch.startsWith(SCRATCH_BRANCH_PREFIX) ? config.line.branch.slice(SCRATCH_BRANCH_PREFIX.length) : null;
}

/** Creates the scratch line's branch at the real line's tip when it does not exist yet. */
export async function ensureScratchBranch(workspace: Workspace, realBranch: string): Promise<void> {
  const { repo, config } = workspace;
  const ref = `refs/heads/${config.line.branch}`;
  if (await repo.resolve(ref)) return;
  const start = await repo.resolve(`refs/heads/${realBranch}`);
  if (!start) throw new AgentdevelError('CONFIG_INVALID', `line.branch: the branch "${realBranch}" does not exist in ${workspace.root}`);
  await repo.updateRefs([{ ref, newValue: start, oldValue: null }]);
}
