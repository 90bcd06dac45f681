import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { banditStateSchema, roundDocumentSchema, type BanditState, type RoundDocument } from '../../src/domain/discover.ts';
import { scaffoldExample } from '../../src/app/example.ts';
import { cli, cliAsync, decisionLog, git, tempDir } from '../helpers/workspace.ts';

const REF = 'refs/agentdevel/discover/orders-crew';

interface Outcome {
  ref: string;
  seed: number;
  ceiling: { caseTrials: number; judgeRequests: number; writerRequests: number; text: string };
  rounds: RoundDocument[];
  state: BanditState;
  proposal: { team: string[]; commit: string; edits: string[] };
  gate: { candidate: string; outcome: string; tag: string | null; decision: { verdict: string; f2p: string[]; p2f: string[] } };
  simulated: boolean;
}

describe('discover on the crew example, offline (mock engine)', () => {
  it('plays 6 rounds: arms move every round, the archive grows, the state rebuilds from git alone, and the proposal is gated like any RC', async () => {
    const dir = path.join(tempDir('agentdevel-discover-'), 'ws');
    await scaffoldExample(dir, 'orders-crew');

    // Bad input is one clear error naming the option (exit 2), before anything runs.
    for (const [args, key] of [
      [['--rounds', 'six'], /--rounds: expected a whole number from 0 to 200, got "six"/],
      [['--rounds', '2', '--budget', '3 apples'], /--budget: expected dollars of the cost ledger/],
      [['--rounds', '2', '--team', '0'], /--team: expected a whole number from 1 to 20/],
      [[], /discover needs --rounds N/],
    ] as const) {
      const refused = cli(['discover', ...args, '-C', dir]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(key);
    }
    expect(git(dir, 'for-each-ref', REF)).toBe('');

    // Seed 1 is the seed under which the CRP grows the archive in rounds 4 and 6 (θ = 1).
    const result = await cliAsync(['discover', '--rounds', '6', '--team', '2', '--seed', '1', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as Outcome;

    // The rounds and the ceiling are stated before the first round starts.
    const stated = result.stderr.indexOf('discover: 6 rounds (1 to 6), the top 3 of the archive each, on a design split of 12 train cases × 1 trial (seed 1)');
    expect(stated).toBeGreaterThanOrEqual(0);
    expect(result.stderr).toMatch(/ceiling: 108 case-trials \(a round: 12, plus 6 when a new member warms up: 2 runs of 3 cases\), 216 judge requests, 19 member-writer requests/);
    expect(stated).toBeLessThan(result.stderr.indexOf('round 1:'));
    expect(outcome.ceiling).toMatchObject({ caseTrials: 108, judgeRequests: 216, writerRequests: 19 });

    // One commit per round on the discover ref; the arm statistics change every round.
    const commits = git(dir, 'rev-list', '--first-parent', '--max-count=6', REF).trim().split('\n').reverse();
    expect(commits).toHaveLength(6);
    const states = commits.map((c) => banditStateSchema.parse(JSON.parse(git(dir, 'show', `${c}:bandit.json`))));
    expect(states.map((s) => s.round)).toEqual([1, 2, 3, 4, 5, 6]);
    let before: BanditState['arms'] = [];
    for (const state of states) {
      expect(state.arms).not.toEqual(before);
      // Every round pulls exactly the top 3.
      expect(state.arms.reduce((n, a) => n + a.pulls, 0) - before.reduce((n, a) => n + a.pulls, 0)).toBe(3);
      before = state.arms;
    }
    expect(outcome.state).toEqual(states.at(-1));

    // The archive grew at least once, by the member writer, after a warm-up; the new member is in git.
    const grown = outcome.rounds.filter((r) => r.crp.grew);
    expect(grown.length).toBeGreaterThanOrEqual(1);
    for (const round of grown) {
      expect(round.crp.draw).toBeLessThan(round.crp.probability);
      expect(round.crp.warmup.length).toBeGreaterThanOrEqual(1);
      expect(round.cost.writerRequests).toBeGreaterThanOrEqual(2);
      const added = round.crp.added as string;
      expect(JSON.parse(git(dir, 'show', `${REF}:archive/${added}/member.json`))).toMatchObject({ schema: 'agentdevel/archive-member@1', origin: 'writer', round: round.round });
      expect(git(dir, 'show', `${REF}:archive/${added}/prompt.hbs`)).toContain('{{member.description}}');
      // A new member is tried in the round it joins (UCB1 is +∞ before its first pull).
      expect(round.team[0]).toBe(added);
      expect(round.scores[0]).toEqual({ name: added, ucb: null });
    }
    expect(outcome.state.archive.length).toBe(3 + grown.length);
    // Each round's cost: its case-trials and requests (the mock is not metered: no ledger rows, $0).
    // A round that repeats an earlier one (same team, same cases, temperature 0) runs nothing.
    for (const [index, round] of outcome.rounds.entries()) {
      roundDocumentSchema.parse(round);
      const repeats = !round.crp.grew && outcome.rounds.slice(0, index).some((r) => r.team.join() === round.team.join());
      expect(round.cost.caseTrials).toBeGreaterThanOrEqual(repeats ? 0 : 12);
      expect(round.cost.judgeRequests > 0).toBe(!repeats);
      expect(round.cost.ledger.costUsd).toBe(0);
      expect(round.simulated).toBe(true);
    }

    // On a fresh clone (no store), the state rebuilt from the archive and the round documents equals the one written.
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), 'clone', '-q', dir, clone);
    expect(cli(['sync', '--fetch-only', '-C', clone]).code).toBe(0);
    // Git alone: no store at all (sync made one; it goes).
    rmSync(path.join(clone, '.agentdevel'), { recursive: true, force: true });
    const shown = cli(['discover', '--show', '--json', '-C', clone]);
    expect(shown.code, shown.stderr).toBe(0);
    const rebuilt = JSON.parse(shown.stdout) as { equal: boolean; problems: string[]; rebuilt: BanditState; written: BanditState };
    expect(rebuilt.problems).toEqual([]);
    expect(rebuilt.equal).toBe(true);
    expect(rebuilt.rebuilt).toEqual(outcome.state);
    expect(rebuilt.written).toEqual(outcome.state);
    expect(existsSync(path.join(clone, '.agentdevel', 'state.db'))).toBe(false);
    const text = cli(['discover', '--show', '-C', clone]);
    expect(text.stdout).toMatch(/rebuilt from the archive and the round documents: equal to bandit.json/);

    // The proposal is the best team by helpfulness, and the normal gate decided it: its decision is in `log`.
    const ranked = [...outcome.state.arms].filter((a) => a.used > 0).sort((a, b) => b.mean - a.mean || b.used - a.used);
    expect(outcome.proposal.team).toHaveLength(2);
    expect(outcome.proposal.team.map((name) => outcome.state.arms.find((a) => a.name === name)?.mean)).toEqual(ranked.slice(0, 2).map((a) => a.mean));
    expect(outcome.proposal.edits).toContain('blueprints/orders-crew/system.hbs');
    expect(outcome.gate.candidate).toMatch(/^agentdevel\/rc\/orders-crew\/iter-001$/);
    const log = decisionLog(dir) as Array<{ rc: string; decision: string; tag: string | null; f2p: number; p2f: number }>;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ rc: outcome.gate.candidate, decision: outcome.gate.outcome, f2p: outcome.gate.decision.f2p.length, p2f: outcome.gate.decision.p2f.length });
    const recorded = outcome.gate.outcome === 'promoted' ? (outcome.gate.tag as string) : 'refs/agentdevel/rc/orders-crew/iter-001';
    const folder = outcome.gate.outcome === 'promoted' ? `releases/orders-crew/${(outcome.gate.tag as string).split('/').at(-1)}` : 'releases/orders-crew/rejected/iter-001';
    const decision = JSON.parse(git(dir, 'show', `${recorded}:${folder}/decision.json`)) as { gate: { verdict: string }; mockRoles: string[]; intent: { rationale: string } };
    expect(decision.gate.verdict).toBe(outcome.gate.decision.verdict);
    expect(decision.intent.rationale).toMatch(/^discover: the team of 2 ranked first by hindsight helpfulness over 6 rounds/);
    // The member writer wrote this candidate, on the mock engine: the decision says so.
    expect(decision.mockRoles).toContain('writer');
    expect(outcome.simulated).toBe(true);

    // A later session goes on from git (round 7, on the new release) within a stated budget: a round may take
    // 18 case-trials, so a budget of 25 lets one round run and stops before the second.
    const budgeted = await cliAsync(['discover', '--rounds', '3', '--budget', '25', '--json', '-C', dir]);
    expect(budgeted.code, budgeted.stderr).toBe(0);
    const later = JSON.parse(budgeted.stdout) as Outcome & { stoppedEarly: string | null };
    expect(later.rounds.map((r) => r.round)).toEqual([7]);
    expect(later.stoppedEarly).toMatch(/^budget: 1[25] of 25 case-trials spent, and a round may take 18$/);
    expect(budgeted.stderr).toMatch(/Budget: 25 case-trials\./);
    expect(later.seed).toBe(1);

    // Another seed is refused, naming it.
    const reseeded = cli(['discover', '--rounds', '1', '--seed', '5', '-C', dir]);
    expect(reseeded.code).toBe(2);
    expect(reseeded.stderr).toMatch(/--seed 5: the archive on refs\/agentdevel\/discover\/orders-crew was drawn with seed 1/);
  }, 300_000);
});
