// A team of archive members as a crew blueprint: the manifest a round runs, and the edits of the
// proposal RC (its blueprint.json, the prompts of members new to the blueprint, the customised
// orchestrator prompt). Pure: the pipeline writes what these return.
import { CONTEXT_VIEW, REQUEST_VIEW, type CrewManifest, type CrewMember } from '../../domain/blueprint-manifest.ts';
import type { ArchivedMember } from '../../domain/discover.ts';
import type { FileEdit } from '../../domain/release-candidate.ts';

export interface TeamBlueprint {
  readonly manifest: CrewManifest;
  /** Prompt files to write, relative to the blueprint folder (members whose prompt the release does not have as it is). */
  readonly prompts: ReadonlyArray<{ readonly file: string; readonly content: string }>;
}

/**
 * The release's crew with exactly these members, in this order (the orchestrator lists them so).
 * A member keeps the release's prompt file when the release has it with the same text; otherwise
 * its prompt goes to members/<name>.hbs (or a free name beside it). `sees` forgets members that
 * are not on the team (one left with nothing to see gets the context).
 */
export function teamBlueprint(release: CrewManifest, releaseFiles: ReadonlyMap<string, string>, team: readonly ArchivedMember[]): TeamBlueprint {
  const names = team.map((m) => m.name);
  const prompts: Array<{ file: string; content: string }> = [];
  const taken = new Set(releaseFiles.keys());
  const members: CrewMember[] = team.map((member) => {
    const inRelease = release.members.find((m) => m.name === member.name);
    let file = inRelease && releaseFiles.get(inRelease.prompt) === member.prompt ? inRelease.prompt : null;
    if (file === null) {
      file = freeName(`members/${member.name}`, taken, inRelease?.prompt ?? null);
      taken.add(file);
      prompts.push({ file, content: member.prompt });
    }
    const sees = member.sees.filter((view) => view === CONTEXT_VIEW || view === REQUEST_VIEW || (names.includes(view) && view !== member.name));
    return {
      name: member.name,
      description: member.description,
      prompt: file,
      tools: [...member.tools],
      sees: sees.length > 0 ? sees : [CONTEXT_VIEW],
      maxSteps: member.maxSteps,
      maxCalls: member.maxCalls,
    };
  });
  return { manifest: { ...release, members }, prompts };
}

/** `${stem}.hbs`, or the member's own release prompt file, or `${stem}-2.hbs`, … : never another file of the blueprint. */
function freeName(stem: string, taken: ReadonlySet<string>, own: string | null): string {
  if (own !== null && own === `${stem}.hbs`) return own;
  if (!taken.has(`${stem}.hbs`)) return `${stem}.hbs`;
  for (let n = 2; ; n += 1) if (!taken.has(`${stem}-${n}.hbs`)) return `${stem}-${n}.hbs`;
}

/**
 * The proposal's edits, paths relative to the workspace: the team's blueprint.json, the prompts
 * it adds, the orchestrator prompt written for the team, and the removal of prompt files only
 * the dropped members used (the archive in git keeps them).
 */
export function proposalEdits(input: {
  readonly root: string;
  readonly release: CrewManifest;
  readonly releaseFiles: ReadonlyMap<string, string>;
  readonly team: readonly ArchivedMember[];
  readonly orchestratorPrompt: string;
}): FileEdit[] {
  const { manifest, prompts } = teamBlueprint(input.release, input.releaseFiles, input.team);
  const kept = new Set([manifest.orchestrator.prompt, ...manifest.members.map((m) => m.prompt)]);
  const dropped = input.release.members.filter((m) => !manifest.members.some((t) => t.name === m.name) && !kept.has(m.prompt));
  const edits: FileEdit[] = [
    { path: `${input.root}/blueprint.json`, content: `${JSON.stringify(manifest, null, 2)}\n` },
    ...prompts.map((p): FileEdit => ({ path: `${input.root}/${p.file}`, content: p.content })),
    ...[...new Set(dropped.map((m) => m.prompt))].map((file): FileEdit => ({ path: `${input.root}/${file}`, content: null })),
  ];
  if (input.releaseFiles.get(manifest.orchestrator.prompt) !== input.orchestratorPrompt) {
    edits.push({ path: `${input.root}/${manifest.orchestrator.prompt}`, content: input.orchestratorPrompt });
  }
  return edits;
}
