// Why a run in which every case-trial failed for infrastructure reasons failed, as one error.
// Two different causes end there: the model API could not be reached (an outage), or it
// answered, but the critic's answer stayed invalid after its repair. They need different fixes,
// so the error names both counts and takes its code from the cause that dominated.
import { AgentdevelError, catalogueHint } from '../../domain/errors.ts';
import { invalidOutputHint, type StructuredOutputError } from '../../domain/ports/model.ts';

export interface FailedRunEvidence {
  readonly runId: string;
  /** Case-trials of the run (all of them infrastructure errors). */
  readonly caseTrials: number;
  /** Case-trials whose critic answer stayed invalid after its repair, and the first such answer. */
  readonly invalid: { readonly count: number; readonly first: StructuredOutputError | null };
  /** The first outage's error (an infrastructure failure that was not an invalid answer), or null. */
  readonly firstOutage: string | null;
}

/**
 * MODEL_OUTPUT_INVALID when invalid answers are the majority, MODEL_UNAVAILABLE otherwise (a tie
 * included: part of the API was not reachable); the message gives both counts whenever both
 * causes occurred, and the hint says what to do about each.
 */
export function failedRunError(evidence: FailedRunEvidence): AgentdevelError {
  const { runId, caseTrials, invalid } = evidence;
  const outages = caseTrials - invalid.count;
  const first = invalid.first;
  const outageText = `${outages} for infrastructure reasons (first: ${evidence.firstOutage ?? 'unknown'})`;
  if (first && invalid.count > outages) {
    const invalidText = `the ${first.role}'s answer was invalid after its repair on ${outages === 0 ? 'all ' : ''}${invalid.count}${outages === 0 ? '' : ` of ${caseTrials}`}`;
    return new AgentdevelError('MODEL_OUTPUT_INVALID', `every case-trial of run ${runId} failed: ${invalidText}${outages === 0 ? '' : `, and ${outageText}`}`, {
      cause: first,
      hint: invalidOutputHint(first) + (outages === 0 ? '' : ` The other ${outages} could not reach the model API: ${catalogueHint('MODEL_UNAVAILABLE')}`),
    });
  }
  if (first) {
    return new AgentdevelError(
      'MODEL_UNAVAILABLE',
      `every case-trial of run ${runId} failed: ${outageText}, and ${invalid.count} because the ${first.role}'s answer was invalid after its repair`,
      { cause: first, hint: `${catalogueHint('MODEL_UNAVAILABLE')} The other ${invalid.count}: ${invalidOutputHint(first)}` },
    );
  }
  return new AgentdevelError('MODEL_UNAVAILABLE', `every case-trial of run ${runId} failed for infrastructure reasons: ${evidence.firstOutage ?? ''}`);
}

/**
 * A test-split evaluation with infrastructure errors is not recorded (it can be run again). Its
 * error, too, counts the answers that stayed invalid apart from the outages, and takes its code
 * from the cause that dominated.
 */
export function unsealedTestError(evidence: { readonly infraErrors: number; readonly invalid: FailedRunEvidence['invalid']; readonly firstOutage: string | null }): AgentdevelError {
  const { infraErrors, invalid } = evidence;
  const outages = infraErrors - invalid.count;
  const first = invalid.first;
  const why = first && invalid.count > 0 ? ` (${outages} for infrastructure reasons${outages > 0 ? `, first: ${evidence.firstOutage ?? 'unknown'}` : ''}; ${invalid.count} because the ${first.role}'s answer was invalid after its repair)` : '';
  const message = `${infraErrors} test case-trials had infrastructure errors${why}; the test evaluation was not recorded`;
  if (first && invalid.count > outages) return new AgentdevelError('MODEL_OUTPUT_INVALID', message, { cause: first, hint: invalidOutputHint(first) });
  return new AgentdevelError('MODEL_UNAVAILABLE', message, first ? { cause: first, hint: `${catalogueHint('MODEL_UNAVAILABLE')} The other ${invalid.count}: ${invalidOutputHint(first)}` } : {});
}
