import path from 'node:path';
import type { Case } from '../../domain/case.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { InfraError, type ModelPort, type SymptomEntry } from '../../domain/model-port.ts';
import type { Reporter } from '../../domain/progress.ts';
import { finalPass, scorerDecides, unaskedCriticVerdict, type CaseRecord, type CriticPolicy, type CriticVerdict, type ScorerResult } from '../../domain/record.ts';
import { criticJudged, type Requirement } from '../../domain/requirements.ts';
import type { Redactor } from '../../process/environment.ts';
import type { Runtime } from '../../blueprint/runtimes/runtime.ts';
import type { ScorerConfig } from '../../task/manifest.ts';
import { score, ScorerCrash, type ScorerInput } from '../score/scorers.ts';
import { mapPool } from './pool.ts';
import { openTraceWriter, readTrace, traceFileName } from './trace-file.ts';

export interface RunInput {
  readonly runId: string;
  readonly label: string;
  readonly cases: readonly Case[];
  readonly trials: number;
  /** Number of the first trial (confirmation and calibration runs continue after earlier trials). */
  readonly firstTrial?: number;
  readonly concurrency: number;
  /** Absolute folder of the workspace's traces/; trace refs are relative to it. */
  readonly tracesRoot: string;
  readonly rubric: string;
  /** The rubric's task-wide requirements; a case may add its own. */
  readonly requirements?: readonly Requirement[];
  readonly scorers: readonly ScorerConfig[];
  readonly taskRoot: string;
  readonly criticModel: string;
  /** Which case-trials the critic grades ("failing": only those a scorer failed; "off": none, scorers decide). */
  readonly criticPolicy: CriticPolicy;
  /** Whether new symptom labels join the taxonomy (never from the sealed test split). */
  readonly growTaxonomy: boolean;
}

export interface RecordSink {
  saveRecord(runId: string, record: CaseRecord): void;
  taxonomy(): SymptomEntry[];
  addSymptom(label: string, description: string, runId: string | null): void;
}

export interface RunDeps {
  readonly runtime: Runtime;
  readonly model: ModelPort;
  readonly store: RecordSink;
  readonly reporter: Reporter;
  readonly redact: Redactor;
}

/**
 * Runs every case `trials` times with bounded concurrency and grades each case-trial:
 * scorers first, then the critic, then the final pass (paper eq. 6). Each record is saved as
 * soon as it exists. Infrastructure failures become `infra_error` records, never fails.
 */
export async function runCases(input: RunInput, deps: RunDeps): Promise<CaseRecord[]> {
  const first = input.firstTrial ?? 0;
  const jobs = input.cases.flatMap((testCase) => Array.from({ length: input.trials }, (_, i) => ({ testCase, trial: first + i })));
  deps.reporter.emit({ type: 'run.started', runId: input.runId, label: input.label, total: jobs.length });
  const taxonomy = deps.store.taxonomy();
  const records = await mapPool(jobs, input.concurrency, async ({ testCase, trial }) => {
    // Secrets are redacted from the whole record (the agent's output, scorer and critic
    // messages) before it reaches the store, the diagnosis or a report.
    const record = redactRecord(await runOne(testCase, trial, input, deps, taxonomy), deps.redact);
    deps.store.saveRecord(input.runId, record);
    deps.reporter.emit({ type: 'case.finished', runId: input.runId, caseId: record.caseId, trial, status: record.status, pass: record.pass });
    return record;
  });
  // New labels join the taxonomy in case order, not in the order the critic answered: a label
  // keeps its first description, and that description is in later requests (a replay must match).
  if (input.growTaxonomy) {
    for (const record of records) if (record.critic && !record.critic.pass) deps.store.addSymptom(record.critic.label, record.critic.description, input.runId);
  }
  const scored = records.filter((r) => r.pass !== null);
  deps.reporter.emit({
    type: 'run.finished',
    runId: input.runId,
    label: input.label,
    passRate: scored.length === 0 ? 0 : scored.filter((r) => r.pass).length / scored.length,
    reused: false,
  });
  return records;
}

function redactRecord(record: CaseRecord, redact: Redactor): CaseRecord {
  const text = JSON.stringify(record);
  const redacted = redact(text);
  return redacted === text ? record : (JSON.parse(redacted) as CaseRecord);
}

async function runOne(testCase: Case, trial: number, input: RunInput, deps: RunDeps, taxonomy: SymptomEntry[]): Promise<CaseRecord> {
  const traceRef = path.join(input.runId, traceFileName(testCase.id, trial));
  const traceFile = path.join(input.tracesRoot, traceRef);
  const writer = openTraceWriter(traceFile, deps.redact);
  const base = { caseId: testCase.id, trial, traceRef };
  const infra = async (message: string, stage: string): Promise<CaseRecord> => ({
    ...base,
    status: 'infra_error',
    output: null,
    scorer: null,
    critic: null,
    pass: null,
    error: deps.redact(`${stage}: ${message}`),
  });

  writer.emit({ type: 'start', caseId: testCase.id, trial });
  let outcome;
  try {
    outcome = await deps.runtime.runCase(testCase, trial, writer);
  } catch (error) {
    if (!(error instanceof InfraError)) {
      await writer.close();
      throw error;
    }
    writer.emit({ type: 'error', kind: 'infra', message: deps.redact(error.message) });
    await writer.close();
    return infra(error.message, 'agent');
  }
  await writer.close();

  const trace = await readTrace(traceFile);
  if (trace === null) throw new AgentdevelError('INFRA', `${traceFile}: the trace of this case-trial disappeared as soon as it was written`);
  const reportedInfra = trace.find((e) => e.type === 'error' && e.kind === 'infra');
  if (reportedInfra && reportedInfra.type === 'error') return infra(reportedInfra.message, 'agent');

  const agentFailure = trace.find((e) => e.type === 'error' && e.kind === 'agent');
  const agentError = agentFailure?.type === 'error' ? agentFailure.message : null;
  const scorerInput: ScorerInput = { testCase, output: outcome.output, trace, observation: outcome.observation, taskRoot: input.taskRoot };
  let scorer: ScorerResult | null;
  try {
    scorer = await score(input.scorers, scorerInput);
  } catch (error) {
    if (error instanceof ScorerCrash) return infra(error.message, 'scorer');
    throw error;
  }

  // The case's requirements that no scorer decides are the critic's to judge.
  const judged = criticJudged(input.requirements ?? [], testCase);
  // The policy may spare the critic where the scorers decide, unless it has requirements of its own to judge.
  if (judged.length === 0 && !criticAsked(input.criticPolicy, scorer)) {
    const critic = scorer?.pass ? unaskedCriticVerdict(input.criticPolicy) : null;
    return { ...base, status: 'ok', output: outcome.output, scorer, critic, pass: finalPass(scorer, critic), error: null, agentError };
  }
  let critic: CriticVerdict | null = null;
  try {
    critic = (await deps.model.criticize({ model: input.criticModel, rubric: input.rubric, trace, scorer, taxonomy, ...(judged.length > 0 ? { requirements: judged } : {}) })).value;
  } catch (error) {
    if (!(error instanceof InfraError)) throw error;
    // Without a deciding scorer the critic's verdict is the pass, and requirements only it
    // judges need its verdict too; without one there is no verdict.
    if (!scorerDecides(scorer) || judged.length > 0) return infra(error.message, 'critic');
  }
  return { ...base, status: 'ok', output: outcome.output, scorer, critic, pass: finalPass(scorer, critic), error: null, agentError };
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
  if (record.status !== 'ok' || !scorerDecides(record.scorer)) return false;
  if (record.critic) return record.critic.description === unaskedCriticVerdict(policy).description;
  return policy === 'off';
}
