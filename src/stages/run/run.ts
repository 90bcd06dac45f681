import type { Case } from '../../domain/case.ts';
import { caseSummarizer, passRateOf, runCounts, type CaseSummary, type RunCounts } from '../../domain/case-summary.ts';
import { InfraError, StructuredOutputError, type CriticRequest, type ModelPort, type SymptomEntry } from '../../domain/ports/model.ts';
import { criticVerdictKey } from '../critic/judge-once.ts';
import type { Reporter } from '../../domain/ports/reporter.ts';
import { finalPass, scorerDecides, type CaseRecord, type CriticPolicy, type CriticVerdict, type ScorerResult } from '../../domain/record.ts';
import { criticJudged, type Requirement } from '../../domain/requirements.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { agentErrorTally } from './agent-errors.ts';
import { addLabelEvidence, caseTrialFeatures, labelDefinition, type LabelEvidence } from '../../domain/label-definition.ts';
import type { Redactor } from '../../domain/environment.ts';
import type { CaseOutcome, Runtime } from '../../domain/ports/runtime.ts';
import type { ScorerConfig } from '../../domain/task-manifest.ts';
import { score, ScorerCrash, type ScoreDeps, type ScorerInput } from '../score/scorers.ts';
import type { ScorerScriptRunner } from '../../domain/ports/scorer-scripts.ts';
import { liveTaxonomy } from './live-taxonomy.ts';
import { eachPool } from './pool.ts';
import { recordTrace } from '../../domain/trace-lines.ts';
import type { RunTraces } from '../../domain/ports/run-traces.ts';
import type { CaseTrialTurns } from '../../domain/ports/case-trial-turns.ts';

export interface RunInput {
  readonly runId: string;
  readonly label: string;
  readonly cases: readonly Case[];
  readonly trials: number;
  /** Number of the first trial (confirmation and calibration runs continue after earlier trials). */
  readonly firstTrial?: number;
  readonly concurrency: number;
  readonly rubric: string;
  /** The rubric's task-wide requirements; a case may add its own. */
  readonly requirements?: readonly Requirement[];
  readonly scorers: readonly ScorerConfig[];
  readonly taskRoot: string;
  /** The environment scorer scripts run in: only what a child may see of agentdevel's own. */
  readonly scriptEnvironment: Readonly<Record<string, string>>;
  readonly criticModel: string;
  /** Which case-trials the critic grades ("failing": only those a scorer failed; "off": none, scorers decide). */
  readonly criticPolicy: CriticPolicy;
  /** Whether new symptom labels join the taxonomy (never from the sealed test split). */
  readonly growTaxonomy: boolean;
  /** Case-trials already graded by a run of the same key that the budget stopped: taken as they are, not run again. */
  readonly resumed?: readonly CaseRecord[];
}

export interface NewSymptom {
  readonly label: string;
  readonly description: string;
}

export interface RecordSink {
  /** Saves records and the symptoms they brought, in order, as one transaction. */
  saveRecords(runId: string, records: readonly CaseRecord[], symptoms: readonly NewSymptom[]): void;
  taxonomy(): SymptomEntry[];
}

export interface RunDeps {
  readonly runtime: Runtime;
  readonly model: ModelPort;
  readonly store: RecordSink;
  /** Where the run's traces are written (one block per case-trial). */
  readonly traces: RunTraces;
  /** Runs the task's scorer scripts. */
  readonly scorerScripts: ScorerScriptRunner;
  readonly reporter: Reporter;
  readonly redact: Redactor;
  /** The command's spend budget: once it refused a request, no case-trial starts, and none it cut short is graded. */
  readonly budget?: { reached(): boolean; refusals(): number };
  /** When each case-trial may start (the gate's confirmation pairs the two versions' trials); at once when absent. */
  readonly turns?: CaseTrialTurns;
}

/** What a run leaves in memory: per-case pass counts and totals, never its records or traces. */
export interface RunTally {
  readonly cases: Map<string, CaseSummary>;
  readonly counts: RunCounts;
  /** The error of the first infrastructure failure, to say why when every case-trial had one. */
  readonly firstInfraError: string | null;
  /** The error of the first outage: an infrastructure failure other than an answer that stayed invalid. */
  readonly firstOutage: string | null;
  /** A loud warning when one kind of agent error dominates the run (see agent-errors), or null. */
  readonly agentErrorAlarm: string | null;
  /** Critic calls the critic policy spared (for the cost ledger). */
  readonly criticSpared: number;
  /** Case-trials whose critic answer stayed invalid after its repair, and the first such answer. */
  readonly invalidOutputs: { readonly count: number; readonly first: StructuredOutputError | null };
  /** Case-trials the budget stopped: not started, or cut short (no record: neither a fail nor an error). */
  readonly cutByBudget: number;
}

/**
 * Runs every case `trials` times with bounded concurrency and grades each case-trial:
 * scorers first, then the critic, then the final pass (paper eq. 6). Records stream to the
 * store in batches and traces to the run's segments as they finish; the run keeps only the
 * per-case counts. Infrastructure failures become `infra_error` records, never fails.
 */
export async function runCases(input: RunInput, deps: RunDeps): Promise<RunTally> {
  const first = input.firstTrial ?? 0;
  const total = input.cases.length * input.trials;
  deps.reporter.emit({ type: 'run.started', runId: input.runId, label: input.label, total });
  const taxonomy = deps.store.taxonomy();
  // Labels coined in this run reach its later critic requests, wave by wave (never on the sealed test split, which coins none).
  const live = input.growTaxonomy ? liveTaxonomy(taxonomy, total) : null;
  const summarizer = caseSummarizer(input.cases.map((c) => c.id));
  const batch = recordBatch(input.runId, deps.store);
  const order = new Map(input.cases.map((c, i) => [c.id, i * input.trials]));
  // Labels the critic coins in this run, each with what its cases show: its definition is written from that.
  const shown = new Set(taxonomy.map((entry) => entry.label));
  const newSymptoms = new Map<string, LabelEvidence>();
  const agentErrors = agentErrorTally();
  const firstInfra: { at: number; error: string | null } = { at: Number.POSITIVE_INFINITY, error: null };
  const firstOutage: { at: number; error: string | null } = { at: Number.POSITIVE_INFINITY, error: null };
  let spared = 0;
  // An answer that stays invalid is an infra_error record too, but not an outage: it is counted apart.
  const invalid: { count: number; first: StructuredOutputError | null } = { count: 0, first: null };
  /** The model port of one case-trial: it sends the live taxonomy at its position, and notes whether its critic answer stayed invalid. */
  const watched = (seen: { invalid: boolean }, position: number): ModelPort => ({
    ...deps.model,
    criticize: async (request) => {
      try {
        if (!live) return await deps.model.criticize(request);
        await live.ready(position);
        return await deps.model.criticize({ ...request, taxonomy: live.taxonomyFor(position) });
      } catch (error) {
        if (error instanceof StructuredOutputError) {
          seen.invalid = true;
          invalid.count += 1;
          invalid.first ??= error;
        }
        throw error;
      }
    },
  });
  let cutByBudget = 0;
  // A stopped run's graded case-trials count as they were recorded (their traces stay where they were written).
  const resumed = new Map((input.resumed ?? []).filter((r) => r.status === 'ok').map((r) => [`${r.caseId}\u0000${r.trial}`, r]));
  for (const record of resumed.values()) {
    batch.add(record, null);
    summarizer.add(record);
  }
  try {
    await eachPool(caseTrials(input.cases, input.trials, first), input.concurrency, async ({ testCase, trial }) => {
      const position = (order.get(testCase.id) ?? 0) + (trial - first);
      const resumedRecord = resumed.get(`${testCase.id}\u0000${trial}`);
      if (resumedRecord) {
        // Counted above; the live taxonomy's waves still see it graded, with the label it coined.
        const verdict = resumedRecord.critic;
        live?.graded(position, verdict && !verdict.pass && !shown.has(verdict.label) ? { label: verdict.label, description: verdict.description } : null);
        return;
      }
      // Past the budget nothing starts: a case-trial not run is no record at all, never a fail.
      if (deps.budget?.reached()) {
        cutByBudget += 1;
        live?.graded(position, null);
        return;
      }
      // The turn covers the agent and its grading (the critic is a model of the same provider).
      const endTurn = deps.turns ? await deps.turns.take() : null;
      const refusedBefore = deps.budget?.refusals() ?? 0;
      let execution: CaseTrialExecution;
      let record: CaseRecord;
      const seen = { invalid: false };
      try {
        execution = await executeCaseTrial(testCase, trial, deps);
        const graded: GradedCaseTrial = await gradeCaseTrial(execution, testCase, input, watched(seen, position), taxonomy, { scripts: deps.scorerScripts });
        const traceRef = await deps.traces.append(execution.lines);
        // Secrets are redacted from the whole record (the agent's output, scorer and critic
        // messages) before it reaches the store, the diagnosis, a report or a later critic request.
        record = redactRecord({ ...graded, traceRef }, deps.redact);
      } catch (error) {
        // The pool takes no more case-trials after a failure: a later wave must not wait for them.
        live?.abandon();
        throw error;
      } finally {
        endTurn?.();
      }
      // A request refused while this case-trial ran may have cut it short (an agent that gives up
      // on an error, a critic skipped): its grade would be the budget's, not the agent's.
      if ((deps.budget?.refusals() ?? 0) > refusedBefore) {
        cutByBudget += 1;
        live?.graded(position, null);
        return;
      }
      const verdict = record.critic;
      live?.graded(position, verdict && !verdict.pass && !shown.has(verdict.label) ? { label: verdict.label, description: verdict.description } : null);
      const at = (order.get(record.caseId) ?? 0) + (record.trial - first);
      if (input.growTaxonomy && record.critic && !record.critic.pass && !shown.has(record.critic.label)) {
        const features = caseTrialFeatures(record, execution.trace);
        newSymptoms.set(record.critic.label, addLabelEvidence(newSymptoms.get(record.critic.label), { at, caseId: record.caseId, description: record.critic.description, features }));
      }
      batch.add(record, null);
      summarizer.add(record);
      agentErrors.add(record, at);
      if (criticSpared(record, input.criticPolicy)) spared += 1;
      if (record.status === 'infra_error' && at < firstInfra.at) Object.assign(firstInfra, { at, error: record.error });
      if (record.status === 'infra_error' && !seen.invalid && at < firstOutage.at) Object.assign(firstOutage, { at, error: record.error });
      deps.reporter.emit({ type: 'case.finished', runId: input.runId, caseId: record.caseId, trial, status: record.status, pass: record.pass });
    });
  } finally {
    // What finished is kept, also when the run fails (a failed run is never reused).
    batch.flush();
  }
  // New labels join the taxonomy in case order, not in the order the critic answered, each with
  // a definition written once from what its cases share (not one case's sentence); it is in
  // later requests, so it depends on the records alone (a replay must match).
  const symptoms = [...newSymptoms].sort(([, a], [, b]) => a.first.at - b.first.at).map(([label, evidence]) => ({ label, description: labelDefinition(evidence) }));
  if (symptoms.length > 0) deps.store.saveRecords(input.runId, [], symptoms);
  const cases = summarizer.summaries();
  const counts = runCounts(cases.values());
  // A run the budget stopped has no pass rate to show: its case-trials are not all graded.
  if (cutByBudget === 0) deps.reporter.emit({ type: 'run.finished', runId: input.runId, label: input.label, passRate: passRateOf(counts), reused: false, counts });
  return { cases, counts, firstInfraError: firstInfra.error, firstOutage: firstOutage.error, agentErrorAlarm: agentErrors.alarm(input.label), criticSpared: spared, invalidOutputs: invalid, cutByBudget };
}

function* caseTrials(cases: readonly Case[], trials: number, first: number): Generator<{ testCase: Case; trial: number }> {
  for (const testCase of cases) for (let i = 0; i < trials; i += 1) yield { testCase, trial: first + i };
}

/** Records to save, written in one transaction per batch (one insert per record is the slow part). */
const BATCH_RECORDS = 256;
/** A batch is also written after this long, so a slow run (a real model) keeps its records as it goes. */
const BATCH_MS = 1000;

function recordBatch(runId: string, sink: RecordSink) {
  let records: CaseRecord[] = [];
  let symptoms: NewSymptom[] = [];
  // Monotonic time only decides when to write, never what: no output depends on it.
  let since = performance.now();
  const flush = () => {
    if (records.length > 0 || symptoms.length > 0) sink.saveRecords(runId, records, symptoms);
    records = [];
    symptoms = [];
    since = performance.now();
  };
  return {
    add(record: CaseRecord, symptom: NewSymptom | null) {
      records.push(record);
      if (symptom) symptoms.push(symptom);
      if (records.length >= BATCH_RECORDS || performance.now() - since >= BATCH_MS) flush();
    },
    flush,
  };
}

function redactRecord(record: CaseRecord, redact: Redactor): CaseRecord {
  const text = JSON.stringify(record);
  const redacted = redact(text);
  return redacted === text ? record : (JSON.parse(redacted) as CaseRecord);
}

/** One case-trial as the runtime played it: its trace, and its outcome or the outage that stopped it. */
export interface CaseTrialExecution {
  readonly caseId: string;
  readonly trial: number;
  /** The trace as written: one redacted JSON line per event. */
  readonly lines: readonly string[];
  /** The same events, as the scorers and the critic read them. */
  readonly trace: readonly TraceEvent[];
  readonly outcome: CaseOutcome | null;
  /** Set when the case-trial could not be played for infrastructure reasons (never a fail). */
  readonly infraError: string | null;
}

/** Plays one case-trial with the runtime, keeping its events in memory. Agent failures are in the trace. */
export async function executeCaseTrial(testCase: Case, trial: number, deps: { readonly runtime: Runtime; readonly redact: Redactor }): Promise<CaseTrialExecution> {
  const recorder = recordTrace(deps.redact);
  recorder.emit({ type: 'start', caseId: testCase.id, trial });
  let outcome: CaseOutcome;
  try {
    outcome = await deps.runtime.runCase(testCase, trial, recorder);
  } catch (error) {
    if (!(error instanceof InfraError)) throw error;
    recorder.emit({ type: 'error', kind: 'infra', message: deps.redact(error.message) });
    return { caseId: testCase.id, trial, lines: recorder.lines, trace: recorder.events(), outcome: null, infraError: error.message };
  }
  const trace = recorder.events();
  const reported = trace.find((e) => e.type === 'error' && e.kind === 'infra');
  const infraError = reported && reported.type === 'error' ? reported.message : null;
  return { caseId: testCase.id, trial, lines: recorder.lines, trace, outcome: infraError === null ? outcome : null, infraError };
}

/** A record before its trace is stored. */
export type GradedCaseTrial = Omit<CaseRecord, 'traceRef'>;

/** Grades a played case-trial: scorers, then the critic, then the final pass. */
export async function gradeCaseTrial(
  execution: CaseTrialExecution,
  testCase: Case,
  input: Pick<RunInput, 'rubric' | 'requirements' | 'scorers' | 'taskRoot' | 'scriptEnvironment' | 'criticModel' | 'criticPolicy'>,
  model: ModelPort,
  taxonomy: SymptomEntry[],
  scoring: ScoreDeps,
): Promise<GradedCaseTrial> {
  const base = { caseId: execution.caseId, trial: execution.trial };
  const infra = (message: string, stage: string): GradedCaseTrial => ({
    ...base,
    status: 'infra_error',
    output: null,
    scorer: null,
    critic: null,
    pass: null,
    error: `${stage}: ${message}`,
  });
  const { outcome, trace } = execution;
  if (outcome === null) return infra(execution.infraError ?? 'no outcome', 'agent');

  const agentFailure = trace.find((e) => e.type === 'error' && e.kind === 'agent');
  const agentError = agentFailure?.type === 'error' ? agentFailure.message : null;
  const scorerInput: ScorerInput = { testCase, output: outcome.output, trace: [...trace], observation: outcome.observation, taskRoot: input.taskRoot, scriptEnvironment: input.scriptEnvironment };
  let scorer: ScorerResult | null;
  try {
    scorer = await score(input.scorers, scorerInput, scoring);
  } catch (error) {
    if (error instanceof ScorerCrash) return infra(error.message, 'scorer');
    throw error;
  }

  // The case's requirements that no scorer decides are the critic's to judge.
  const judged = criticJudged(input.requirements ?? [], testCase);
  // The policy may spare the critic where the scorers decide, unless it has requirements of its
  // own to judge; "off" means no critic at all (those requirements then stay unjudged).
  // A critic not asked leaves no verdict (null), not a sentence repeated in every record; the ledger counts it.
  if (!criticAsked(input.criticPolicy, scorer) && (judged.length === 0 || input.criticPolicy === 'off')) {
    return { ...base, status: 'ok', output: outcome.output, scorer, critic: null, pass: finalPass(scorer, null), error: null, agentError };
  }
  let critic: CriticVerdict | null = null;
  const request: CriticRequest = { model: input.criticModel, rubric: input.rubric, trace: [...trace], scorer, taxonomy, ...(judged.length > 0 ? { requirements: judged } : {}) };
  try {
    critic = (await model.criticize(request)).value;
  } catch (error) {
    if (!(error instanceof InfraError)) throw error;
    // Without a deciding scorer the critic's verdict is the pass, and requirements only it
    // judges need its verdict too; without one there is no verdict.
    if (!scorerDecides(scorer) || judged.length > 0) return infra(error.message, 'critic');
  }
  // The content the verdict was given on: git records it, so a clone reuses the verdict as this workspace does.
  const verdictKey = critic ? criticVerdictKey(request) : null;
  return { ...base, status: 'ok', output: outcome.output, scorer, critic, pass: finalPass(scorer, critic), error: null, agentError, verdictKey };
}

/** Whether the policy asks the critic about a case-trial the scorers graded (without scorers it is always asked). */
export function criticAsked(policy: CriticPolicy, scorer: ScorerResult | null): boolean {
  // Scorers that only measure (a cost scorer without a threshold) leave the verdict to the critic.
  if (!scorerDecides(scorer)) return true;
  if (policy === 'off') return false;
  return policy === 'all' || !scorer.pass;
}

/** Whether the policy spared the critic a call on this record (for the cost ledger). */
export function criticSpared(record: CaseRecord, policy: CriticPolicy): boolean {
  // A critic that was asked and failed also leaves no verdict, but only where the policy asks it.
  return record.status === 'ok' && record.critic === null && !criticAsked(policy, record.scorer);
}
