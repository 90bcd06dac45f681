// discover never plays the same round twice: a round whose team, order and design split match an
// earlier round's, at temperature 0, takes that round's evidence and runs nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoundDocument } from '../../src/domain/discover.ts';
import { scaffoldExample } from '../../src/app/example.ts';
import { cliAsync, git, tempDir } from '../helpers/workspace.ts';

describe('discover’s rounds', () => {
  it('are never run twice: a repeated team on the same cases reuses the earlier round at no cost', async () => {
    const dir = path.join(tempDir('agentdevel-discover-repeats-'), 'ws');
    await scaffoldExample(dir, 'orders-crew');
    const file = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { discover?: Record<string, unknown> };
    // The archive (almost) never grows, and the design split is small: rounds 4 on repeat a team of one.
    config.discover = { theta: 0.0001, designCases: 4 };
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    git(dir, 'commit', '-qam', 'a small design split; an archive that does not grow');
    const result = await cliAsync(['discover', '--rounds', '5', '--top', '1', '--team', '1', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const rounds = (JSON.parse(result.stdout) as { rounds: RoundDocument[] }).rounds;
    const repeats = rounds.filter((r, i) => !r.crp.grew && rounds.slice(0, i).some((e) => e.team.join() === r.team.join()));
    expect(repeats.length).toBeGreaterThan(0);
    for (const round of repeats) {
      const earlier = rounds.find((e) => e.team.join() === round.team.join()) as RoundDocument;
      expect(round.cost.caseTrials, `round ${round.round} repeats round ${earlier.round}`).toBe(0);
      expect(round.runId).toBe(earlier.runId);
      expect(round.evidence).toEqual(earlier.evidence);
    }
    // Each distinct team ran once.
    expect(new Set(rounds.map((r) => r.runId)).size).toBe(new Set(rounds.map((r) => r.team.join())).size);
  }, 240_000);
});
