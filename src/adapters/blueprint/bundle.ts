// The one module that imports esbuild (house rule 6). Tool wrappers and task environments are
// TypeScript; we bundle them into single ES modules so that the sandboxed tool host needs to
// read only those files (not the workspace, not node_modules) under Node's permission model.
import type { Plugin } from 'esbuild';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** agentdevel's own node_modules, so blueprints in any workspace can import zod. */
/** esbuild, imported by the first bundling (a command that bundles nothing never loads it). */
let esbuild: typeof import('esbuild') | null = null;
const loadEsbuild = async (): Promise<typeof import('esbuild')> => (esbuild ??= await import('esbuild'));
/**
 * Builds under way. esbuild's helper process (30 MB resident) would otherwise live as long as
 * the command, through a whole run; it is stopped once no build is under way, and the next
 * build starts it again (a few milliseconds).
 */
let building = 0;

const ownNodeModules = fileURLToPath(new URL('../../../node_modules', import.meta.url));

export class BundleError extends Error {
  constructor(
    /** Absolute path of the file at fault. */
    readonly file: string,
    readonly line: number | null,
    message: string,
    /** The cause: esbuild's own failure. */
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'BundleError';
  }
}

const within = (file: string, root: string): boolean => file === root || file.startsWith(`${root}${path.sep}`);

/**
 * Bundling runs outside the sandbox and inlines whatever a module imports, so it is confined:
 * only files under `roots` (after following symlinks) and agentdevel's own packages may be
 * read. A wrapper cannot pull `../../secrets.json` or `~/.config` into its bundle.
 */
function confine(roots: readonly string[]): Plugin {
  const allowed = [...roots, ownNodeModules].map((root) => realpathSync(root));
  return {
    name: 'agentdevel-confine',
    setup(builder) {
      builder.onLoad({ filter: /.*/ }, (args) => {
        let real: string;
        try {
          real = realpathSync(args.path);
        } catch (error) {
          // A file that is not there: esbuild reports it as missing, naming the import.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
        if (allowed.some((root) => within(real, root))) return undefined;
        return { errors: [{ text: `${args.path} is outside the folder being bundled; only its own files and agentdevel's packages (such as zod) may be imported` }] };
      });
    },
  };
}

/** A bound on one build: esbuild runs as a helper process, and no wait on a child is unbounded. */
const BUILD_TIMEOUT_MS = 120_000;

/** The bundler did not answer within its bound (it was stopped). */
export class BundlerTimeout extends Error {
  constructor() {
    super(`the bundler (esbuild) did not finish within ${BUILD_TIMEOUT_MS / 1000} s and was stopped`);
    this.name = 'BundlerTimeout';
  }
}

/**
 * Bundles `entrySource` (an ES module, resolved from `resolveDir`) into `outfile`, reading only
 * files under `roots`. Dynamic imports are inlined as lazily evaluated modules (no splitting).
 */
export async function bundleModule(entrySource: string, resolveDir: string, outfile: string, roots: readonly string[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const { build, stop } = await loadEsbuild();
  building += 1;
  try {
    const built = build({
      absWorkingDir: resolveDir,
      plugins: [confine(roots)],
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
    await Promise.race([
      built,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          void stop();
          reject(new BundlerTimeout());
        }, BUILD_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    if (timedOut) throw new BundlerTimeout();
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors?.[0];
    if (first) {
      // esbuild names files relative to absWorkingDir.
      const file = first.location ? path.resolve(resolveDir, first.location.file) : resolveDir;
      throw new BundleError(file, first.location?.line ?? null, first.text, { cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    building -= 1;
    if (building === 0 && !timedOut) await stop();
  }
}

/** Ends esbuild's helper process, so a finished command leaves nothing running behind it. */
export async function stopBundler(): Promise<void> {
  if (esbuild) await esbuild.stop();
}
