// Builds the prebuilt bundle that bin/agentdevel.mjs and lib/index.mjs start from: the CLI's and
// the library's TypeScript, compiled once into dist/ (one ES module per lazily loaded part), so a
// command does not compile every module at every launch. npm runs this as `prepare` (npm ci,
// npm install, npm pack), so a clone needs no extra step, and the package ships dist/.
// lib/load-entry.mjs falls back to compiling on the fly (tsx) when dist/ is absent or was built
// from other sources; so a bundle that cannot be built never fails an install: this prints why
// and exits 0. `--strict` (the test suite's set-up) makes a failed build fail.
//
// Files keep finding what lies beside them: a module's `import.meta.url` is replaced by the URL
// of its source file (computed from the bundle's own location, so the package can live
// anywhere), and the package ships src/ with its .mjs and template files.
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourcesDigest } from '../lib/load-entry.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const finalDir = path.join(root, 'dist');
// Built beside dist/ and moved into place once complete: a command starting meanwhile sees the
// old bundle or none (and compiles on the fly), never half of one. Same parent, so the source
// URLs computed relative to it hold after the move.
const outdir = path.join(root, `dist.partial-${process.pid}`);

/** Gives each source file that reads `import.meta.url` its own file's URL instead of the chunk's. */
const sourceUrls = (transform) => ({
  name: 'agentdevel-source-urls',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      // esbuild's define replaces the expression only, never the same text inside a string.
      const { code } = await transform(source, {
        loader: 'ts',
        format: 'esm',
        sourcefile: args.path,
        define: { 'import.meta.url': '__agentdevelSourceUrl' },
      });
      const fromDist = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: `const __agentdevelSourceUrl = new URL(${JSON.stringify(fromDist)}, import.meta.url).href;\n${code}`, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
});

/**
 * zod's `z` and `z.core` namespaces re-export every locale (`locales`: some 370 KB of messages
 * in 40-odd languages), so all of them would be compiled into the bundle and parsed at every
 * start. agentdevel reads zod's messages in English only (zod's own default, which zod imports
 * by itself): there, `locales` holds English alone.
 */
const englishOnly = {
  name: 'agentdevel-zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};\n`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

const INLINED = new Set(['bullmq', 'commander', 'execa', 'handlebars', 'ioredis', 'zod']);
const EXTERNAL = Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies ?? {})
  .filter((name) => !INLINED.has(name))
  // msgpackr (bullmq's) loads this optional native addon beside it when installed.
  .concat(['msgpackr-extract'])
  .flatMap((name) => [name, `${name}/*`]);

async function buildBundle() {
  // Imported here: an install whose esbuild is broken still ends with a working (slower) CLI.
  const { build, transform } = await import('esbuild');
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { agentdevel: 'src/cli/main.ts', api: 'src/api.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Pure-JS dependencies that every command loads (the CLI parser, the schemas, the process
    // runner and git) are compiled into the bundle: loaded as a few files instead of some 250
    // small ones, which is most of a read-only command's start-up. So are the queue's (bullmq,
    // whose Lua scripts are JavaScript modules, and ioredis), in a chunk only a command on a
    // queue and a worker load: one file in about 60 ms instead of some 200 in 150. The rest load
    // from node_modules as they are (better-sqlite3 is native; the SDK, esbuild and tsx are
    // loaded only by the commands that use them).
    external: EXTERNAL,
    // CommonJS dependencies compiled in still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __agentdevelCreateRequire } from 'node:module'; const require = __agentdevelCreateRequire(import.meta.url);" },
    // Every chunk sits in dist/ itself: the source URLs above are relative to it.
    chunkNames: '[name]-[hash]',
    plugins: [sourceUrls(transform), englishOnly],
    metafile: true,
    logLevel: 'warning',
  });

  // What the bundle was built from, to tell at start-up whether it is stale: the source files
  // that went into it and one digest of their contents.
  const files = Object.keys(result.metafile.inputs)
    .filter((file) => !file.split('/').includes('node_modules'))
    .sort();
  await writeFile(path.join(outdir, 'sources.json'), `${JSON.stringify({ files, digest: sourcesDigest(files, (file) => readFileSync(path.join(root, file))) })}\n`);
  // The old bundle is moved aside, not deleted in place: a CLI starting meanwhile finds no dist/
  // only between two renames, not for as long as deleting a folder of some hundred files takes.
  const aside = `${finalDir}.old-${process.pid}`;
  await rename(finalDir, aside).catch((error) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(outdir, finalDir);
  await rm(aside, { recursive: true, force: true });
}

try {
  await buildBundle();
} catch (error) {
  await rm(outdir, { recursive: true, force: true });
  if (process.argv.includes('--strict')) throw error;
  process.stderr.write(`agentdevel: the prebuilt bundle could not be built (${error instanceof Error ? error.message.split('\n').slice(0, 2).join(' ').trim() : String(error)}); agentdevel will compile its sources at each start instead (slower, same behaviour)\n`);
}
