import type { CrewManifest } from '../../domain/blueprint-manifest.ts';
import { passRateOf, type RunCounts } from '../../domain/case-summary.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { computeFlips, type CaseSummary } from '../gate/flips.ts';

/**
 * The crew without the named members (CodeCrew's ablation by role): they leave the team, and
 * the others' `sees` lists forget them (a member left with nothing to see gets the context).
 */
export function withoutMembers(manifest: CrewManifest, removed: readonly string[], file: string): CrewManifest {
  const names = manifest.members.map((m) => m.name);
  const unknown = removed.find((name) => !names.includes(name));
  if (unknown) throw new AgentdevelError('USAGE', `--without: "${unknown}" is not a member of the crew in ${file} (${names.join(', ')})`);
  const members = manifest.members
    .filter((m) => !removed.includes(m.name))
    .map((m) => {
      const sees = m.sees.filter((view) => !removed.includes(view));
      return { ...m, sees: sees.length > 0 ? sees : ['context'] };
    });
  if (members.length === 0) throw new AgentdevelError('USAGE', `--without: removing ${removed.join(', ')} leaves the crew in ${file} with no member`);
  return { ...manifest, members };
}

export interface AblationRow {
  /** "full crew", or "without a, b". */
  readonly setting: string;
  readonly without: readonly string[];
  readonly runId: string;
  readonly passRate: number;
  /** Percentage points against the full crew (0 for the full crew itself). */
  readonly change: number;
  /** Cases that passed with the full crew and fail without (P→F), and the reverse (F→P). */
  readonly p2f: readonly string[];
  readonly f2p: readonly string[];
}

/** One row per setting, the full crew first: CodeCrew's table (setting, pass rate, change). */
export function ablationRows(
  full: { readonly runId: string; readonly counts: RunCounts; readonly cases: ReadonlyMap<string, CaseSummary> },
  settings: ReadonlyArray<{ readonly without: readonly string[]; readonly runId: string; readonly counts: RunCounts; readonly cases: ReadonlyMap<string, CaseSummary> }>,
): AblationRow[] {
  const fullRate = passRateOf(full.counts);
  return [
    { setting: 'full crew', without: [], runId: full.runId, passRate: fullRate, change: 0, p2f: [], f2p: [] },
    ...settings.map((s) => {
      const flips = computeFlips(full.cases, s.cases);
      const passRate = passRateOf(s.counts);
      return { setting: `without ${s.without.join(', ')}`, without: s.without, runId: s.runId, passRate, change: (passRate - fullRate) * 100, p2f: flips.p2f, f2p: flips.f2p };
    }),
  ];
}
