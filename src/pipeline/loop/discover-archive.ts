// discover's documents in git (domain/discover.ts describes them): the release's crew read from
// the line, and the archive, the rounds and the bandit state read from and written to
// refs/agentdevel/discover/<blueprint>, one commit per round. Reading needs git alone.
import { blueprintManifestSchema, type CrewManifest } from '../../domain/blueprint-manifest.ts';
import {
  BANDIT_FILE,
  memberFiles,
  parseArchiveMember,
  parseBanditState,
  parseRoundDocument,
  roundFile,
  ARCHIVE_MEMBER_SCHEMA,
  type ArchivedMember,
  type BanditState,
  type RoundDocument,
} from '../../domain/discover.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import type { BlueprintFile } from '../../domain/ports/model.ts';
import { replayRounds } from '../../stages/discover/replay.ts';
import { writtenProperty } from './credit.ts';
import { discoverRef } from '../workspace/versions.ts';
import type { Workspace } from '../workspace/workspace.ts';

/** The release's crew as git has it at a commit: its manifest, every file of its folder, its tool wrappers. */
export interface ReleaseCrew {
  readonly root: string;
  readonly manifest: CrewManifest;
  /** Paths relative to the blueprint folder → contents. */
  readonly files: ReadonlyMap<string, string>;
  readonly tools: ReadonlyArray<{ readonly file: string; readonly name: string; readonly description: string }>;
}

export async function readReleaseCrew(workspace: Workspace, commit: string): Promise<ReleaseCrew> {
  const { repo, config } = workspace;
  const root = `blueprints/${config.blueprint}`;
  const listed = await repo.filesUnder(commit, root);
  const texts = await repo.readTextFilesAt(listed.map((f) => ({ commit, path: f.path })));
  const files = new Map(listed.map((f, i) => [f.path.slice(root.length + 1), texts[i] ?? '']));
  const manifestText = files.get('blueprint.json');
  if (manifestText === undefined) throw new AgentdevelError('BLUEPRINT_INVALID', `${root}/blueprint.json: missing at ${commit.slice(0, 10)}`);
  const manifest = parseJsonDocument(manifestText, `${root}/blueprint.json`, blueprintManifestSchema, 'BLUEPRINT_INVALID');
  if (manifest.runtime !== 'crew') {
    throw new AgentdevelError('USAGE', `discover finds crew members, but ${root}/blueprint.json declares the "${manifest.runtime}" runtime`, {
      hint: 'discover needs a blueprint with "runtime": "crew" (see `agentdevel demo --example orders-crew`).',
    });
  }
  // A tool wrapper writes out its name; helper modules beside the wrappers do not, and are no tools.
  const tools = [...files]
    .filter(([file]) => file.startsWith('tools/') && /\.(ts|mts|js|mjs)$/.test(file))
    .flatMap(([file, source]) => {
      const name = writtenProperty(source, 'name');
      return name ? [{ file, name, description: writtenProperty(source, 'description') ?? '' }] : [];
    });
  return { root, manifest, files, tools };
}

export const blueprintFilesOf = (crew: ReleaseCrew): BlueprintFile[] => [...crew.files].map(([file, content]) => ({ path: `${crew.root}/${file}`, content }));

/** Everything discover has recorded: the state of the last round, the archive and every round. Null before the first round. */
export interface Discovered {
  readonly ref: string;
  readonly commit: string;
  readonly state: BanditState;
  readonly members: readonly ArchivedMember[];
  readonly rounds: readonly RoundDocument[];
}

export async function readDiscovered(workspace: Workspace): Promise<Discovered | null> {
  const { repo, config } = workspace;
  const ref = discoverRef(config);
  const commit = await repo.refValue(ref);
  if (commit === null) return null;
  const at = (file: string) => `${ref}:${file}`;
  const stateText = await repo.readFileAt(commit, BANDIT_FILE);
  if (stateText === null) throw new AgentdevelError('HISTORY_INVALID', `${at(BANDIT_FILE)}: missing`, { location: { file: at(BANDIT_FILE) } });
  const state = parseBanditState(stateText, at(BANDIT_FILE));
  const listed = (await repo.filesUnder(commit, '.')).map((f) => f.path);
  const texts = new Map(listed.map((file, i) => [file, i]));
  const contents = await repo.readTextFilesAt(listed.map((file) => ({ commit, path: file })));
  const read = (file: string): string | null => {
    const index = texts.get(file);
    return index === undefined ? null : (contents[index] ?? null);
  };
  const members = listed
    .filter((file) => /^archive\/[^/]+\/member\.json$/.test(file))
    .map((file) => {
      const definition = parseArchiveMember(read(file) as string, at(file));
      const promptFile = memberFiles(definition.name).prompt;
      const prompt = read(promptFile);
      if (prompt === null) throw new AgentdevelError('HISTORY_INVALID', `${at(promptFile)}: missing beside ${file}`, { location: { file: at(promptFile) } });
      return { ...definition, prompt };
    })
    .sort((a, b) => a.order - b.order);
  const rounds = listed
    .filter((file) => /^rounds\/round-\d+\.json$/.test(file))
    .map((file) => parseRoundDocument(read(file) as string, at(file)))
    .sort((a, b) => a.round - b.round);
  return { ref, commit, state, members, rounds };
}

/** One round's commit on the discover ref: the whole archive, every round so far, the state after it. */
export async function writeRound(
  workspace: Workspace,
  input: { readonly parent: string; readonly expected: string | null; readonly state: BanditState; readonly members: readonly ArchivedMember[]; readonly rounds: readonly RoundDocument[]; readonly message: string },
): Promise<string> {
  const { repo, config } = workspace;
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files = [
    { name: BANDIT_FILE, content: json(input.state) },
    ...input.rounds.map((round) => ({ name: roundFile(round.round), content: json(round) })),
    ...input.members.flatMap(({ prompt, ...definition }) => {
      const where = memberFiles(definition.name);
      return [
        { name: where.definition, content: json({ ...definition, schema: ARCHIVE_MEMBER_SCHEMA }) },
        { name: where.prompt, content: prompt },
      ];
    }),
  ];
  const commit = await repo.documentCommit(input.parent, files, input.message);
  const ref = discoverRef(config);
  // Moved from what this session read: another discover that moved it meanwhile makes this fail, not overwrite.
  await repo.updateRefs([{ ref, newValue: commit, oldValue: input.expected }]);
  return commit;
}

/** The bandit's state as written (bandit.json) beside the one rebuilt from the archive and the round documents alone. */
export interface RebuiltState {
  readonly ref: string;
  readonly written: BanditState;
  readonly rebuilt: BanditState;
  readonly problems: readonly string[];
  readonly equal: boolean;
  readonly rounds: readonly RoundDocument[];
  readonly members: readonly ArchivedMember[];
}

export async function rebuildFromGit(workspace: Workspace): Promise<RebuiltState | null> {
  const recorded = await readDiscovered(workspace);
  if (!recorded) return null;
  const replay = replayRounds(workspace.config.blueprint, recorded.members, recorded.rounds);
  const equal = replay.problems.length === 0 && JSON.stringify(replay.state) === JSON.stringify(recorded.state);
  return { ref: recorded.ref, written: recorded.state, rebuilt: replay.state, problems: replay.problems, equal, rounds: recorded.rounds, members: recorded.members };
}
