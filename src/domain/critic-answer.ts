// What the critic is asked for, as a schema it can satisfy by reading the schema alone. Where a
// scorer decided, there is no "pass" to give (the code would refuse any that disagreed); the
// requirement ids are an enum with exactly one verdict each; a label that must not be "ok" says
// so in its pattern. The two rules JSON Schema cannot say (a requirement judged twice, and "ok"
// exactly when the case passes where that depends on other fields) are checked here and stated
// in the critic's prompt.
import { PASSING_LABEL, scorerDecides, type CriticVerdict, type ScorerResult } from './record.ts';
import { z } from './zod.ts';

const SNAKE = '[a-z][a-z0-9_]{1,63}';
const LABEL_RULE = 'a symptom label is snake_case, 2 to 64 characters';

const description = z.string().max(300).describe('One line on what went wrong on the surface (or, for a passing case, what the agent did). No causes, no fixes.');

export interface CriticAnswerShape {
  /** Whether the answer carries a "pass" (only where no scorer decided). */
  readonly asksPass: boolean;
  /** The label is fixed to "ok" (a scorer passed the case and nothing else can fail it). */
  readonly labelIsOk: boolean;
  /** The label may not be "ok" (a scorer failed the case). */
  readonly labelNotOk: boolean;
}

/** Which of the critic's answer fields the schema asks for, and how the label is bounded. */
export function criticAnswerShape(scorer: ScorerResult | null, requirements: readonly string[]): CriticAnswerShape {
  const decided = scorerDecides(scorer);
  return {
    asksPass: !decided,
    labelIsOk: decided && scorer.pass && requirements.length === 0,
    labelNotOk: decided && !scorer.pass,
  };
}

/**
 * The critic's tool schema for one case-trial: it parses the answer and yields the verdict the
 * record keeps, with "pass" taken from the scorer where the scorer decided.
 */
export function criticAnswerSchema(scorer: ScorerResult | null, requirements: readonly string[] = []): z.ZodType<CriticVerdict> {
  const shape = criticAnswerShape(scorer, requirements);
  const label = shape.labelIsOk
    ? z.literal(PASSING_LABEL).describe(`The scorer passed this case: the label is "${PASSING_LABEL}".`)
    : shape.labelNotOk
      ? z
          .string()
          .regex(new RegExp(`^(?!${PASSING_LABEL}$)${SNAKE}$`), `${LABEL_RULE}, and not "${PASSING_LABEL}" (the scorer failed this case)`)
          .describe('The visible symptom, snake_case: a taxonomy label when one fits. Never "ok": the scorer failed this case.')
      : z.string().regex(new RegExp(`^${SNAKE}$`), LABEL_RULE).describe(`"${PASSING_LABEL}" exactly when the case passes; otherwise the visible symptom, snake_case (a taxonomy label when one fits).`);
  const verdicts =
    requirements.length === 0
      ? null
      : z
          .array(
            z.object({
              id: z.enum(requirements as [string, ...string[]]),
              pass: z.boolean(),
              reason: z.string().max(300).describe('One line from the trace.'),
            }),
          )
          .min(requirements.length)
          .max(requirements.length)
          .describe(`Exactly one verdict for each requirement: ${requirements.join(', ')}.`);
  const answer = z
    .object({
      ...(shape.asksPass ? { pass: z.boolean().describe('Whether the case passes, judged from the rubric (no scorer decided it).') } : {}),
      label,
      description,
      ...(verdicts ? { requirements: verdicts } : {}),
    });
  // Not strict: a "pass" the critic volunteers where the scorer decided is ignored, never refused.
  return answer
    .transform((given): CriticVerdict => {
      const judged = (given as { requirements?: CriticVerdict['requirements'] }).requirements;
      const pass = shape.asksPass ? (given as { pass: boolean }).pass : Boolean(scorer?.pass) && (judged ?? []).every((r) => r.pass);
      return { pass, label: given.label, description: given.description, ...(judged ? { requirements: judged } : {}) };
    })
    .superRefine((verdict, context) => {
      for (const id of requirements) {
        if ((verdict.requirements ?? []).filter((r) => r.id === id).length !== 1) context.addIssue({ code: 'custom', path: ['requirements'], message: `give exactly one verdict for the requirement "${id}"` });
      }
      if (verdict.pass && verdict.label !== PASSING_LABEL) {
        const why = shape.asksPass ? 'you passed it' : 'the scorer passed it and every requirement you judged holds';
        context.addIssue({ code: 'custom', path: ['label'], message: `the case passes (${why}): its label is "${PASSING_LABEL}"` });
      }
      if (!verdict.pass && verdict.label === PASSING_LABEL) {
        const why = shape.asksPass ? 'you failed it' : scorer?.pass ? 'a requirement you judged fails' : 'the scorer failed it';
        context.addIssue({ code: 'custom', path: ['label'], message: `the case fails (${why}): it needs a symptom label, not "${PASSING_LABEL}"` });
      }
    }) as unknown as z.ZodType<CriticVerdict>;
}
