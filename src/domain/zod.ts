// The one module that imports zod (house rule 6). Every schema in agentdevel is built from
// this `z`, so a zod upgrade or a behaviour pin happens here and nowhere else.
export { z } from 'zod';
export type { ZodType, ZodError } from 'zod';
