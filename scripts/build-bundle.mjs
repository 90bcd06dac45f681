// Builds the prebuilt bundle that bin/agentdevel.mjs starts from: the CLI's TypeScript, compiled
// once into dist/ (one ES module per lazily loaded part), so a command does not compile every
// module at every launch. npm runs this as `prepare` (npm ci, npm install, npm pack), so a
// clone needs no extra step; bin/agentdevel.mjs falls back to compiling on the fly (tsx) when
// dist/ is absent or older than the sources it was built from.
//
// Files keep finding what lies beside them: a module's `import.meta.url` is replaced by the URL
// of its source file (computed from the bundle's own location, so the package can live
// anywhere), and the package ships src/ with its .mjs and template files.
import { build, transform } from 'esbuild';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = path.join(root, 'dist');

/** Gives each source file that reads `import.meta.url` its own file's URL instead of the chunk's. */
const sourceUrls = {
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
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { agentdevel: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies load from node_modules as they are (better-sqlite3 is native; one copy each).
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [sourceUrls],
  metafile: true,
  logLevel: 'warning',
});

// What the bundle was built from, to tell at start-up whether it is stale: size and mtime of
// every source file that went into it.
const inputs = {};
for (const file of Object.keys(result.metafile.inputs).sort()) {
  if (file.startsWith('node_modules/')) continue;
  const info = await stat(path.join(root, file));
  inputs[file] = [info.size, info.mtimeMs];
}
await writeFile(path.join(outdir, 'sources.json'), `${JSON.stringify({ inputs })}\n`);
