import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { score, ScorerCrash, type ScorerInput } from '../../src/stages/score/scorers.ts';
import type { ScorerConfig } from '../../src/domain/task-manifest.ts';
import { taskManifestSchema } from '../../src/domain/task-manifest.ts';
import { tempDir } from '../helpers/workspace.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';

const base: ScorerInput = {
  testCase: { id: 'c1', expected: { outputs: ['54.10'], amount: 54.1, pattern: '^Refund' } },
  output: 'Refund of $54.10 done',
  trace: [{ type: 'message', role: 'assistant', text: 'Refund of $54.10 done' }],
  observation: { state: { orders: { W1: { status: 'returned' } } }, expectedState: { orders: { W1: { status: 'returned' } } } },
  taskRoot: '/tmp',
  scriptEnvironment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
};

/** The task's scripts run as they do in a run: as child processes. */
const deps = { scripts: runScorerScript };

const scorer = (config: Record<string, unknown>): ScorerConfig => taskManifestSchema.parse({ scorers: [config] }).scorers[0] as ScorerConfig;

async function check(config: Record<string, unknown>, input: Partial<ScorerInput> = {}) {
  const result = await score([scorer(config)], { ...base, ...input }, deps);
  return result?.checks[0];
}

describe('scorers', () => {
  it('has no verdict without scorers (the critic decides then)', async () => {
    expect(await score([], base, deps)).toBeNull();
  });

  describe('state (tau-bench reward)', () => {
    it('passes when the states match and every expected output was said', async () => {
      expect(await check({ kind: 'state' })).toEqual({ scorer: 'state', pass: true });
    });
    it.each([
      ['an unexpected change', { orders: { W1: { status: 'returned' }, W2: { status: 'cancelled' } } }, { orders: { W1: { status: 'returned' } } }, 'unexpected_state_change', /orders\.W2/],
      ['a missing change', { orders: {} }, { orders: { W1: { status: 'returned' } } }, 'missing_state_change', /orders\.W1/],
      ['a wrong value', { orders: { W1: { status: 'pending' } } }, { orders: { W1: { status: 'returned' } } }, 'wrong_state_change', /orders\.W1\.status/],
    ])('fails on %s and names the path', async (_name, state, expectedState, code, where) => {
      const result = await check({ kind: 'state' }, { observation: { state, expectedState } });
      expect(result).toMatchObject({ pass: false, code });
      expect(result?.message).toMatch(where);
      // The structured reason: the first differing path, with what was expected and found there.
      expect(result?.where).toMatch(where);
      expect(result?.expected === undefined && result?.actual === undefined).toBe(false);
    });
    it('fails when an expected output was never said', async () => {
      const result = await check({ kind: 'state' }, { output: 'done', trace: [] });
      expect(result).toMatchObject({ pass: false, code: 'missing_required_output' });
      expect(result?.message).toContain('"54.10"');
    });
    it('fails when the runtime has no state', async () => {
      expect(await check({ kind: 'state' }, { observation: null })).toMatchObject({ pass: false, code: 'no_state' });
    });
  });

  it.each([
    [{ kind: 'schema', schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } } }, { amount: 3 }, true],
    [{ kind: 'schema', schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } } }, { amount: 'x' }, false],
    [{ kind: 'schema', path: 'refund', schema: { type: 'number', minimum: 0 } }, { refund: -1 }, false],
    [{ kind: 'regex', pattern: '\\$\\d+\\.\\d{2}' }, 'Refund $54.10', true],
    [{ kind: 'regex', pattern: 'refund', flags: 'i', path: 'message' }, { message: 'REFUND ok' }, true],
    [{ kind: 'regex', patternFromCase: 'expected.pattern' }, 'Refund sent', true],
    [{ kind: 'regex', pattern: 'sorry', expect: 'no-match' }, 'I am sorry', false],
    [{ kind: 'numeric', path: 'amount', expectedFromCase: 'expected.amount', tolerance: 0.01 }, { amount: 54.105 }, true],
    [{ kind: 'numeric', path: 'amount', expected: 54.1, tolerance: 0.001 }, { amount: '$54.20' }, false],
    [{ kind: 'numeric', path: 'amount', expected: 1 }, { amount: 'n/a' }, false],
  ])('%j on %j passes: %s', async (config, output, pass) => {
    expect((await check(config as Record<string, unknown>, { output }))?.pass).toBe(pass);
  });

  it.each([
    [{ kind: 'schema', path: 'refund', schema: { type: 'number', minimum: 0 } }, { refund: -1 }, { where: 'refund', actual: -1 }],
    [{ kind: 'regex', pattern: '^Refund', path: 'message' }, { message: 'Sorry' }, { where: 'message', expected: 'a match for /^Refund/', actual: 'Sorry' }],
    [{ kind: 'numeric', path: 'amount', expected: 54.1, tolerance: 0.001 }, { amount: 54.2 }, { where: 'amount', expected: '54.1 ± 0.001', actual: 54.2 }],
    // The expected value is shown even when the output is no number at all.
    [{ kind: 'numeric', path: 'amount', expectedFromCase: 'expected.amount' }, { amount: 'n/a' }, { where: 'amount', expected: 54.1, actual: 'n/a' }],
    [{ kind: 'numeric', path: 'amount', expectedFromCase: 'expected.amount' }, null, { where: 'amount', expected: 54.1, actual: null, message: 'amount is not a number (expected 54.1)' }],
    // Nothing to match is reported as nothing, not as the JSON text '""'.
    [{ kind: 'regex', pattern: '^Refund', path: 'message' }, {}, { where: 'message', expected: 'a match for /^Refund/', actual: null }],
  ])('%j on %j fails with the structured reason %j', async (config, output, reason) => {
    expect(await check(config as Record<string, unknown>, { output })).toMatchObject({ pass: false, ...reason });
  });

  it('names the missing outputs and clips what the agent said', async () => {
    const said = 'x'.repeat(500);
    const result = await check({ kind: 'state' }, { output: said, trace: [] });
    expect(result).toMatchObject({ where: 'messages', expected: ['54.10'] });
    expect(String(result?.actual).length).toBeLessThan(250);
  });

  it('passes on the structured reason a script scorer gives', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'score.mjs'), `console.log(JSON.stringify({pass:false,code:'wrong_city',where:'city',expected:'Paris',actual:'Lyon'}))`);
    expect(await check({ kind: 'script', command: [process.execPath, 'score.mjs'] }, { taskRoot: dir })).toEqual({
      scorer: 'script',
      pass: false,
      code: 'wrong_city',
      where: 'city',
      expected: 'Paris',
      actual: 'Lyon',
    });
  });

  it('runs a custom script scorer in a real subprocess', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'score.mjs'),
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const {case:c,output}=JSON.parse(s);console.log(JSON.stringify({pass:output.includes(c.expected.outputs[0]),code:'script'}));});`,
    );
    const config = { kind: 'script', command: [process.execPath, 'score.mjs'] };
    expect(await check(config, { taskRoot: dir })).toEqual({ scorer: 'script', pass: true, code: 'script' });
    expect(await check(config, { taskRoot: dir, output: 'nothing' })).toMatchObject({ pass: false });
  });

  it('reports a crashing script scorer as an infrastructure problem, not a fail', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'crash.mjs'), 'process.exit(3)');
    await expect(check({ kind: 'script', command: [process.execPath, 'crash.mjs'] }, { taskRoot: dir })).rejects.toBeInstanceOf(ScorerCrash);
  });

  it('requires every scorer to pass', async () => {
    const result = await score([scorer({ kind: 'state' }), scorer({ kind: 'regex', pattern: 'nope' })], base, deps);
    expect(result?.pass).toBe(false);
    expect(result?.checks.map((c) => c.pass)).toEqual([true, false]);
  });
});
