// A run whose every case-trial failed for infrastructure reasons: invalid answers and outages
// mixed are both counted, and the code follows the cause that dominated.
import { describe, expect, it } from 'vitest';
import { StructuredOutputError } from '../../src/domain/ports/model.ts';
import { failedRunError, unsealedTestError } from '../../src/pipeline/run/failed-run.ts';

const answer = new StructuredOutputError('critic', 'invalid', '{"label": "Looks Fine!"}', 'label: a symptom label is snake_case');
const outage = 'critic: the model API refused the critic\'s request (400)';

describe('failedRunError', () => {
  it.each([
    { name: 'all invalid', invalid: 16, outages: 0, code: 'MODEL_OUTPUT_INVALID', message: /invalid after its repair on all 16$/, hint: /broke this rule: label/ },
    { name: 'invalid dominate', invalid: 12, outages: 4, code: 'MODEL_OUTPUT_INVALID', message: /invalid after its repair on 12 of 16, and 4 for infrastructure reasons \(first: critic: the model API refused/, hint: /broke this rule.*The other 4 could not reach the model API/ },
    { name: 'outages dominate', invalid: 4, outages: 12, code: 'MODEL_UNAVAILABLE', message: /failed: 12 for infrastructure reasons \(first: .*\), and 4 because the critic's answer was invalid after its repair/, hint: /could not be reached.*The other 4: The critic's answer broke this rule/ },
    { name: 'a tie', invalid: 8, outages: 8, code: 'MODEL_UNAVAILABLE', message: /8 for infrastructure reasons .*, and 8 because/, hint: /The other 8/ },
    { name: 'outages only', invalid: 0, outages: 16, code: 'MODEL_UNAVAILABLE', message: /failed for infrastructure reasons: critic: the model API refused/, hint: /could not be reached/ },
  ])('$name: $code', ({ invalid, outages, code, message, hint }) => {
    const error = failedRunError({ runId: 'run-1', caseTrials: invalid + outages, invalid: { count: invalid, first: invalid > 0 ? answer : null }, firstOutage: outages > 0 ? outage : null });
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(hint);
  });

  it('counts invalid answers apart in an unrecorded test evaluation too', () => {
    const mostlyInvalid = unsealedTestError({ infraErrors: 5, invalid: { count: 4, first: answer }, firstOutage: outage });
    expect(mostlyInvalid.code).toBe('MODEL_OUTPUT_INVALID');
    expect(mostlyInvalid.message).toBe("5 test case-trials had infrastructure errors (1 for infrastructure reasons, first: critic: the model API refused the critic's request (400); 4 because the critic's answer was invalid after its repair); the test evaluation was not recorded");
    expect(unsealedTestError({ infraErrors: 2, invalid: { count: 0, first: null }, firstOutage: outage })).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: '2 test case-trials had infrastructure errors; the test evaluation was not recorded' });
  });
});
