import { AgentdevelError } from '../../domain/errors.ts';
import { mergeAliases } from '../../domain/label-aliases.ts';
import { LABEL_PATTERN } from '../../domain/symptoms.ts';
import { readLabelAliases, writeLabelAliases } from '../../pipeline/workspace/label-aliases.ts';
import { lineTip } from '../../pipeline/workspace/workspace.ts';
import { nextIteration } from '../../pipeline/workspace/versions.ts';
import { openCommand } from '../open-command.ts';
import type { CommonOptions, Io } from '../io.ts';
import type { LabelsMergeOptions } from './labels.options.ts';

/** `agentdevel labels`: the vocabulary with its definitions and counts (failing case-trials and cases), and the aliases. Reads only. */
export async function labelsCommand(io: Io, options: CommonOptions): Promise<number> {
  const command = await openCommand(io, options, null);
  try {
    const { store, repo, config } = command.workspace;
    const counts = new Map(store.labelCounts().map((c) => [c.label, c]));
    const aliases = (await readLabelAliases(repo, config)).aliases;
    const rowOf = (entry: { label: string; description: string }, fromRefs: boolean) => ({
      label: entry.label,
      description: entry.description,
      caseTrials: counts.get(entry.label)?.caseTrials ?? 0,
      cases: counts.get(entry.label)?.cases ?? 0,
      aliases: aliases.filter((a) => store.canonicalLabel(a.from) === entry.label).map((a) => a.from),
      fromRefs,
    });
    // Labels read only from a ref under refs/agentdevel/ (an RC's, a pending one's) are listed, marked: the critic is not shown them.
    const rows = [...store.taxonomy().map((entry) => rowOf(entry, false)), ...store.labelsFromRefs().map((entry) => rowOf(entry, true))];
    if (command.output.json) {
      command.output.result({ labels: rows, aliases });
      return 0;
    }
    if (rows.length === 0) command.output.line('no symptom labels yet: the critic names them in the first run');
    for (const row of rows) {
      const shown = row.fromRefs ? '  (only on refs under refs/agentdevel/, not on the line: not shown to the critic)' : '';
      command.output.line(`${row.label.padEnd(36)} ${String(row.cases).padStart(4)} cases ${String(row.caseTrials).padStart(5)} failing case-trials${row.aliases.length ? `  (also: ${row.aliases.join(', ')})` : ''}${shown}`);
      command.output.line(`  definition: ${row.description}`);
    }
    return 0;
  } finally {
    await command.close();
  }
}

/** `agentdevel labels merge A B [--into NAME]`: records an alias in git; history keeps its labels. */
export async function labelsMergeCommand(io: Io, options: LabelsMergeOptions, labels: readonly string[]): Promise<number> {
  if (labels.length < 2 && !options.into) throw new AgentdevelError('USAGE', 'labels merge needs two labels (or one and --into NAME)');
  for (const label of [...labels, ...(options.into ? [options.into] : [])]) {
    if (!LABEL_PATTERN.test(label)) throw new AgentdevelError('USAGE', `labels merge: "${label}" is not a symptom label (snake_case, 2 to 64 characters)`);
  }
  const command = await openCommand(io, options, 'labels merge', 'at_first_call');
  try {
    const { store, repo, config } = command.workspace;
    const known = new Set([...store.recordedTaxonomy(), ...store.labelsFromRefs()].map((e) => e.label));
    const unknown = labels.filter((l) => !known.has(l));
    if (unknown.length > 0) throw new AgentdevelError('USAGE', `labels merge: ${unknown.map((l) => `"${l}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in the taxonomy (\`agentdevel labels\` lists it)`);
    const into = options.into ?? (labels[0] as string);
    const previous = await readLabelAliases(repo, config);
    const reason = options.reason ?? `merged by a person: ${labels.join(', ')} name one symptom`;
    // In effect from the next iteration on: one replayed from before it sees the taxonomy as it stood.
    const effective = { iteration: await nextIteration(repo, config), stage: 'start' as const };
    const added = mergeAliases(previous.aliases, labels, into, { by: 'person', reason, at: io.clock.now().toISOString(), effective });
    if (typeof added === 'string') throw new AgentdevelError('USAGE', `labels merge: ${added}`);
    if (added.length === 0) {
      command.output.line(`nothing to do: ${labels.join(', ')} already read as "${into}"`);
      return 0;
    }
    await writeLabelAliases(repo, config, added, await lineTip(command.workspace));
    if (command.output.json) command.output.result({ added });
    else for (const alias of added) command.output.line(`${alias.from} now reads as ${alias.to} (recorded on refs/agentdevel/labels/${config.blueprint}; earlier decisions keep their labels)`);
    return 0;
  } finally {
    await command.close();
  }
}
