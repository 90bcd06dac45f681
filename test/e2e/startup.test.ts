// Start-up: the CLI runs from the prebuilt bundle (built by the suite's set-up, as `prepare`
// builds it on install), loads only what the command needs, and runs the sources instead when
// they differ from what the bundle was built from.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleWorkspace, repoRoot, tempDir } from '../helpers/workspace.ts';

/** Preloaded into the CLI: names on stderr every package file and bundle file the process resolves. */
const tracer = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'resolved ' + resolved.url + '\\\\n');
  return resolved;
}
\`));
`;

let tracerFile: string;
beforeAll(() => {
  tracerFile = path.join(tempDir('agentdevel-startup-'), 'tracer.mjs');
  writeFileSync(tracerFile, tracer);
});

function traced(root: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, ['--import', tracerFile, path.join(root, 'bin', 'agentdevel.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, CI: 'true' }, timeout: 60_000 });
  const urls = [...result.stderr.matchAll(/^resolved (\S+)$/gm)].map((m) => String(m[1]));
  const packages = new Set(urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((name): name is string => name !== undefined));
  return { code: result.status, stdout: result.stdout, fromBundle: urls.some((url) => url.endsWith('/dist/agentdevel.js')), fromSources: urls.some((url) => url.endsWith('/src/cli/main.ts')), packages };
}

const heavy = ['@anthropic-ai/sdk', 'handlebars', 'esbuild', 'better-sqlite3', 'execa', 'tsx'];

describe('start-up', () => {
  it('--help and --version run from the bundle and load no engine, git, SQLite, esbuild or compiler', () => {
    for (const args of [['--help'], ['--version']]) {
      const run = traced(repoRoot, args);
      expect(run.code).toBe(0);
      expect(run.fromBundle).toBe(true);
      expect([...run.packages].filter((name) => heavy.includes(name))).toEqual([]);
    }
  });

  it('log reads git only: not the store (SQLite), the model SDK, the prompt templates or esbuild', async () => {
    const dir = await exampleWorkspace();
    const run = traced(repoRoot, ['log', '-C', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('no release candidates yet');
    expect(run.fromBundle).toBe(true);
    // The process runner (execa) is compiled into the bundle; the store is opened only by commands that read it.
    for (const name of ['better-sqlite3', '@anthropic-ai/sdk', 'handlebars', 'esbuild', 'tsx']) expect(run.packages).not.toContain(name);
  });

  it('a command on a queue loads bullmq and ioredis from the bundle, not as files of node_modules', async () => {
    const dir = await exampleWorkspace();
    // Without the queue key the command stops (exit 2) once it has loaded the queue's modules.
    const run = traced(repoRoot, ['run', '-C', dir, '--queue', 'redis://127.0.0.1:1']);
    expect(run.code).toBe(2);
    expect(run.fromBundle).toBe(true);
    expect([...run.packages].filter((name) => ['bullmq', 'ioredis', 'msgpackr'].includes(name))).toEqual([]);
  });

  it('keeps the bundle when only modification times changed, and runs the sources once their content differs', () => {
    // A copy of the package: every file gets a new modification time, as after a git checkout.
    const copy = path.join(tempDir('agentdevel-package-'), 'agentdevel');
    mkdirSync(copy);
    for (const entry of ['bin', 'lib', 'src', 'dist', 'package.json']) cpSync(path.join(repoRoot, entry), path.join(copy, entry), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'));
    const touched = traced(copy, ['--version']);
    expect(touched.fromBundle).toBe(true);
    expect(touched.fromSources).toBe(false);

    const versionFile = path.join(copy, 'src', 'cli', 'version.ts');
    writeFileSync(versionFile, readFileSync(versionFile, 'utf8').replace('return manifest.version;', "return `${manifest.version}-edited`;"));
    const edited = traced(copy, ['--version']);
    expect(edited.fromBundle).toBe(false);
    expect(edited.fromSources).toBe(true);
    expect(edited.stdout.trim()).toMatch(/-edited$/);
  });

  it("keeps the bundle's compiled code in agentdevel's cache folder (0700) where Node has a compile cache, and nowhere where it has none or it is turned off", () => {
    const version = (env: Record<string, string>) => {
      const { NODE_COMPILE_CACHE: _set, NODE_DISABLE_COMPILE_CACHE: _off, ...rest } = process.env;
      const result = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'agentdevel.mjs'), '--version'], { encoding: 'utf8', env: { ...rest, CI: 'true', ...env }, timeout: 60_000 });
      expect(result.status).toBe(0);
    };
    const cacheHome = tempDir('agentdevel-xdg-');
    const folder = path.join(cacheHome, 'agentdevel', 'node-compile-cache');
    version({ XDG_CACHE_HOME: cacheHome });
    // Node 22.8 and later have one (users run 22 and 24); Node 20 has none.
    if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      const entries = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(entries.length).toBeGreaterThan(0);
    } else {
      expect(existsSync(folder)).toBe(false);
    }
    const offHome = tempDir('agentdevel-xdg-');
    version({ XDG_CACHE_HOME: offHome, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(existsSync(path.join(offHome, 'agentdevel'))).toBe(false);
    // A folder others may write is never used: whoever writes the cache decides what code runs.
    const sharedHome = tempDir('agentdevel-xdg-');
    const shared = path.join(sharedHome, 'agentdevel', 'node-compile-cache');
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    version({ XDG_CACHE_HOME: sharedHome });
    expect(readdirSync(shared)).toEqual([]);
  });
});
