// The one module that imports esbuild (house rule 6). Tool wrappers and task environments are
// TypeScript; we bundle them into single ES modules so that the sandboxed tool host needs to
// read only those files (not the workspace, not node_modules) under Node's permission model.
import { build, stop } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** agentdevel's own node_modules, so blueprints in any workspace can import zod. */
const ownNodeModules = fileURLToPath(new URL('../../node_modules', import.meta.url));

export class BundleError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'BundleError';
  }
}

/**
 * Bundles `entrySource` (an ES module, resolved from `resolveDir`) into `outfile`.
 */
export async function bundleModule(entrySource: string, resolveDir: string, outfile: string): Promise<void> {
  try {
    await build({
      stdin: { contents: entrySource, resolveDir, sourcefile: 'agentdevel-entry.ts', loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      nodePaths: [ownNodeModules],
      logLevel: 'silent',
      sourcemap: false,
      legalComments: 'none',
      banner: {
        // Bundled CommonJS dependencies may call require(); give them one.
        js: "import { createRequire as __agentdevelRequire } from 'node:module'; const require = __agentdevelRequire(import.meta.url);",
      },
    });
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors?.[0];
    if (first) {
      const file = first.location ? path.resolve(resolveDir, first.location.file) : resolveDir;
      throw new BundleError(file, first.location?.line ?? null, first.text);
    }
    throw error;
  }
}

/** Ends esbuild's helper process, so a finished command leaves nothing running behind it. */
export async function stopBundler(): Promise<void> {
  await stop();
}
