import { rm } from 'node:fs/promises';
import { AgentdevelError } from '../../domain/errors.ts';
import { startToolHost, ToolHostError } from '../runtimes/tool-host/client.ts';
import { loadBlueprint, renderAllPrompts, toolNameOf } from './load.ts';

/**
 * Proves a blueprint can run, as a run would load it: no link leaves the blueprint folder, the
 * manifest validates, the templates and partials compile, the tool wrappers import and check,
 * and the system prompt renders with the tools they define. What is wrong comes back as one
 * line; anything else (the disk, a bug) is not the blueprint's doing and propagates. `buildDir`
 * holds the bundles and is removed after.
 */
export async function blueprintLoadProblem(dir: string, name: string, limits: { readonly callTimeoutMs: number; readonly memoryMb: number }, buildDir: string): Promise<string | null> {
  try {
    const blueprint = await loadBlueprint(dir, name, buildDir);
    if (blueprint.wrappersBundle) {
      const host = await startToolHost({ wrappers: blueprint.wrappersBundle, environment: null }, limits);
      try {
        renderAllPrompts(blueprint, host.tools, toolNameOf(blueprint, host.tools));
      } finally {
        host.stop();
      }
    }
    return null;
  } catch (error) {
    if (error instanceof AgentdevelError && error.code === 'BLUEPRINT_INVALID') return `the edited blueprint does not load: ${error.message}`;
    if (error instanceof ToolHostError) return `the edited blueprint does not load: the tool wrappers do not load: ${error.message}`;
    throw error;
  } finally {
    await rm(buildDir, { recursive: true, force: true });
  }
}
