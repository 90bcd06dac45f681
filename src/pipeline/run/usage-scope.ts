// Which iteration, run and activity the model calls made while some work runs are charged to in
// the cost ledger. A scope is an immutable value, bound for the extent of one piece of work
// (`chargedTo`); work started inside it (awaited calls, parallel case-trials, the queue's
// results) reads it back with `currentScope`, and nothing can change it under them: two runs in
// flight at once (a gate's baseline and candidate sides) each charge their own run.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LedgerScope } from '../../domain/ports/record-store.ts';

const NO_SCOPE: LedgerScope = { iteration: null, runId: null, activity: null };
const bound = new AsyncLocalStorage<LedgerScope>();

/** The scope model calls made here are charged to: the innermost `chargedTo`, else none. */
export function currentScope(): LedgerScope {
  return bound.getStore() ?? NO_SCOPE;
}

/** Runs `work` with the current scope changed by `change` (the rest kept). */
export function chargedTo<T>(change: Partial<LedgerScope>, work: () => Promise<T>): Promise<T> {
  return bound.run({ ...currentScope(), ...change }, work);
}
