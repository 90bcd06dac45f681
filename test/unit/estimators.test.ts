import { describe, expect, it } from 'vitest';
import { estimateTables, passAtK, passHatK } from '../../src/stages/gate/estimators.ts';
import { binomialUpperTail, fisherDropPValue, signTestOneSided } from '../../src/stages/gate/significance.ts';

describe('pass@k and pass^k', () => {
  it.each([
    // n, c, k, pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k)
    [4, 2, 1, 0.5, 0.5],
    [4, 2, 2, 1 - 1 / 6, 1 / 6],
    [4, 3, 2, 1, 3 / 6],
    [4, 1, 3, 1 - 1 / 4, 0],
    [4, 3, 3, 1, 1 / 4],
    [4, 4, 4, 1, 1],
    [4, 0, 2, 0, 0],
    [10, 7, 5, 1, 21 / 252],
    [8, 1, 4, 1 - 35 / 70, 0],
  ])('n=%i c=%i k=%i', (n, c, k, at, hat) => {
    expect(passAtK(n, c, k)).toBeCloseTo(at, 10);
    expect(passHatK(n, c, k)).toBeCloseTo(hat, 10);
  });

  it('needs at least k trials', () => {
    expect(() => passHatK(2, 1, 3)).toThrow(/at least 3 trials/);
  });

  it('averages over cases for every k up to the fewest trials', () => {
    const { passAt, passHat } = estimateTables([
      { passes: 4, graded: 4 },
      { passes: 2, graded: 4 },
      { passes: 0, graded: 4 },
      { passes: 0, graded: 0 },
    ]);
    expect(Object.keys(passHat)).toEqual(['1', '2', '3', '4']);
    expect(passHat['1']).toBeCloseTo(0.5, 10);
    expect(passHat['2']).toBeCloseTo((1 + 1 / 6) / 3, 10);
    expect(passAt['2']).toBeCloseTo((1 + 5 / 6) / 3, 10);
    expect(passAt['4']).toBeCloseTo(2 / 3, 10);
  });
});

describe('exact tests', () => {
  it.each([
    [10, 10, 2 ** -10],
    [4, 3, 5 / 16],
    [4, 0, 1],
    [3, 4, 0],
    [20, 15, 0.020694732666015625],
  ])('P(Bin(%i, 1/2) >= %i)', (n, k, p) => {
    expect(binomialUpperTail(n, k)).toBeCloseTo(p, 12);
  });

  it('runs the sign test one-sided, for regressions', () => {
    expect(signTestOneSided(10, 0)).toBeCloseTo(0.0009765625, 12);
    expect(signTestOneSided(0, 10)).toBe(1);
    expect(signTestOneSided(0, 0)).toBe(1);
    expect(signTestOneSided(3, 1)).toBeCloseTo(0.3125, 12);
  });

  it.each([
    [4, 4, 0, 4, 1 / 70],
    [2, 2, 0, 3, 1 / 10],
    [3, 4, 1, 4, 17 / 70],
    [1, 2, 1, 2, 5 / 6],
    [0, 4, 4, 4, 1],
  ])('Fisher drop: %i/%i before, %i/%i after', (bp, bn, cp, cn, p) => {
    expect(fisherDropPValue(bp, bn, cp, cn)).toBeCloseTo(p, 12);
  });
});
