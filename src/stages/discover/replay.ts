// The bandit's state rebuilt from what git holds of it: the archive members and the round
// documents. Replaying the rounds in order recomputes every choice from the recorded evidence
// and the seed (the archive size and the draw of each CRP step, the UCB1 scores and the team),
// checks each against what the round recorded, and folds the evidence into the arms. Pure.
import { BANDIT_SCHEMA, type Arm, type ArchiveMember, type BanditState, type RoundDocument } from '../../domain/discover.ts';
import { crpDraw, newArm, rankByUcb, updateArms } from './bandit.ts';
import { seededDraw } from './draw.ts';

export interface Replay {
  readonly state: BanditState;
  /** Where a recorded round disagrees with what its evidence and seed imply (empty when none does). */
  readonly problems: readonly string[];
}

const asRecorded = (ucb: number): number | null => (Number.isFinite(ucb) ? ucb : null);

export function replayRounds(blueprint: string, members: ReadonlyArray<Pick<ArchiveMember, 'name' | 'order' | 'origin' | 'round'>>, rounds: readonly RoundDocument[]): Replay {
  const archive = [...members].sort((a, b) => a.order - b.order);
  const ordered = [...rounds].sort((a, b) => a.round - b.round);
  const first = ordered[0];
  if (!first) throw new Error('replayRounds: no round to replay');
  const problems: string[] = [];
  let arms: Arm[] = [];
  for (const round of ordered) {
    const t = round.round;
    const at = `round ${t}`;
    if (round.seed !== first.seed) problems.push(`${at}: seed ${round.seed}, round ${first.round} had ${first.seed}`);
    if (JSON.stringify(round.design) !== JSON.stringify(first.design)) problems.push(`${at}: a design split other than round ${first.round}'s`);
    const eligible = archive.filter((m) => m.round <= t);
    for (const member of eligible) if (!arms.some((a) => a.name === member.name)) arms = [...arms, newArm(member.name)];
    const written = eligible.filter((m) => m.origin === 'writer' && m.round === t);
    const before = eligible.length - written.length;
    if (round.crp.archiveSize !== before) problems.push(`${at}: the archive had ${before} members before the draw, the round says ${round.crp.archiveSize}`);
    const crp = crpDraw({ theta: round.theta, archiveSize: before, round: t }, seededDraw(round.seed));
    if (crp.probability !== round.crp.probability || crp.draw !== round.crp.draw || crp.grew !== round.crp.grew) {
      problems.push(`${at}: the seed draws ${crp.draw} against ${crp.probability} (grew: ${crp.grew}); the round says ${round.crp.draw} against ${round.crp.probability} (grew: ${round.crp.grew})`);
    }
    const added = written.map((m) => m.name);
    if (JSON.stringify(added) !== JSON.stringify(round.crp.added === null ? [] : [round.crp.added])) problems.push(`${at}: the archive's members written this round (${added.join(', ') || 'none'}) differ from the round's (${round.crp.added ?? 'none'})`);
    const eligibleArms = arms.filter((a) => eligible.some((m) => m.name === a.name));
    const scores = rankByUcb(eligibleArms, t).map((s) => ({ name: s.name, ucb: asRecorded(s.ucb) }));
    if (JSON.stringify(scores) !== JSON.stringify(round.scores)) problems.push(`${at}: UCB1 from the earlier rounds ranks ${scores.map((s) => s.name).join(', ')}; the round recorded ${round.scores.map((s) => s.name).join(', ')}`);
    const team = scores.slice(0, round.top).map((s) => s.name);
    if (JSON.stringify(team) !== JSON.stringify(round.team)) problems.push(`${at}: the top ${round.top} by UCB1 are ${team.join(', ')}; the round ran ${round.team.join(', ')}`);
    arms = updateArms(arms, round.team, round.evidence);
  }
  const last = ordered.at(-1) as RoundDocument;
  return {
    state: {
      schema: BANDIT_SCHEMA,
      blueprint,
      seed: first.seed,
      design: first.design,
      round: last.round,
      archive: archive.filter((m) => m.round <= last.round).map((m) => ({ name: m.name, origin: m.origin, round: m.round })),
      arms,
    },
    problems,
  };
}
