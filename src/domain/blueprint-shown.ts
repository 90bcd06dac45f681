// The one place the critic's blindness is broken on purpose: the `critic-sees-blueprint`
// ablation (paper Table 3). The blueprint travels inside the rubric text of the critic's
// request, under a heading no rubric uses, so the CriticRequest type keeps no blueprint field and
// every other setting stays blind (the canary test).
import type { BlueprintFile } from './ports/model.ts';

export const BLUEPRINT_SHOWN_HEADING = '## The agent\'s blueprint (shown to the critic by the critic-sees-blueprint ablation)';

export function rubricWithBlueprint(rubric: string, files: readonly BlueprintFile[]): string {
  const shown = files.map((f) => `### ${f.path}\n\n\`\`\`\n${f.content}\n\`\`\``).join('\n\n');
  return `${rubric.trimEnd()}\n\n${BLUEPRINT_SHOWN_HEADING}\n\n${shown}\n`;
}

/** The blueprint text a rubric carries, or null for a blind critic's rubric. */
export function blueprintShown(rubric: string): string | null {
  const at = rubric.indexOf(BLUEPRINT_SHOWN_HEADING);
  return at < 0 ? null : rubric.slice(at + BLUEPRINT_SHOWN_HEADING.length);
}
