// The title a release candidate's report carries, by what became of it (the outcome union is
// declared once, in domain/decision.ts). Kept apart from artifacts.ts (the templates of a
// promotion), so `report` loads neither Handlebars nor them.
import type { ReleaseOutcome } from '../../domain/decision.ts';

/**
 * A report's title. A recorded decision is an iteration of the line; a dry gate (`gate` without
 * --promote, recorded nowhere) is not, and is titled by its candidate alone.
 */
export function reportTitle(
  evidence: { readonly outcome: ReleaseOutcome | 'declined'; readonly release: string | null; readonly iteration: number; readonly candidate: { readonly ref: string; readonly commit: string } },
  recorded = true,
): string {
  if (!recorded) return `Gate: ${evidence.candidate.ref} (${evidence.candidate.commit.slice(0, 10)}) ${evidence.outcome} (dry gate: nothing recorded)`;
  switch (evidence.outcome) {
    case 'promoted':
      return `Release ${evidence.release}`;
    case 'pending':
      return `Release candidate for ${evidence.release}, awaiting approval (iteration ${evidence.iteration})`;
    case 'accepted':
      return `Gate: ${evidence.candidate.ref} accepted (not promoted)`;
    case 'declined':
      return `Declined release candidate (${evidence.candidate.ref}, iteration ${evidence.iteration})`;
    case 'rejected':
      return `Rejected release candidate (${evidence.candidate.ref}, iteration ${evidence.iteration})`;
    default: {
      const exhaustive: never = evidence.outcome;
      return exhaustive;
    }
  }
}
