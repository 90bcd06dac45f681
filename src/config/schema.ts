import { z } from '../domain/zod.ts';
import { DEFAULT_MODEL, MOCK_MODEL, OPENAI_PROVIDER, isClaudeModel, type ConfiguredModels, type ModelEndpoint } from '../domain/models.ts';
import { roles, type Role } from '../domain/ports/model.ts';

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected a folder name of lowercase letters, digits, ".", "_" or "-"');

const claudeOrMock = z
  .string()
  .refine((value) => value === MOCK_MODEL || isClaudeModel(value) || value.startsWith(`${OPENAI_PROVIDER}:`), {
    message: `expected "${MOCK_MODEL}", a Claude model id such as "claude-sonnet-5-5", or "openai:MODEL" (any OpenAI-compatible server)`,
  })
  .refine((value) => !value.startsWith(`${OPENAI_PROVIDER}:`) || value.length > OPENAI_PROVIDER.length + 1, { message: 'expected a model name after "openai:"' });

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');

/** A role on an OpenAI-compatible server, written out: the server, the key's variable and, for a model not in the price table, its price. */
const openaiRole = z
  .object({
    provider: z.literal(OPENAI_PROVIDER),
    model: z.string().min(1).describe('The model name the server knows (e.g. "gpt-5.1", "llama3.1:8b").'),
    baseURL: z.string().url().optional().describe('The server\'s Chat Completions base URL (e.g. "http://127.0.0.1:11434/v1" for Ollama). Default: $OPENAI_BASE_URL (or baseURLEnv), else the OpenAI API.'),
    apiKeyEnv: envName.default('OPENAI_API_KEY').describe('The environment variable that holds the key.'),
    baseURLEnv: envName.default('OPENAI_BASE_URL').describe('The environment variable that may hold the base URL (when baseURL is not given).'),
    price: z
      .object({ input: z.number().min(0), output: z.number().min(0) })
      .strict()
      .optional()
      .describe('USD per million input and output tokens, for a model the price table does not know (a local model costs 0 when you say so).'),
  })
  .strict();

/** An object that is not a valid openai role is told what is wrong with it, not only "Invalid input". */
function objectRoleProblem(issue: { input?: unknown; errors?: unknown }): string | undefined {
  if (typeof issue.input !== 'object' || issue.input === null) return undefined;
  const problem = (issue.errors as Array<Array<{ path: PropertyKey[]; message: string }>> | undefined)?.[1]?.[0];
  return problem ? `${problem.path.length > 0 ? `${problem.path.map(String).join('.')}: ` : ''}${problem.message} (a role written as an object names an OpenAI-compatible server: { "provider": "openai", "model": … })` : undefined;
}

const modelId = z.union([claudeOrMock, openaiRole], { error: objectRoleProblem });

/** The normalized shape: every role is a string (the model as traces and the ledger name it), its endpoint beside it. */
function normalizedModels(written: Record<Role, string | z.output<typeof openaiRole>>): ConfiguredModels {
  const endpoints: Partial<Record<Role, ModelEndpoint>> = {};
  const names = {} as Record<Role, string>;
  for (const role of roles) {
    const value = written[role];
    if (typeof value === 'string') {
      names[role] = value;
      continue;
    }
    names[role] = `${OPENAI_PROVIDER}:${value.model}`;
    endpoints[role] = { baseURL: value.baseURL ?? null, apiKeyEnv: value.apiKeyEnv, baseURLEnv: value.baseURLEnv, price: value.price ?? null };
  }
  // No endpoints key when no role names one: a Claude-only config normalizes as it always did.
  return Object.keys(endpoints).length > 0 ? { ...names, endpoints } : names;
}

const unitInterval = z.number().min(0).max(1);

const blueprintCheck = z
  .object({
    name: z.string().min(1).describe('What the check is, as reports name it.'),
    command: z.array(z.string().min(1)).min(1).describe("Executable and arguments, run in the candidate's blueprint folder with only PATH in its environment."),
    timeoutMs: z.number().int().min(100).default(120_000),
  })
  .strict();

/** The layers of the gate (AutoEvolve's layered gate): each may veto; the human layer holds a release for approval. */
const gateLayer = z.discriminatedUnion('layer', [
  z
    .object({
      layer: z.literal('checks'),
      mustPass: z
        .array(z.string().min(1))
        .default([])
        .describe('Cases that may never fail in a candidate: case ids, or "tag:NAME" for every case whose "tags" list NAME.'),
      blueprintChecks: z.array(blueprintCheck).default([]).describe("Commands run on the candidate's checkout (a typecheck, the blueprint's own tests); a non-zero exit vetoes."),
      maxTraceCost: z.number().min(0).optional().describe("Most mean trace cost (R_cost) per case-trial of the candidate's run."),
    })
    .strict()
    .describe('Deterministic checks: a veto no model output can override.'),
  z.object({ layer: z.literal('flips') }).strict().describe('The statistical gate on pass→fail and fail→pass flips (gate.policy).'),
  z
    .object({ layer: z.literal('requirements') })
    .strict()
    .describe("An implementation-blind critic reads the rubric's requirements and the candidate's traces of the changed cases; it may only veto."),
  z.object({ layer: z.literal('approval') }).strict().describe('A person approves: an accepted RC waits as a pending release for `agentdevel approve` or `decline`.'),
]);

/** The written shape of agentdevel.config.json. Defaults make the normalized shape. */
export const configSchema = z
  .object({
    $schema: z.string().optional(),
    blueprint: name.describe('The blueprint folder under blueprints/ that this workspace releases.'),
    task: name.describe('The task folder under rubrics/ the blueprint is graded on.'),
    models: z
      .object({
        agent: modelId.default(DEFAULT_MODEL),
        critic: modelId.default(DEFAULT_MODEL),
        diagnostician: modelId.default(DEFAULT_MODEL),
        synthesizer: modelId.default(DEFAULT_MODEL),
        judge: modelId.default(DEFAULT_MODEL).describe('The helpfulness judge of credit.helpfulness and of `discover` (asked only by those).'),
        writer: modelId.default(DEFAULT_MODEL).describe('The member writer of `discover`: new crew members and the proposed team\'s orchestrator prompt (asked only by discover).'),
      })
      .strict()
      .default({ agent: DEFAULT_MODEL, critic: DEFAULT_MODEL, diagnostician: DEFAULT_MODEL, synthesizer: DEFAULT_MODEL, judge: DEFAULT_MODEL, writer: DEFAULT_MODEL })
      .transform(normalizedModels)
      .describe('The model of each role: a Claude model id, "openai:MODEL" (key from OPENAI_API_KEY, server from OPENAI_BASE_URL), an object naming an OpenAI-compatible server, or "mock" for the offline simulation.'),
    critic: z
      .enum(['all', 'failing', 'off'])
      .optional()
      .describe(
        'Which case-trials the critic grades: all; failing (only those a scorer failed; passing ones are "ok" without a model call); off (scorers alone). Default: failing when the task has scorers, else all.',
      ),
    trials: z.number().int().min(1).max(32).default(1).describe('Trials per case in every run.'),
    concurrency: z.number().int().min(1).max(64).default(4).describe('Case-trials run at once.'),
    budget: z
      .string()
      .regex(/^\s*(\$?\d+(\.\d+)?\s*usd|\$\d+(\.\d+)?|\d+\s*(req|requests))\s*$/i, 'expected dollars (e.g. "0.50usd") or model requests (e.g. "300req")')
      .optional()
      .describe(
        'Most one command (run, gate, iterate, discover, and any other that calls models) may spend on model requests: dollars of the cost ledger ("0.50usd") or requests ("300req"). A request that would pass it is not sent: the command stops, undecided (exit 3), and a later one with more budget resumes. `--budget` overrides it.',
      ),
    queue: z
      .string()
      .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
      .optional()
      .describe('Run case-trials on workers (`agentdevel worker`) through this Redis queue, as `--queue URL` does. Prefer --queue for a URL with a password.'),
    gate: z
      .object({
        maxP2F: z.number().int().min(0).default(0).describe('Most pass-to-fail regressions an RC may cause.'),
        maxP2FRate: unitInterval.default(0.02).describe('Most regressions as a share of passing cases.'),
        minF2P: z.number().int().min(0).default(1).describe('Fewest fail-to-pass fixes an RC must bring.'),
        minHitRate: unitInterval
          .default(0.5)
          .describe('Fewest share of fixes whose baseline symptom the change intent targets.'),
        maxUngradedShare: unitInterval
          .default(0.1)
          .describe('Most share of cases without a verdict (infrastructure errors) for the gate to decide at all.'),
        policy: z
          .enum(['auto', 'flips', 'stochastic'])
          .default('auto')
          .describe(
            'auto and stochastic: the statistical gate (screening, then confirmation of moved cases on fresh trials; an unchanged agent is rejected at most alpha of the time); flips: the paper-faithful gate, every flip at face value, for deterministic agents.',
          ),
        alpha: z
          .number()
          .gt(0)
          .lt(1)
          .default(0.05)
          .describe(
            'Most chance that the statistical gate rejects an unchanged agent: an eighth for the paired test over the moved cases\' first fresh pairs, an eighth for the infrastructure balance test, three quarters for the per-case regression tests (compare of imported runs: a quarter for the paired test). A case is credited as a fix it is not at most alpha of the time.',
          ),
        maxSignificantRegressions: z.number().int().min(0).default(0).describe('Confirmed regressions still tolerated (statistical gate).'),
        maxConfirmTrials: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(32)
          .describe(
            "Most fresh trials per side for one moved case (statistical gate). Each case gets the fewest, from 4, that give 90% power against gate.detectableDrop at its corrected level, capped here; most stop far earlier.",
          ),
        detectableDrop: z
          .number()
          .gt(0)
          .max(1)
          .default(0.6)
          .describe('The change in a case\'s pass chance the confirmation is designed to catch with 90% power (statistical gate). Smaller catches softer changes at more trials.'),
        futility: z
          .number()
          .min(0)
          .lt(1)
          .default(0.33)
          .describe(
            'Stop confirming a moved case once its predicted chance of ending significant falls below this (statistical gate; after its first fresh pair only below 0.1, if this is higher). Higher is cheaper and misses more soft changes; 0 runs every moved case to its full size. Stopping early never raises the error rate.',
          ),
        secondLook: z
          .enum(['auto', 'always', 'never'])
          .default('auto')
          .describe(
            "One more candidate screen trial of each case where every baseline record and the candidate's screen passed (statistical gate), so a case that now fails half the time is selected three times in four instead of half the time. auto: when at least two thirds of the cases' records all passed (a mature agent, where it costs about 0.85 x N more runs); always; never. The extra trials serve selection only. Where it applies, a possible regression whose records all passed is also sized for 90% power against a fall from .97 to .5 and stops for futility below half of gate.futility.",
          ),
        baselineRecords: z
          .number()
          .int()
          .min(1)
          .max(9)
          .default(3)
          .describe(
            "Records of the current release's screening run (each `trials` per case) the statistical gate selects moved cases with: taken once per release and reused by every gate against it. More records select real breaks more often; the tests themselves use fresh trials only.",
          ),
        layers: z
          .array(gateLayer)
          .default([{ layer: 'checks', mustPass: [], blueprintChecks: [] }, { layer: 'flips' }])
          .describe('The gate, layer by layer, in this order: checks, flips, requirements, approval. "flips" is required.'),
        maxViolationRate: unitInterval
          .optional()
          .describe("Most requirement-violation rate of the candidate's run: the share of case-trials the scorers pass and the critic fails (needs the requirements layer)."),
        allowEfficiencyReleases: z
          .boolean()
          .default(false)
          .describe('Promote an RC that fixes and breaks nothing but costs significantly less per case (a paired test on the same cases).'),
      })
      .strict()
      .default({
        maxP2F: 0,
        maxP2FRate: 0.02,
        minF2P: 1,
        minHitRate: 0.5,
        maxUngradedShare: 0.1,
        policy: 'auto',
        alpha: 0.05,
        maxSignificantRegressions: 0,
        maxConfirmTrials: 32,
        detectableDrop: 0.6,
        futility: 0.33,
        secondLook: 'auto',
        baselineRecords: 3,
        layers: [{ layer: 'checks', mustPass: [], blueprintChecks: [] }, { layer: 'flips' }],
        allowEfficiencyReleases: false,
      }),
    credit: z
      .object({
        helpfulness: z
          .boolean()
          .default(false)
          .describe('Ask the judge role, for every call of a crew member or tool wrapper, whether it helped (one model call per component per case-trial). Off by default for cost.'),
        freeRider: z
          .object({
            minSuccessRate: unitInterval.default(0.7).describe('A component called on at least this share of passing case-trials…'),
            maxHelpfulness: unitInterval.default(0.3).describe('…whose calls helped at most this often is flagged a free rider.'),
          })
          .strict()
          .default({ minSuccessRate: 0.7, maxHelpfulness: 0.3 }),
      })
      .strict()
      .default({ helpfulness: false, freeRider: { minSuccessRate: 0.7, maxHelpfulness: 0.3 } })
      .describe('Credit per component (crew members, tool wrappers, prompt partials), recorded every iteration.'),
    discover: z
      .object({
        theta: z.number().gt(0).max(100).default(1).describe("The Chinese restaurant process's concentration: a round asks the member writer for a new member with probability theta / (theta + archive size)."),
        designCases: z.number().int().min(1).max(1000).default(12).describe('The design split: this many train cases, sampled once with the seed; every round runs its team on them.'),
        warmup: z
          .object({
            rounds: z.number().int().min(0).max(8).default(2).describe('Warm-up runs of a new member before it joins the archive; after each the writer may revise it.'),
            cases: z.number().int().min(1).max(50).default(3).describe('Design cases (sampled with the seed) each warm-up run takes.'),
          })
          .strict()
          .default({ rounds: 2, cases: 3 }),
      })
      .strict()
      .default({ theta: 1, designCases: 12, warmup: { rounds: 2, cases: 3 } })
      .describe('`agentdevel discover`: sub-agent discovery as a bandit (BOAD).'),
    attribution: z
      .object({
        onRejection: z
          .boolean()
          .default(false)
          .describe("After the gate records a rejection with regressions, trace each regression to the edit it depends on (`attribute` on the P→F cases); the synthesizer's next request says which edit broke what. Off by default for cost."),
        maxEdits: z.number().int().min(1).max(20).default(4).describe('Attribution on rejection runs only for RCs of at most this many edited files: at most 2 × edits variant runs of the regressed cases.'),
        variantTrials: z
          .number()
          .int()
          .min(1)
          .max(64)
          .optional()
          .describe("Fresh trials per case in each variant run. Default: as many as the gate's confirmation planner gives one case of its family (gate.alpha, gate.detectableDrop, gate.maxConfirmTrials)."),
      })
      .strict()
      .default({ onRejection: false, maxEdits: 4 })
      .describe('Which edit of a release candidate caused which flip (`agentdevel attribute`, and the gate on a rejection).'),
    stop: z
      .object({
        maxIterations: z.number().int().min(1).default(10),
        maxConsecutiveRejections: z.number().int().min(1).default(3),
        minF2P: z
          .number()
          .int()
          .min(1)
          .default(2)
          .describe('Fixes below this per promoted RC count as drying up.'),
        patience: z.number().int().min(1).default(2).describe('Iterations of dried-up fixes or rising regressions before stopping.'),
      })
      .strict()
      .default({ maxIterations: 10, maxConsecutiveRejections: 3, minF2P: 2, patience: 2 }),
    line: z
      .object({
        branch: z.string().min(1).default('main'),
        tagPrefix: z.string().default(''),
      })
      .strict()
      .default({ branch: 'main', tagPrefix: '' }),
    sandbox: z
      .object({
        timeoutMs: z.number().int().min(100).default(30_000),
        memoryMb: z.number().int().min(32).default(256),
        isolation: z
          .enum(['shared', 'case'])
          .default('shared')
          .describe(
            'How case-trials use tool hosts. "shared": a few pooled hosts each serve many case-trials, so module-level state of the wrappers and the environment module is shared between them (each case-trial still has its own environment, user and ctx). "case": a fresh host per case-trial, for wrappers that keep state at module level; it costs a Node start per case-trial and one host per case-trial in flight.',
          ),
      })
      .strict()
      .default({ timeoutMs: 30_000, memoryMb: 256, isolation: 'shared' }),
    repairs: z
      .object({
        diagnosis: z.number().int().min(0).max(5).default(2),
        synthesis: z.number().int().min(0).max(5).default(2),
      })
      .strict()
      .default({ diagnosis: 2, synthesis: 2 }),
    evidence: z
      .object({
        tokens: z
          .number()
          .int()
          .min(0)
          .max(200_000)
          .default(6000)
          .describe("Budget of the failing case-trials shown to the synthesizer, in tokens (estimated as 4 characters a token); 0 shows none."),
        casesPerSymptom: z.number().int().min(1).max(20).default(3).describe('Most failing cases shown per dominant symptom of the diagnosis.'),
      })
      .strict()
      .default({ tokens: 6000, casesPerSymptom: 3 })
      .describe("What the synthesizer sees of the failures: for each dominant symptom, a few failing case-trials (input, expected value, output, the scorer's reason, a trace excerpt)."),
    anthropic: z
      .object({
        maxRetries: z.number().int().min(0).max(10).default(4).describe('Retries of a call on 529, other 5xx and connection errors (jittered, retry-after honoured). A 429 (rate limited) is not counted: it is waited out, paced with the other calls, for up to 10 minutes.'),
        timeoutMs: z.number().int().min(1000).default(600_000).describe('Time limit of one model call.'),
      })
      .strict()
      .default({ maxRetries: 4, timeoutMs: 600_000 }),
    report: z
      .object({
        composite: z
          .object({
            weights: z
              .record(z.string().regex(/^(passRate|efficiency|scorer:[A-Za-z0-9_.-]+)$/, 'expected "passRate", "efficiency" or "scorer:NAME"'), z.number().min(0))
              .refine((w) => Object.values(w).some((v) => v > 0), { message: 'at least one weight must be above 0' }),
          })
          .strict()
          .optional()
          .describe('A weighted score over named sub-scores, shown per release and used only to break a tie (an efficiency release), never as the gate.'),
      })
      .strict()
      .default({}),
    command: z
      .object({
        passEnv: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
          .default([])
          .describe('Environment variables a `command` blueprint receives; nothing else is passed.'),
      })
      .strict()
      .default({ passEnv: [] }),
    secrets: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
      .default([])
      .describe(
        'Environment variables whose values are secrets, whatever their names: redacted from everything agentdevel writes or prints (every `command.passEnv` value is too). Values under 4 characters are not redacted.',
      ),
  })
  .strict();

export type Config = z.output<typeof configSchema>;
