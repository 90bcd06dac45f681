// A killed iterate leaves the old release or the new one, never anything between: killed (-9) at
// each moment of its promotion, the next command finishes the promotion from its journal or
// leaves the line as it was. The test hook (AGENTDEVEL_TEST_PAUSE_AT) pauses the command at the
// moment named and writes a marker file; the test waits for the marker, then kills it there,
// whatever the machine's speed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../helpers/waits.ts';
import { cli, decisionLog, exampleWorkspace, git, startCli, tempDir } from '../helpers/workspace.ts';

/** The example's second iteration is its first promotion (the first RC is rejected). */
const TWO_ITERATIONS = ['iterate', '--max-iterations', '2'];
const RELEASE = 'support-agent/v1';

const tags = (dir: string) => git(dir, 'tag', '--list', 'support-agent/v*').split('\n').filter(Boolean);

/** Starts `iterate` paused at `moment`, waits until it is there, and kills it (-9). */
async function killedAt(dir: string, moment: string): Promise<void> {
  const marker = path.join(tempDir('agentdevel-pause-'), 'paused');
  const { child, done } = startCli([...TWO_ITERATIONS, '-C', dir], { env: { AGENTDEVEL_TEST_PAUSE_AT: moment, AGENTDEVEL_TEST_PAUSE_FILE: marker } });
  await until(() => existsSync(marker) || child.exitCode !== null, 120_000, `iterate to pause at ${moment}`);
  expect(existsSync(marker), `iterate ended (${child.exitCode}) before it reached ${moment}`).toBe(true);
  expect(readFileSync(marker, 'utf8')).toBe(`${moment} ${child.pid}\n`);
  child.kill('SIGKILL');
  await done;
}

describe('a killed iterate', () => {
  it.each([
    // The release commit and tag object exist, nothing else: the next command leaves the old line.
    { moment: 'release-committed', journal: false, refsMoved: false, promoted: false },
    // The journal says what to move, nothing moved: the next command finishes the promotion.
    { moment: 'journal-written', journal: true, refsMoved: false, promoted: true },
    // The refs moved, the checked-out files did not: the next command brings them along.
    { moment: 'refs-moved', journal: true, refsMoved: true, promoted: true },
  ])('at $moment, leaves the old release or the new one, and the next command finishes or cleans up', async ({ moment, journal, refsMoved, promoted }) => {
    const dir = await exampleWorkspace();
    const initial = git(dir, 'rev-parse', 'main');
    const journalFile = path.join(dir, '.agentdevel', 'promotion.json');
    await killedAt(dir, moment);

    // What the kill left: exactly the moment's state.
    expect(existsSync(journalFile)).toBe(journal);
    expect(git(dir, 'rev-parse', 'main') !== initial).toBe(refsMoved);
    expect(tags(dir)).toEqual(refsMoved ? [RELEASE] : []);
    // Only after the refs moved do the checked-out files lag behind the line.
    expect(git(dir, 'status', '--porcelain') !== '').toBe(refsMoved);

    // The next writer recovers; then the line is consistent.
    const next = cli(['run', '-C', dir]);
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(journalFile)).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(tags(dir)).toEqual(promoted ? [RELEASE] : []);
    expect(git(dir, 'rev-parse', 'main')).toBe(promoted ? git(dir, 'rev-parse', `${RELEASE}^{commit}`) : initial);
    expect(decisionLog(dir).map((e) => [e.iteration, e.decision, e.tag])).toEqual([[1, 'rejected', null], ...(promoted ? [[2, 'promoted', RELEASE]] : [])]);

    // And the line goes on from there.
    const after = cli(['iterate', '--max-iterations', '1', '-C', dir]);
    expect(after.code, after.stderr).toBe(0);
  }, 180_000);
});
