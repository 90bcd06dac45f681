// `agentdevel discover`: sub-agent discovery as a bandit (BOAD, Algorithm 1) beside the line.
// Each round: with the Chinese restaurant process's probability the member writer adds a member
// to the archive (after its warm-up); the top K members by UCB1 run as the crew on the design
// split; the helpfulness judge credits each; the arms are updated and the round is committed to
// refs/agentdevel/discover/<bp>. At the end the best team by helpfulness, with an orchestrator
// prompt written for it, becomes an RC that goes through the normal gate (gate --promote's path).
import type { CrewMember } from '../../domain/blueprint-manifest.ts';
import { BANDIT_SCHEMA, type Arm, type ArchivedMember, type BanditState, type RoundDocument } from '../../domain/discover.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { draftProblems, type MemberDraft } from '../../domain/member-writer.ts';
import type { ArchivedMemberView, TaskBrief } from '../../domain/ports/model.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { bestTeam, bySuccessRate, crpDraw, newArm, rankByUcb, updateArms } from '../../stages/discover/bandit.ts';
import { budgetText } from '../../domain/budget.ts';
import { budgetStop, discoverCeiling, type Budget, type Ceiling } from '../../stages/discover/ceiling.ts';
import { sampleWithout, seededDraw, type Draw } from '../../stages/discover/draw.ts';
import { proposalEdits } from '../../stages/discover/team.ts';
import { gateCandidate, type GateOutcome } from '../gate/submitted-candidate.ts';
import { runVersion } from '../run/execute-run.ts';
import { withCheckout, type VersionSource } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { currentRelease, discoverRef, nextIteration } from '../workspace/versions.ts';
import { lineTip } from '../workspace/workspace.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate } from './candidate.ts';
import { blueprintFilesOf, readDiscovered, readReleaseCrew, writeRound, type ReleaseCrew } from './discover-archive.ts';
import { judgeTeam, runTeam, trajectoriesOf } from './discover-round.ts';
import { readTaskBrief } from './task-brief.ts';
import { chargedTo } from '../run/usage-scope.ts';

export type { Budget } from '../../stages/discover/ceiling.ts';

/** The seed of a first session that names none. */
export const DEFAULT_SEED = 1;

export interface DiscoverRequest {
  /** Rounds to play now (0: propose from what git already holds). */
  readonly rounds: number;
  /** K: members on the team each round. */
  readonly top: number;
  /** Members of the proposed team. */
  readonly team: number;
  readonly budget: Budget | null;
  /** Null: the recorded seed, or DEFAULT_SEED for a first session. */
  readonly seed: number | null;
}

export interface DiscoverOutcome {
  readonly ref: string;
  readonly seed: number;
  readonly ceiling: Ceiling & { readonly text: string };
  /** The rounds played now. */
  readonly rounds: readonly RoundDocument[];
  readonly state: BanditState;
  readonly stoppedEarly: string | null;
  readonly ranking: { readonly byHelpfulness: readonly string[]; readonly bySuccessRate: readonly string[] };
  /** Null when no proposal could pass the gate, so none was written or gated (see `withheld`). */
  readonly proposal: { readonly team: readonly string[]; readonly commit: string; readonly intent: ChangeIntent; readonly edits: readonly string[] } | null;
  readonly gate: GateOutcome | null;
  /** Why no proposal went to the gate; null when one did. */
  readonly withheld: string | null;
  readonly simulated: boolean;
}

/** The ledger's label of a round's model calls. */
export const roundActivity = (blueprint: string, round: number): string => `discover/${blueprint}/round-${String(round).padStart(3, '0')}`;

/** Everything a round reads and changes: the archive and its arms grow and move as rounds pass. */
interface Session {
  readonly context: PipelineContext;
  readonly crew: ReleaseCrew;
  readonly checkout: VersionSource;
  readonly task: TaskBrief;
  readonly draw: Draw;
  readonly seed: number;
  readonly design: BanditState['design'];
  readonly top: number;
  members: ArchivedMember[];
  arms: Arm[];
  rounds: RoundDocument[];
  /** The first round of this session: earlier rounds ran on the release of their own session, perhaps another. */
  readonly firstRound: number;
}

export async function discover(context: PipelineContext, request: DiscoverRequest): Promise<DiscoverOutcome> {
  const { workspace, reporter } = context;
  const { config, repo } = workspace;
  const tip = await lineTip(workspace);
  const release = await currentRelease(repo, config, tip);
  const crew = await readReleaseCrew(workspace, tip);
  const recorded = await readDiscovered(workspace);
  if (recorded && request.seed !== null && request.seed !== recorded.state.seed) {
    throw new AgentdevelError('USAGE', `--seed ${request.seed}: the archive on ${recorded.ref} was drawn with seed ${recorded.state.seed}; its rounds go on with it`, {
      hint: `Drop --seed (or pass --seed ${recorded.state.seed}); to start a new archive, delete the ref: git update-ref -d ${recorded.ref}`,
    });
  }
  if (!recorded && request.rounds === 0) throw new AgentdevelError('USAGE', '--rounds 0 proposes from the recorded rounds, and there are none yet', { hint: 'Pass --rounds 1 or more.' });
  const seed = request.seed ?? recorded?.state.seed ?? DEFAULT_SEED;
  const draw = seededDraw(seed);
  const firstRound = (recorded?.state.round ?? 0) + 1;
  refuseMissingTools(recorded?.members ?? [], crew, recorded?.ref ?? '');

  const played = await withCheckout(workspace, tip, async (checkout) => {
    // The release's own run of the train split: its case ids give the design split, and the gate reuses it.
    const releaseRun = await runVersion(context, { source: checkout, split: 'train', trials: config.trials, purpose: 'run', label: `${release.label} (the release, train split)` });
    const trainCases = [...releaseRun.cases.keys()];
    const design = recorded?.state.design ?? { cases: sampleWithout(trainCases, config.discover.designCases, draw, 'design'), trials: config.trials };
    const gone = design.cases.filter((id) => !trainCases.includes(id));
    if (gone.length > 0) {
      throw new AgentdevelError('USAGE', `the design split of ${recorded?.ref} names cases the train split no longer has: ${gone.join(', ')}`, {
        hint: `Start a new archive: git update-ref -d ${recorded?.ref ?? 'refs/agentdevel/discover/<blueprint>'}`,
      });
    }
    const session: Session = {
      context,
      crew,
      checkout,
      task: await readTaskBrief(workspace, checkout.dir),
      draw,
      seed,
      design,
      top: request.top,
      members: [...(recorded?.members ?? [])],
      arms: [...(recorded?.state.arms ?? [])],
      rounds: [...(recorded?.rounds ?? [])],
      firstRound,
    };
    // The release's members join the archive when it lacks them, pickable from this session's first round.
    for (const member of crew.manifest.members) {
      if (session.members.some((m) => m.name === member.name)) continue;
      session.members.push(fromRelease(member, crew, session.members.length, firstRound));
      session.arms.push(newArm(member.name));
    }
    const plan = { rounds: request.rounds, top: request.top, designCases: design.cases.length, trials: design.trials, warmupRounds: config.discover.warmup.rounds, warmupCases: config.discover.warmup.cases };
    const ceiling = discoverCeiling(plan);
    const text = ceilingText(request, plan, ceiling, { seed, firstRound, releaseCases: trainCases.length, reused: releaseRun.reused });
    reporter.emit({ type: 'stage', stage: 'discover', message: text });
    let expected = recorded?.commit ?? null;
    const now: RoundDocument[] = [];
    const spent = { caseTrials: 0, usd: 0, dearestRoundUsd: 0 };
    let stoppedEarly: string | null = null;
    for (let t = firstRound; t < firstRound + request.rounds; t += 1) {
      stoppedEarly = budgetStop(request.budget, spent, ceiling.perRound);
      if (stoppedEarly) break;
      const round = await chargedTo({ activity: roundActivity(config.blueprint, t) }, () => playRound(session, t, config.discover.theta));
      now.push(round);
      session.rounds.push(round);
      spent.caseTrials += round.cost.caseTrials;
      spent.usd += round.cost.ledger.costUsd;
      spent.dearestRoundUsd = Math.max(spent.dearestRoundUsd, round.cost.ledger.costUsd);
      expected = await writeRound(workspace, {
        parent: expected ?? tip,
        expected,
        state: stateOf(session, config.blueprint, t),
        members: session.members.filter((m) => m.round <= t),
        rounds: session.rounds,
        message: `discover round ${t}: team ${round.team.join(', ')}${round.crp.added ? `; the archive grew by ${round.crp.added}` : ''}\n`,
      });
      reporter.emit({ type: 'stage', stage: 'discover', message: roundLine(round, session.arms) });
    }
    const last = session.rounds.at(-1)?.round ?? 0;
    return {
      session,
      ceiling: { ...ceiling, text },
      rounds: now,
      state: stateOf(session, config.blueprint, last),
      stoppedEarly,
      releaseSimulated: releaseRun.simulated,
      releaseFailures: failureLabels(releaseRun.cases.values()),
      releaseFailingCases: [...releaseRun.cases.values()].filter((c) => c.outcome === 'fail').length,
    };
  });

  const { session, state } = played;
  if (played.stoppedEarly) reporter.emit({ type: 'warning', message: `discover stopped before round ${state.round + 1}: ${played.stoppedEarly}` });
  if (session.rounds.length === 0) throw new AgentdevelError('USAGE', `discover played no round, so it has no team to propose (${played.stoppedEarly ?? 'no round'})`, { hint: 'Raise --budget, or lower discover.designCases in agentdevel.config.json.' });
  const chosen = bestTeam(state.arms, request.team);
  const team = chosen.map((name) => session.members.find((m) => m.name === name) as ArchivedMember);
  const fixesRequired = config.gate.allowEfficiencyReleases ? 0 : config.gate.minF2P;
  const withheld = proposalCannotPass(fixesRequired, played.releaseFailingCases);
  // What the rounds found, whether a proposal follows or not.
  const found = {
    ref: discoverRef(config),
    seed,
    ceiling: played.ceiling,
    rounds: played.rounds,
    state,
    stoppedEarly: played.stoppedEarly,
    ranking: { byHelpfulness: bestTeam(state.arms, state.arms.length), bySuccessRate: bySuccessRate(state.arms) },
    simulated: played.releaseSimulated || played.rounds.some((r) => r.simulated),
  };
  if (withheld) {
    // A certain rejection costs a writer request and a gate's runs: the rounds stay recorded, nothing is proposed.
    reporter.emit({ type: 'warning', message: `discover: no proposal gated: ${withheld}` });
    return { ...found, proposal: null, gate: null, withheld };
  }
  const written = await chargedTo({ activity: `discover/${config.blueprint}/proposal` }, () =>
    context.model.writeOrchestratorPrompt({
      model: config.models.writer,
      blueprintName: config.blueprint,
      blueprintRoot: crew.root,
      current: { path: `${crew.root}/${crew.manifest.orchestrator.prompt}`, content: crew.files.get(crew.manifest.orchestrator.prompt) ?? '' },
      team: team.map((m) => ({ name: m.name, description: m.description, tools: m.tools, sees: m.sees, arm: armView(state.arms, m.name) })),
      task: session.task,
      standing: { designCases: session.design.cases.length, designFailures: symptomTally(session.rounds).map((s) => s.label), releaseFailures: played.releaseFailures, fixesRequired },
    }),
  );
  const intent = proposalIntent(session.rounds, played.releaseFailures, state, chosen);
  const edits = proposalEdits({ root: crew.root, release: crew.manifest, releaseFiles: crew.files, team, orchestratorPrompt: written.value.prompt });
  const iteration = await nextIteration(repo, config);
  const built = await buildCandidate(workspace, tip, iteration, { edits, intent });
  const problem = await checkCandidateLoads(workspace, built);
  if (problem) {
    await discardCandidate(workspace, built);
    throw new AgentdevelError('MODEL_OUTPUT_INVALID', `discover's proposal (team ${chosen.join(', ')}) does not load: ${problem}`, {
      hint: 'The rounds are recorded in git; `agentdevel discover --rounds 0` proposes again from them (the orchestrator prompt is written anew).',
    });
  }
  reporter.emit({ type: 'stage', stage: 'gate', message: `discover: gating the proposal (team ${chosen.join(', ')}) like any RC` });
  // The normal gate, exactly as `gate --candidate REF --promote` runs it: promoted only if it accepts.
  // Named by the RC branch it was built on (as iterate's RCs are); the gate re-creates that branch for its own worktree.
  const gate = await gateCandidate(context, { ref: built.branch, promote: true, targets: [], reportDir: null, allowBehind: false, intent, authors: ['writer'] });
  return {
    ...found,
    proposal: { team: chosen, commit: built.commit, intent, edits: edits.map((e) => e.path) },
    gate,
    withheld: null,
    simulated: found.simulated || gate.simulated,
  };
}

/** One round of Algorithm 1 at t: grow the archive by the CRP's draw, pick the top K by UCB1, run, judge, update. */
async function playRound(session: Session, t: number, theta: number): Promise<RoundDocument> {
  const { context } = session;
  const { config, store } = context.workspace;
  const archiveSize = session.members.length;
  const crp = crpDraw({ theta, archiveSize, round: t }, session.draw);
  let writerRequests = 0;
  let warmupTrials = 0;
  const warmup: RoundDocument['crp']['warmup'] = [];
  let added: string | null = null;
  // Trial numbers: each round (and each warm-up run in it) draws fresh trials of the design split.
  const firstTrial = t * (config.discover.warmup.rounds + 1) * session.design.trials;
  if (crp.grew) {
    let draft = await writeDraft(session, null, t);
    writerRequests += 1;
    for (let w = 1; w <= config.discover.warmup.rounds; w += 1) {
      const cases = sampleWithout(session.design.cases, config.discover.warmup.cases, session.draw, `warmup:${t}:${w}`);
      const others = rankByUcb(session.arms, t).slice(0, Math.max(0, session.top - 1)).map((s) => memberNamed(session, s.name));
      const run = await runTeam(context, { checkout: session.checkout, crew: session.crew, team: [asMember(draft, session, t), ...others], cases, firstTrial: firstTrial + w * session.design.trials, label: `discover round ${t}: warm-up ${w} of ${draft.name}`, tag: `discover-${t}-warmup-${w}` });
      warmupTrials += run.caseTrials;
      const revised = await writeDraft(session, { draft, attempt: w, trajectories: trajectoriesOf(run.trials) }, t);
      writerRequests += 1;
      const changed = JSON.stringify(revised) !== JSON.stringify(draft);
      warmup.push({ cases, runId: run.runId, revised: changed });
      draft = revised;
      if (!changed) break;
    }
    const member = asMember(draft, session, t);
    session.members.push(member);
    session.arms.push(newArm(member.name));
    added = member.name;
  }
  const scores = rankByUcb(session.arms, t);
  const team = scores.slice(0, session.top).map((s) => s.name);
  const repeated = crp.grew ? null : repeatedRound(session, team);
  // What every round document says the same way: the draw, the scores, the team; the rest is its evidence.
  const ledgerOfRound = () => {
    const ledger = store.costOfActivity(roundActivity(config.blueprint, t));
    return { calls: ledger.calls, inputTokens: ledger.inputTokens, outputTokens: ledger.outputTokens, costUsd: ledger.costUsd };
  };
  const roundDocument = (played: Pick<RoundDocument, 'runId' | 'passRate' | 'evidence' | 'symptoms' | 'simulated'> & { readonly caseTrials: number; readonly judgeRequests: number }): RoundDocument => ({
    schema: 'agentdevel/discover-round@1',
    round: t,
    seed: session.seed,
    design: session.design,
    theta,
    top: session.top,
    crp: { archiveSize, probability: crp.probability, draw: crp.draw, grew: crp.grew, added, warmup },
    scores: scores.map((s) => ({ name: s.name, ucb: Number.isFinite(s.ucb) ? s.ucb : null })),
    team,
    runId: played.runId,
    passRate: played.passRate,
    evidence: played.evidence,
    symptoms: [...played.symptoms],
    cost: { caseTrials: played.caseTrials, judgeRequests: played.judgeRequests, writerRequests, ledger: ledgerOfRound() },
    simulated: played.simulated,
  });
  if (repeated) {
    // The same team on the same cases at temperature 0 sends the very requests that round sent:
    // its evidence is this round's too, at no cost (the bandit still counts the pull).
    session.arms = updateArms(session.arms, team, repeated.evidence);
    return roundDocument({ ...repeated, caseTrials: warmupTrials, judgeRequests: 0 });
  }
  const run = await runTeam(context, {
    checkout: session.checkout,
    crew: session.crew,
    team: team.map((name) => memberNamed(session, name)),
    cases: session.design.cases,
    firstTrial,
    label: `discover round ${t} (${team.join(', ')})`,
    tag: `discover-round-${t}`,
  });
  const judged = await judgeTeam(context, team.map((name) => memberNamed(session, name)), run.trials);
  session.arms = updateArms(session.arms, team, judged.evidence);
  return roundDocument({ runId: run.runId, passRate: run.passRate, evidence: judged.evidence, symptoms: [...run.symptoms], simulated: run.simulated, caseTrials: run.caseTrials + warmupTrials, judgeRequests: judged.requests });
}

/**
 * An earlier round of this session (so on the same release) this one would repeat exactly: the
 * same team in the same order, on the same design split, with agents at temperature 0 (a trial
 * number changes none of their requests). Null when the agents sample, or no round matches.
 */
function repeatedRound(session: Session, team: readonly string[]): RoundDocument | null {
  if (session.crew.manifest.temperature !== 0) return null;
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return session.rounds.find((r) => r.round >= session.firstRound && same(r.team, team) && same(r.design.cases, session.design.cases) && r.design.trials === session.design.trials) ?? null;
}

/** Asks the member writer for a new member (warmup null) or a warm-up revision; its answer must follow the archive's rules. */
async function writeDraft(session: Session, warmup: NonNullable<Parameters<PipelineContext['model']['writeMember']>[0]['warmup']> | null, t: number): Promise<MemberDraft> {
  const { config } = session.context.workspace;
  const archive: ArchivedMemberView[] = session.members.map((m) => ({ name: m.name, description: m.description, tools: m.tools, sees: m.sees, origin: m.origin, prompt: m.prompt, arm: armView(session.arms, m.name) }));
  const answer = await session.context.model.writeMember({
    model: config.models.writer,
    blueprintName: config.blueprint,
    blueprintRoot: session.crew.root,
    files: blueprintFilesOf(session.crew),
    tools: session.crew.tools,
    archive,
    task: session.task,
    symptoms: symptomTally(session.rounds),
    warmup,
  });
  const problems = draftProblems(answer.value, { archive: archive.map((m) => m.name), toolFiles: session.crew.tools.map((tool) => tool.file), keepName: warmup?.draft.name ?? null });
  if (problems.length > 0) throw new AgentdevelError('MODEL_OUTPUT_INVALID', `discover round ${t}: the member writer's answer breaks the archive's rules: ${problems.join('; ')}`);
  return answer.value;
}

const asMember = (draft: MemberDraft, session: Session, t: number): ArchivedMember => ({
  name: draft.name,
  order: session.members.length,
  origin: 'writer',
  round: t,
  description: draft.description,
  tools: draft.tools,
  sees: draft.sees,
  maxSteps: draft.maxSteps,
  maxCalls: draft.maxCalls,
  rationale: draft.rationale,
  prompt: draft.prompt,
});

function fromRelease(member: CrewMember, crew: ReleaseCrew, order: number, round: number): ArchivedMember {
  return {
    name: member.name,
    order,
    origin: 'release',
    round,
    description: member.description,
    tools: member.tools,
    sees: member.sees,
    maxSteps: member.maxSteps,
    maxCalls: member.maxCalls,
    rationale: `a member of the release (${crew.root}/blueprint.json)`,
    prompt: crew.files.get(member.prompt) ?? '',
  };
}

const memberNamed = (session: Session, name: string): ArchivedMember => session.members.find((m) => m.name === name) as ArchivedMember;

function armView(arms: readonly Arm[], name: string): ArchivedMemberView['arm'] {
  const arm = arms.find((a) => a.name === name) ?? newArm(name);
  return { pulls: arm.pulls, used: arm.used, helpful: arm.helpful, passed: arm.passed, helpfulness: arm.used === 0 ? null : arm.mean };
}

function stateOf(session: Session, blueprint: string, round: number): BanditState {
  return {
    schema: BANDIT_SCHEMA,
    blueprint,
    seed: session.seed,
    design: session.design,
    round,
    archive: session.members.filter((m) => m.round <= round).map((m) => ({ name: m.name, origin: m.origin, round: m.round })),
    arms: session.arms.filter((a) => session.members.some((m) => m.name === a.name && m.round <= round)),
  };
}

/** The labels of the design split's failing case-trials over every round, most frequent first. */
function symptomTally(rounds: readonly RoundDocument[]): Array<{ label: string; caseTrials: number }> {
  const tally = new Map<string, number>();
  for (const round of rounds) for (const s of round.symptoms) tally.set(s.label, (tally.get(s.label) ?? 0) + s.caseTrials);
  return [...tally].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, caseTrials]) => ({ label, caseTrials }));
}

/**
 * The proposal's intent, so the gate holds it to what it holds the loop's RCs to (fixes, and
 * hits on the targets; an RC that fixes nothing can only be an efficiency release): the team
 * answers the failures the design split showed, so it targets their three most frequent labels,
 * or the release's own train-run failures when no design case-trial failed.
 */
function proposalIntent(rounds: readonly RoundDocument[], releaseFailures: readonly string[], state: BanditState, team: readonly string[]): ChangeIntent {
  const design = symptomTally(rounds).slice(0, 3).map((s) => s.label);
  const targets = design.length > 0 ? design : releaseFailures.slice(0, 3);
  const figures = team.map((name) => {
    const arm = state.arms.find((a) => a.name === name);
    return `${name} (helpful in ${arm?.helpful ?? 0} of ${arm?.used ?? 0} trajectories)`;
  });
  const aim = design.length > 0 ? 'the design split’s failures' : targets.length > 0 ? 'the release’s train-run failures (none on the design split)' : 'no failure: no case-trial failed, so only an efficiency release can pass';
  return {
    targets: targets.length > 0 ? targets : ['none'],
    rationale: `discover: the team of ${team.length} ranked first by hindsight helpfulness over ${state.round} rounds, ${figures.join(', ')}, with an orchestrator prompt written for it; aimed at ${aim}.`,
  };
}

/**
 * Why a proposal cannot pass the gate, whatever the team: the gate requires more fixes than the
 * release has failing train cases to fix (an efficiency release, when allowed, needs none). Null when it can.
 */
export function proposalCannotPass(fixesRequired: number, releaseFailingCases: number): string | null {
  if (fixesRequired <= releaseFailingCases) return null;
  return `the gate requires at least ${fixesRequired} fix${fixesRequired === 1 ? '' : 'es'} (gate.minF2P) and the release fails ${releaseFailingCases} train case${releaseFailingCases === 1 ? '' : 's'}, so any proposal would be rejected; set gate.allowEfficiencyReleases to gate a cheaper team`;
}

/** The labels of a run's failing cases, most frequent first. */
function failureLabels(cases: Iterable<{ readonly outcome: string; readonly symptom: string | null }>): string[] {
  const tally = new Map<string, number>();
  for (const c of cases) if (c.outcome === 'fail' && c.symptom) tally.set(c.symptom, (tally.get(c.symptom) ?? 0) + 1);
  return [...tally].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label]) => label);
}

function refuseMissingTools(members: readonly ArchivedMember[], crew: ReleaseCrew, ref: string): void {
  const files = new Set(crew.tools.map((t) => t.file));
  for (const member of members) {
    const missing = member.tools.find((t) => !files.has(t));
    if (missing) {
      throw new AgentdevelError('USAGE', `archive member ${member.name} (${ref}) uses ${missing}, which the release's ${crew.root} no longer has`, {
        hint: `Start a new archive: git update-ref -d ${ref}`,
      });
    }
  }
}

function ceilingText(
  request: DiscoverRequest,
  plan: { designCases: number; trials: number; warmupRounds: number; warmupCases: number },
  ceiling: Ceiling,
  at: { seed: number; firstRound: number; releaseCases: number; reused: boolean },
): string {
  const rounds = request.rounds === 0 ? 'no new round' : `${request.rounds} round${request.rounds === 1 ? '' : 's'} (${at.firstRound} to ${at.firstRound + request.rounds - 1})`;
  const budget = request.budget === null ? 'none' : request.budget.kind === 'usd' ? `$${request.budget.amount.toFixed(2)} in the cost ledger` : budgetText(request.budget);
  return [
    `discover: ${rounds}, the top ${request.top} of the archive each, on a design split of ${plan.designCases} train cases × ${plan.trials} trial${plan.trials === 1 ? '' : 's'} (seed ${at.seed}); then a team of ${request.team} is proposed and gated.`,
    `  ceiling: ${ceiling.caseTrials} case-trials (a round: ${plan.designCases * plan.trials}, plus ${ceiling.perRound - plan.designCases * plan.trials} when a new member warms up: ${plan.warmupRounds} runs of ${plan.warmupCases} cases), ${ceiling.judgeRequests} judge requests, ${ceiling.writerRequests} member-writer requests;`,
    `  plus the release's train run (${at.releaseCases} case-trials${at.reused ? ', reused: already recorded' : ''}) and the gate's own bound (gate.maxConfirmTrials). Budget: ${budget}.`,
  ].join('\n');
}

function roundLine(round: RoundDocument, arms: readonly Arm[]): string {
  const ucb = round.scores.filter((s) => round.team.includes(s.name)).map((s) => `${s.name} ${s.ucb === null ? '∞' : s.ucb.toFixed(2)}`);
  const means = arms.map((a) => `${a.name} ${a.used === 0 ? '-' : a.mean.toFixed(2)} (${a.helpful}/${a.used}, n=${a.pulls})`);
  const cost = round.cost;
  return [
    `round ${round.round}: P(new) ${round.crp.probability.toFixed(2)}, draw ${round.crp.draw.toFixed(2)}${round.crp.added ? `: the writer added ${round.crp.added} (warm-up: ${round.crp.warmup.length} run${round.crp.warmup.length === 1 ? '' : 's'})` : ''}; team by UCB1: ${ucb.join(', ')}; pass rate ${(round.passRate * 100).toFixed(1)}%`,
    `  helpfulness μ̂: ${means.join(', ')}`,
    `  cost: ${cost.caseTrials} case-trials, ${cost.judgeRequests} judge and ${cost.writerRequests} writer requests; ledger ${cost.ledger.calls} calls, $${cost.ledger.costUsd.toFixed(4)}`,
  ].join('\n');
}
