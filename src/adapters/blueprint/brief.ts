// What the synthesizer is told about a blueprint's runtime, derived from the code that decides
// it: the manifest's zod schema gives the keys, the loader's list gives the checks. A request
// built from these cannot describe a tool-loop blueprint to the author of a command agent.
import type { BlueprintBrief } from '../../domain/ports/model.ts';
import { BLUEPRINT_CHECKS, readManifest } from './load.ts';
import { blueprintRoot } from '../../domain/blueprint-paths.ts';
import { blueprintManifestSchema, type RuntimeKind } from '../../domain/blueprint-manifest.ts';

/** Keys an author never needs to write (the editor hint). */
const EDITOR_ONLY = new Set(['$schema']);

export function blueprintBrief(runtime: RuntimeKind): BlueprintBrief {
  const schema = blueprintManifestSchema.options.find((option) => option.shape.runtime.value === runtime);
  if (!schema) throw new Error(`unreachable: no manifest schema for the runtime ${runtime}`);
  const keys = Object.entries(schema.shape as Record<string, { description?: string; isOptional(): boolean }>)
    .filter(([key]) => !EDITOR_ONLY.has(key))
    .map(([key, value]) => ({ key, required: !value.isOptional(), description: value.description ?? '' }));
  return { runtime, keys, checks: BLUEPRINT_CHECKS[runtime] };
}

/** The brief of the blueprint as it is in `dir` (a checkout or the working tree). */
export async function readBlueprintBrief(dir: string, name: string): Promise<BlueprintBrief> {
  const manifest = await readManifest(dir, blueprintRoot(dir, name));
  return blueprintBrief(manifest.runtime);
}
