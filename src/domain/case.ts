import { z } from './zod.ts';

/** One example of a split. Only `id` is fixed; the rest belongs to the task and its runtime. */
export const caseSchema = z
  .object({
    id: z.string().min(1, 'a case needs a non-empty string "id"'),
  })
  .passthrough();

export type Case = z.infer<typeof caseSchema> & Record<string, unknown>;

export const splitNames = ['train', 'test'] as const;
export type Split = (typeof splitNames)[number];
