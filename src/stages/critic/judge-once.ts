// Judge once: a critic verdict is kept by what it depends on (the trace as the critic sees it,
// the scorer result, the rubric, the requirements and the model), so an identical trace is not
// sent again within a workspace. Confirmation trials of a deterministic agent, and cases a split
// keeps across iterations, cost no second call.
//
// The taxonomy is not in the key: it grows every iteration, and keying on it re-judged 77% of the
// demo's traces for nothing. What the verdict takes from the taxonomy is its label, so a kept
// verdict is used while its label is still one the taxonomy offers (a label coined by a verdict
// joins the taxonomy; "ok" and the unexplained-failure label are always offered); a label merged
// away since asks again, so the new verdict speaks the vocabulary as it now stands. A label coined later that would fit the same trace as well is a synonym of the one
// kept, and synonyms are the diagnostician's label merges to resolve: re-judging would only
// relabel identical behaviour, which the gate's hit rate would read as a change.
import { createHash } from 'node:crypto';
import { zeroUsage, type CriticRequest, type ModelPort, type WithUsage } from '../../domain/ports/model.ts';
import type { CriticVerdict } from '../../domain/record.ts';
import { UNEXPLAINED_FAILURE_LABEL } from '../../domain/symptoms.ts';
import { criticView } from '../../domain/trace.ts';

/** Where verdicts are kept (the store). */
export interface VerdictCache {
  criticVerdict(key: string): CriticVerdict | null;
  saveCriticVerdict(key: string, verdict: CriticVerdict): void;
}

/** Bumped when what the critic is sent changes in a way the request's fields do not show. */
const KEY_VERSION = 2;

export function criticVerdictKey(request: CriticRequest): string {
  const content = {
    version: KEY_VERSION,
    model: request.model,
    rubric: request.rubric,
    trace: criticView(request.trace),
    scorer: request.scorer,
    requirements: (request.requirements ?? []).map((r) => ({ id: r.id, text: r.text })),
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** Whether a kept verdict's label is one the critic could give for this request: "ok", the unexplained failure's, or a label of its taxonomy. */
export function labelStillOffered(verdict: CriticVerdict, request: Pick<CriticRequest, 'taxonomy'>): boolean {
  return verdict.label === 'ok' || verdict.label === UNEXPLAINED_FAILURE_LABEL || request.taxonomy.some((s) => s.label === verdict.label);
}

export interface JudgeOnce {
  /** The model port with its critic answering each content once. */
  readonly model: ModelPort;
  /** Critic calls not made since the last take (for the cost ledger). */
  takeReused(): number;
}

/**
 * Wraps a model port so identical critic requests are answered from the cache, including
 * requests in flight at the same time (concurrent trials of one deterministic agent). A failed
 * call is not kept: the next identical request asks again.
 */
export function judgeOnce(model: ModelPort, cache: VerdictCache): JudgeOnce {
  const inFlight = new Map<string, Promise<WithUsage<CriticVerdict>>>();
  let reused = 0;
  const criticize = async (request: CriticRequest): Promise<WithUsage<CriticVerdict>> => {
    const key = criticVerdictKey(request);
    const kept = cache.criticVerdict(key);
    if (kept && labelStillOffered(kept, request)) {
      reused += 1;
      return { value: kept, usage: zeroUsage };
    }
    const pending = inFlight.get(key);
    if (pending) {
      // Asked at the same moment: a label the pending answer coins is as new to this request as to that one.
      const answer = await pending;
      reused += 1;
      return { value: answer.value, usage: zeroUsage };
    }
    const call = model.criticize(request);
    inFlight.set(key, call);
    try {
      const answer = await call;
      cache.saveCriticVerdict(key, answer.value);
      return answer;
    } finally {
      inFlight.delete(key);
    }
  };
  return {
    model: { ...model, criticize },
    takeReused: () => {
      const taken = reused;
      reused = 0;
      return taken;
    },
  };
}
