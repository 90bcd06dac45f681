import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BLUEPRINT_FILE, blueprintRoot, shownPath } from '../../domain/blueprint-paths.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { ablationRows, withoutMembers, type AblationRow } from '../../stages/ablate/ablation.ts';
import { runVersion } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { currentRelease } from '../workspace/versions.ts';
import { lineTip } from '../workspace/workspace.ts';

export interface AblationOutcome {
  readonly release: string;
  readonly rows: readonly AblationRow[];
  readonly simulated: boolean;
}

/**
 * Runs the current release on the train split as it is and once per setting with the named
 * members removed (CodeCrew's ablation by role). The settings are written only into a temporary
 * checkout: nothing is committed, tagged or promoted.
 */
export async function ablate(context: PipelineContext, settings: ReadonlyArray<readonly string[]>): Promise<AblationOutcome> {
  const { workspace } = context;
  const { config, repo } = workspace;
  const tip = await lineTip(workspace);
  const release = await currentRelease(repo, config, tip);
  return withCheckout(workspace, tip, async (source) => {
    const root = blueprintRoot(source.dir, config.blueprint);
    const manifestFile = path.join(root, BLUEPRINT_FILE);
    const shown = shownPath(source.dir, manifestFile);
    const manifest = await workspace.files.blueprints.readManifest(source.dir, config.blueprint);
    if (manifest.runtime !== 'crew') throw new AgentdevelError('USAGE', `ablate removes crew members, but ${shown} declares the "${manifest.runtime}" runtime`);
    const planned = settings.map((without) => ({ without, manifest: withoutMembers(manifest, without, shown) }));
    const request = { split: 'train' as const, trials: config.trials, purpose: 'run' as const };
    const full = await runVersion(context, { ...request, source, label: `${release.label} (full crew)` });
    const original = await readFile(manifestFile, 'utf8');
    const runs = [];
    try {
      for (const setting of planned) {
        await writeFile(manifestFile, `${JSON.stringify(setting.manifest, null, 2)}\n`);
        const label = `${release.label} without ${setting.without.join(', ')}`;
        const run = await runVersion(context, { ...request, source: { commit: `${tip}+without-${setting.without.join('-')}`, dir: source.dir }, label });
        runs.push({ without: setting.without, runId: run.runId, counts: run.counts, cases: run.cases, simulated: run.simulated });
      }
    } finally {
      await writeFile(manifestFile, original);
    }
    return { release: release.label, rows: ablationRows(full, runs), simulated: full.simulated || runs.some((r) => r.simulated) };
  });
}
