// Judge once: a critic verdict is kept by the content it judged (what the critic is sent: the
// trace as it sees it, the scorer result, the rubric, the requirements, the taxonomy and the
// model), so an identical trace is not sent again within a workspace. Confirmation trials of a
// deterministic agent, and cases a split keeps across iterations, cost no second call.
import { createHash } from 'node:crypto';
import { zeroUsage, type CriticRequest, type ModelPort, type WithUsage } from '../../domain/ports/model.ts';
import type { CriticVerdict } from '../../domain/record.ts';
import { criticView } from '../../domain/trace.ts';

/** Where verdicts are kept (the store). */
export interface VerdictCache {
  criticVerdict(key: string): CriticVerdict | null;
  saveCriticVerdict(key: string, verdict: CriticVerdict): void;
}

/** Bumped when what the critic is sent changes in a way the request's fields do not show. */
const KEY_VERSION = 1;

export function criticVerdictKey(request: CriticRequest): string {
  const content = {
    version: KEY_VERSION,
    model: request.model,
    rubric: request.rubric,
    trace: criticView(request.trace),
    scorer: request.scorer,
    taxonomy: request.taxonomy,
    requirements: (request.requirements ?? []).map((r) => ({ id: r.id, text: r.text })),
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
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
    if (kept) {
      reused += 1;
      return { value: kept, usage: zeroUsage };
    }
    const pending = inFlight.get(key);
    if (pending) {
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
