import path from 'node:path';
import type { Case } from '../../domain/case.ts';
import { atPath, canonicalJson } from '../../domain/json.ts';
import { z } from '../../domain/zod.ts';
import { clipValue, scorerCheckSchema, type ScorerCheck, type ScorerResult } from '../../domain/record.ts';
import { facesUser, type TraceEvent } from '../../domain/trace.ts';
import type { ScorerScriptRunner } from '../../domain/ports/scorer-scripts.ts';
import type { Observation } from '../../domain/ports/runtime.ts';
import type { ScorerConfig, ScorerKind } from '../../domain/task-manifest.ts';
import { PAPER_COST_WEIGHTS, traceCost } from './trace-cost.ts';


export interface ScorerInput {
  readonly testCase: Case;
  readonly output: unknown;
  readonly trace: readonly TraceEvent[];
  readonly observation: Observation | null;
  readonly taskRoot: string;
  /** The environment a scorer script runs in (passed in: a stage never reads process.env). */
  readonly scriptEnvironment: Readonly<Record<string, string>>;
}

/** What scoring needs of the world: a runner for the task's scorer scripts. */
export interface ScoreDeps {
  readonly scripts: ScorerScriptRunner;
}

type Handler<K extends ScorerKind> = (config: Extract<ScorerConfig, { kind: K }>, input: ScorerInput, deps: ScoreDeps) => Promise<Omit<ScorerCheck, 'scorer'>>;

/** Lists the first few paths where two JSON values differ. */
export function differingPaths(actual: unknown, expected: unknown, prefix = '', out: string[] = []): string[] {
  if (out.length >= 5) return out;
  if (canonicalJson(actual) === canonicalJson(expected)) return out;
  const bothObjects = actual && expected && typeof actual === 'object' && typeof expected === 'object' && !Array.isArray(actual) && !Array.isArray(expected);
  if (!bothObjects) {
    out.push(prefix || '(root)');
    return out;
  }
  const keys = [...new Set([...Object.keys(actual as object), ...Object.keys(expected as object)])].sort();
  for (const key of keys) {
    differingPaths((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], prefix ? `${prefix}.${key}` : key, out);
  }
  return out;
}

/** Names how states differ: something changed that should not have, something missing, or a wrong value. */
function stateDifferenceKind(actual: unknown, expected: unknown, differences: readonly string[]): string {
  const at = (value: unknown, p: string) => (p === '(root)' ? value : atPath(value, p));
  if (differences.some((p) => at(expected, p) === undefined)) return 'unexpected_state_change';
  if (differences.some((p) => at(actual, p) === undefined)) return 'missing_state_change';
  return 'wrong_state_change';
}

function assistantText(trace: readonly TraceEvent[], output: unknown): string {
  const said = trace.filter((e) => e.type === 'message' && e.role === 'assistant' && facesUser(e)).map((e) => (e.type === 'message' ? e.text : ''));
  return [...said, typeof output === 'string' ? output : JSON.stringify(output ?? '')].join('\n');
}

const handlers: { [K in ScorerKind]: Handler<K> } = {
  // tau-bench's reward: the final state must equal the expected one, and every expected
  // output must appear in what the agent said.
  async state(_config, input) {
    if (!input.observation) return { pass: false, code: 'no_state', message: 'the runtime reported no environment state' };
    const { state, expectedState } = input.observation;
    const differences = differingPaths(state, expectedState);
    if (differences.length > 0) {
      const where = differences[0] as string;
      const at = (value: unknown) => clipValue(where === '(root)' ? value : atPath(value, where));
      return {
        pass: false,
        code: stateDifferenceKind(state, expectedState, differences),
        message: `final state differs from the expected state at ${differences.join(', ')}`,
        where,
        expected: at(expectedState) ?? null,
        actual: at(state) ?? null,
      };
    }
    const outputs = z.array(z.string()).catch([]).parse(atPath(input.testCase, 'expected.outputs') ?? []);
    const text = assistantText(input.trace, input.output).toLowerCase();
    const missing = outputs.filter((o) => !text.includes(o.toLowerCase()));
    if (missing.length > 0) {
      return {
        pass: false,
        code: 'missing_required_output',
        message: `the agent never said ${missing.map((m) => `"${m}"`).join(', ')}`,
        where: 'messages',
        expected: missing,
        actual: clipValue(assistantText(input.trace, input.output)),
      };
    }
    return { pass: true };
  },
  async schema(config, input) {
    const schema = z.fromJSONSchema(config.schema as Parameters<typeof z.fromJSONSchema>[0]);
    const result = schema.safeParse(atPath(input.output, config.path));
    if (result.success) return { pass: true };
    const issue = result.error.issues[0];
    const where = [config.path, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.') || '(output)';
    const actual = atPath(atPath(input.output, config.path), (issue?.path ?? []).map(String).join('.') || undefined);
    return {
      pass: false,
      code: 'schema_mismatch',
      message: `${issue?.path.join('.') || '(output)'}: ${issue?.message ?? 'does not match'}`,
      where,
      expected: issue?.message ?? 'to match the schema',
      actual: clipValue(actual) ?? null,
    };
  },
  async regex(config, input) {
    const source = config.pattern ?? String(atPath(input.testCase, config.patternFromCase) ?? '');
    const target = atPath(input.output, config.path);
    // Nothing there is matched as the empty string, and reported as nothing (null), not as '""'.
    const text = typeof target === 'string' ? target : target === undefined || target === null ? '' : JSON.stringify(target);
    const matched = new RegExp(source, config.flags ?? '').test(text);
    const pass = config.expect === 'match' ? matched : !matched;
    if (pass) return { pass };
    return {
      pass,
      code: 'regex_mismatch',
      message: `${config.expect === 'match' ? 'no match' : 'unexpected match'} for /${source}/`,
      where: config.path ?? '(output)',
      expected: `${config.expect === 'match' ? 'a match' : 'no match'} for /${source}/${config.flags ?? ''}`,
      actual: target === undefined || target === null ? null : clipValue(text),
    };
  },
  async numeric(config, input) {
    const expected = config.expected ?? Number(atPath(input.testCase, config.expectedFromCase));
    const wanted = config.tolerance === 0 ? expected : `${expected} ± ${config.tolerance}`;
    const raw = atPath(input.output, config.path);
    // "$54.10" reads as 54.1; text with no digits at all is not a number (Number('') would be 0).
    const digits = String(raw ?? '').replace(/[^0-9eE.+-]/g, '');
    const actual = typeof raw === 'number' ? raw : /\d/.test(digits) ? Number(digits) : Number.NaN;
    if (!Number.isFinite(actual)) {
      // The expected value is always shown: "a number" alone would hide what the case wants.
      if (!Number.isFinite(expected)) return { pass: false, code: 'no_expected_number', message: 'the case has no expected number' };
      return { pass: false, code: 'not_a_number', message: `${config.path} is not a number (expected ${wanted})`, where: config.path, expected: wanted, actual: clipValue(raw) ?? null };
    }
    if (!Number.isFinite(expected)) return { pass: false, code: 'no_expected_number', message: 'the case has no expected number' };
    const pass = Math.abs(actual - expected) <= config.tolerance;
    if (pass) return { pass };
    return {
      pass,
      code: 'out_of_tolerance',
      message: `${config.path} is ${actual}, expected ${expected} ± ${config.tolerance}`,
      where: config.path,
      expected: wanted,
      actual,
    };
  },
  // AutoEvolve's trace cost; it decides only when the task gives it a threshold.
  async cost(config, input) {
    const measured = traceCost(input.trace, { ...PAPER_COST_WEIGHTS, ...config.weights });
    const pass = config.max === undefined || measured.cost <= config.max + 1e-12;
    const summary = `R_cost ${measured.cost} (${measured.steps} steps, ${measured.repeats} repeated calls, ${measured.noops} calls that changed no state)`;
    return {
      pass,
      value: measured.cost,
      decides: config.max !== undefined,
      ...(pass ? { message: summary } : { code: 'trace_too_costly', message: `${summary} is above ${config.max}` }),
    };
  },
  // A custom script of the task (trusted: the task is frozen and outside the blueprint). It
  // reads {case, output} on stdin and prints {pass, code?, message?}.
  async script(config, input, deps) {
    const [command, ...args] = config.command;
    const outcome = await deps.scripts({
      command: command as string,
      args,
      cwd: input.taskRoot,
      env: { ...input.scriptEnvironment },
      input: JSON.stringify({ case: input.testCase, output: input.output }),
      timeoutMs: config.timeoutMs,
    });
    if (outcome.exitCode !== 0) {
      throw new ScorerCrash(`${path.join(input.taskRoot, String(command))} failed: ${outcome.timedOut ? 'timed out' : outcome.stderr.trim().split('\n').at(-1) ?? `exit ${outcome.exitCode}`}`);
    }
    // The script may give the structured reason too: {"pass": false, "expected": …, "actual": …, "where": …}.
    const verdict = scorerCheckSchema.omit({ scorer: true }).safeParse(safeJson(outcome.stdout.trim().split('\n').at(-1) ?? ''));
    if (!verdict.success) throw new ScorerCrash(`the script scorer ${command} printed no {"pass": …} line`);
    const { expected, actual, ...rest } = verdict.data;
    return {
      ...rest,
      ...(expected === undefined ? {} : { expected: clipValue(expected) }),
      ...(actual === undefined ? {} : { actual: clipValue(actual) }),
    };
  },
};

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return null;
  }
}

/** A scorer that could not produce a verdict: an infrastructure problem, never a fail. */
export class ScorerCrash extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScorerCrash';
  }
}

export async function score(configs: readonly ScorerConfig[], input: ScorerInput, deps: ScoreDeps): Promise<ScorerResult | null> {
  if (configs.length === 0) return null;
  const checks: ScorerCheck[] = [];
  for (const config of configs) {
    const handler = handlers[config.kind] as Handler<ScorerKind>;
    checks.push({ scorer: config.kind, ...(await handler(config as never, input, deps)) });
  }
  // Checks that only measure (a cost scorer without a threshold) never decide; when no check
  // decides, the critic's verdict is the case's (paper eq. 6).
  const deciding = checks.filter((c) => c.decides !== false);
  return deciding.length === 0 ? { pass: true, checks, decides: false } : { pass: deciding.every((c) => c.pass), checks };
}
