// Hand-built values of the domain for tests that touch no disk: case-trial records, the gate's
// policy, and the evidence a release document is written from. One builder each, so a field the
// domain adds is given its default in one place.
import { configSchema } from '../../src/config/schema.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { ComparePolicy } from '../../src/stages/gate/compare.ts';
import type { ReleaseEvidence } from '../../src/stages/release/artifacts.ts';

/**
 * One case-trial record: graded and passing or failing (`pass`), or an infrastructure error
 * (`pass: null`, no verdict). The critic's verdict follows the pass (label "ok" or "x"); trial 0,
 * no output, no scorer, unless `overrides` says otherwise.
 */
export function caseRecord(caseId: string, pass: boolean | null, overrides: Partial<CaseRecord> = {}): CaseRecord {
  return {
    caseId,
    trial: 0,
    status: pass === null ? 'infra_error' : 'ok',
    output: null,
    traceRef: '',
    scorer: null,
    critic: pass === null ? null : { pass, label: pass ? 'ok' : 'x', description: '' },
    pass,
    error: pass === null ? 'infra' : null,
    ...overrides,
  };
}

/** The default statistical gate (`policy: auto`) with the config's default thresholds, as a workspace with no gate settings gets it. */
export const AUTO_POLICY: ComparePolicy = configSchema.parse({ blueprint: 'test', task: 'test' }).gate;

/**
 * The evidence of one gated iteration, for the release documents: a rejected RC of iteration 1 of
 * blueprint "bp" with simulated roles, no cases and no diagnosis, unless `fields` says otherwise.
 * The decision is the caller's: it is what the documents are about.
 */
export function releaseEvidence(fields: Pick<ReleaseEvidence, 'decision'> & Partial<ReleaseEvidence>): ReleaseEvidence {
  return {
    iteration: 1,
    blueprint: 'bp',
    outcome: 'rejected',
    release: null,
    candidate: { ref: 'rc-1', commit: 'c'.repeat(40), tree: 'e'.repeat(40), parent: 'b'.repeat(40) },
    baseline: { commit: 'b'.repeat(40), label: 'bp/v1', runId: 'run-a', recordRunIds: ['run-a'] },
    candidateRunId: 'run-b',
    confirmationRunIds: [],
    fingerprint: null,
    intent: { targets: ['x'], rationale: 'why' },
    baselineCases: new Map(),
    candidateCases: new Map(),
    edits: [],
    cases: null,
    diagnosis: null,
    simulated: true,
    mockRoles: ['agent', 'critic'],
    models: { agent: 'mock' },
    cost: null,
    ...fields,
  };
}
