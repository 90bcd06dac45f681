import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { linksLeaving } from '../../domain/blueprint-links.ts';
import type { ReleaseCandidate } from '../../domain/release-candidate.ts';
import type { Config } from '../../config/schema.ts';
import { scratchName } from '../workspace/scratch-line.ts';
import type { Workspace } from '../workspace/workspace.ts';

export interface BuiltCandidate {
  readonly branch: string;
  readonly dir: string;
  readonly commit: string;
}

/**
 * The RC's working branch while it is built and gated (deleted afterwards). A scratch line's RCs
 * get their own (agentdevel/rc/<bp>/scratch/NAME/iter-NNN), never the real line's name: the
 * decision records candidateRef, which resolves to the RC's audit ref on its own line.
 */
export function candidateBranch(config: Config, iteration: number): string {
  const scratch = scratchName(config);
  return `agentdevel/rc/${config.blueprint}/${scratch === null ? '' : `scratch/${scratch}/`}iter-${String(iteration).padStart(3, '0')}`;
}

export function candidateDir(workspace: Workspace, iteration: number): string {
  return path.join(workspace.stateDir, 'worktrees', `rc-iter-${String(iteration).padStart(3, '0')}`);
}

/**
 * Builds the RC on its own branch in its own worktree (the user's working tree is never
 * touched): applies the edits on top of the current release and commits them.
 */
export async function buildCandidate(
  workspace: Workspace,
  base: string,
  iteration: number,
  candidate: ReleaseCandidate,
): Promise<BuiltCandidate> {
  const branch = candidateBranch(workspace.config, iteration);
  const dir = candidateDir(workspace, iteration);
  await discardCandidate(workspace, { branch, dir });
  await workspace.repo.addWorktree(dir, base, branch);
  for (const edit of candidate.edits) {
    const file = path.join(dir, edit.path);
    if (edit.content === null) await rm(file, { force: true });
    else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, edit.content);
    }
  }
  const message = `rc(${workspace.config.blueprint}): ${candidate.intent.targets.join(', ')}\n\n${candidate.intent.rationale}\n`;
  const commit = await workspace.repo.commitPaths(dir, candidate.edits.map((e) => e.path), message);
  return { branch, dir, commit };
}

/**
 * Proves a built RC can run, as a run would load it (links, manifest, templates, tool wrappers,
 * the rendered prompt). What is wrong comes back as one line for the synthesizer's repair turn;
 * anything else (git, the disk, a bug) is not the RC's doing and propagates.
 */
export async function checkCandidateLoads(workspace: Workspace, built: BuiltCandidate): Promise<string | null> {
  const { config } = workspace;
  const buildDir = path.join(workspace.stateDir, 'build', `check-${path.basename(built.dir)}`);
  return workspace.files.blueprints.loadProblem(built.dir, config.blueprint, { callTimeoutMs: config.sandbox.timeoutMs, memoryMb: config.sandbox.memoryMb }, buildDir);
}

/**
 * Symbolic links in a commit's blueprint folder that lead out of it ("path -> target"). Each
 * rejects the RC before it runs: a link must not pull the task (say, the test split) in.
 */
export async function linksLeavingBlueprint(workspace: Workspace, commit: string): Promise<string[]> {
  const folder = `blueprints/${workspace.config.blueprint}`;
  const links = await workspace.repo.symlinks(commit, folder);
  return linksLeaving(links, folder).map((link) => `${link.path} -> ${link.target}`);
}

export async function discardCandidate(workspace: Workspace, built: Pick<BuiltCandidate, 'branch' | 'dir'>): Promise<void> {
  await workspace.repo.removeWorktree(built.dir);
  await rm(built.dir, { recursive: true, force: true });
  await workspace.repo.deleteBranch(built.branch);
}
