import { z } from './zod.ts';

/**
 * What every model role is told about when and where it works: today's date (a rubric may say
 * "within 30 days") and the runtime that runs diagnosis scripts and tool wrappers (a script
 * that calls a built-in this Node lacks fails in the sandbox). Nothing here comes from the
 * blueprint, so the critic may see it.
 */
export const roleFactsSchema = z.object({
  /** YYYY-MM-DD (UTC), from the injected clock; under --replay, the date the cassette was recorded on. */
  today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** The Node.js version, as process.version spells it. */
  node: z.string(),
  /** Newer JavaScript built-ins this runtime has, and those it lacks. */
  builtins: z.object({ available: z.array(z.string()), missing: z.array(z.string()) }),
});
export type RoleFacts = z.infer<typeof roleFactsSchema>;

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
