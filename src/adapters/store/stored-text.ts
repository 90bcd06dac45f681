// How the store writes free text and JSON, shared by its tables.
import { makeRedactor, redactStrings } from '../../domain/environment.ts';

export const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
export const parse = <T>(text: unknown): T | null => (typeof text === 'string' ? (JSON.parse(text) as T) : null);

/**
 * The store is a file users copy, attach to bug reports and cache in CI, so every free text it
 * writes (what an agent, a scorer, a critic, a check or a model said: records, a critic verdict
 * kept for reuse, a label's definition, a decision's reasons and intent) is redacted here, by
 * value, whichever way it came: every secret this process knows (declared: the command's
 * environment, passEnv values, the workspace's `secrets`) and URL passwords. Identifiers (run
 * ids, commits, digests, keys) are written as they are: a short declared value such as a port
 * could occur in one, and a lookup must find what was written.
 */
export const redactText = makeRedactor([]);
export const text = (value: string | null): string | null => (value === null ? null : redactText(value));
export const redactedJson = (value: unknown): string | null => json(redactStrings(value, redactText));

/** The store's clock, as the text its rows keep. */
export type Now = () => string;
