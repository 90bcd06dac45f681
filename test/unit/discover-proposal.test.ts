import { describe, expect, it } from 'vitest';
import { proposalCannotPass } from '../../src/pipeline/loop/discover.ts';

describe('a discover proposal that cannot pass', () => {
  it('is one the gate must reject for want of failing train cases to fix', () => {
    // The scenario of issue 32: the release fails no train case, the gate requires a fix.
    expect(proposalCannotPass(1, 0)).toMatch(/requires at least 1 fix \(gate.minF2P\) and the release fails 0 train cases/);
    expect(proposalCannotPass(2, 1)).toMatch(/at least 2 fixes/);
    expect(proposalCannotPass(1, 3)).toBeNull();
    // An efficiency release (gate.allowEfficiencyReleases) needs no fix.
    expect(proposalCannotPass(0, 0)).toBeNull();
  });
});
