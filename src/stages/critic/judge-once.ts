// Judge once: a critic verdict is kept by what it depends on (the trace as the critic sees it,
// the scorer result, the rubric, the requirements and the critic's model; KEY_VERSION stands for
// the critic's prompt), so an identical trace is not sent again.
//
// The taxonomy is not in the key: it grows every iteration (and wave by wave within a run), and
// keying on it re-judged 77% of the demo's traces for nothing. What a verdict takes from the
// taxonomy is its label, so a kept verdict is reused while its label is still one the request
// offers: "ok", the unexplained failure's, a label of the taxonomy, or one an alias maps onto
// one. A label coined later that would fit the same trace as well is a synonym of the kept one,
// which the diagnostician's label merges resolve; judging again would only relabel identical
// behaviour, which the gate would read as a change.
//
// Which kept verdicts may be reused must not depend on this machine's store, or a replay in a
// fresh clone would send requests the recording never sent (git is the record, the store a
// cache). So a verdict is reused when the line records it (a runs.json the line committed names
// its key; a fresh clone reads the same ones) or when it was given in the same scope (this
// command's iteration, which a replay of that iteration runs again): never a verdict of an
// ad-hoc run, of a rejected candidate or of an earlier command that git does not hold.
import { createHash } from 'node:crypto';
import { zeroUsage, type CriticRequest, type ModelPort, type WithUsage } from '../../domain/ports/model.ts';
import type { VerdictMemo } from '../../domain/ports/record-store.ts';
import type { CriticVerdict } from '../../domain/record.ts';
import { UNEXPLAINED_FAILURE_LABEL } from '../../domain/symptoms.ts';
import { criticView } from '../../domain/trace.ts';

/** Where verdicts are kept (the store). */
export interface VerdictCache extends Pick<VerdictMemo, 'keptVerdict' | 'saveCriticVerdict'> {
  /** A label read through the vocabulary's aliases. */
  canonicalLabel(label: string): string;
}

/** Bumped when what the critic is sent (its prompt) changes in a way the request's fields do not show (test/unit/critic-verdict-key.test.ts pins the prompt it stands for). */
export const KEY_VERSION = 2;

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

/** Whether a kept verdict's label is one the critic could give to this request: "ok", the unexplained failure's, or a label of its taxonomy (directly or through an alias). */
export function labelStillOffered(verdict: CriticVerdict, request: Pick<CriticRequest, 'taxonomy'>, canonical: (label: string) => string): boolean {
  if (verdict.label === 'ok' || verdict.label === UNEXPLAINED_FAILURE_LABEL) return true;
  const offered = new Set(request.taxonomy.map((s) => s.label));
  return offered.has(verdict.label) || offered.has(canonical(verdict.label));
}

/** Critic requests being answered, by scope and key: runs in flight at once (a gate's two sides) share one, so timing never decides whether an identical request is sent twice. */
export type VerdictsInFlight = Map<string, Promise<WithUsage<CriticVerdict>>>;

export interface JudgeOnce {
  /** The model port with its critic answering each content once. */
  readonly model: ModelPort;
  /** Critic calls not made since the last take (for the cost ledger). */
  takeReused(): number;
}

/**
 * Wraps a model port so identical critic requests are answered from the cache, including
 * requests in flight at the same time (concurrent trials of one deterministic agent). A failed
 * call is not kept: the next identical request asks again. `scope` names the work a kept verdict
 * of this store may be reused within (see above); `inFlight` is shared by the runs of a command.
 */
export function judgeOnce(model: ModelPort, cache: VerdictCache, scope: string, inFlight: VerdictsInFlight = new Map()): JudgeOnce {
  let reused = 0;
  const criticize = async (request: CriticRequest): Promise<WithUsage<CriticVerdict>> => {
    const key = criticVerdictKey(request);
    const flying = `${scope}\u0000${key}`;
    const kept = cache.keptVerdict(key);
    // Given in this scope: reused whatever label it coined (an identical request in flight would be
    // too, so timing never decides). From the line: reused while the taxonomy still offers its label.
    if (kept && (kept.scope === scope || (kept.onLine && labelStillOffered(kept.verdict, request, (label) => cache.canonicalLabel(label))))) {
      reused += 1;
      return { value: kept.verdict, usage: zeroUsage };
    }
    const pending = inFlight.get(flying);
    if (pending) {
      // Asked at the same moment: a label the pending answer coins is as new to this request as to that one.
      const answer = await pending;
      reused += 1;
      return { value: answer.value, usage: zeroUsage };
    }
    const call = model.criticize(request);
    inFlight.set(flying, call);
    try {
      const answer = await call;
      cache.saveCriticVerdict(key, answer.value, scope);
      return answer;
    } finally {
      inFlight.delete(flying);
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
