// The containment launcher (launcher/contain.c): one small native program that starts an
// untrusted program under the memory limit, in namespaces of its own, with one exec where the
// shell chain (`sh` for the limit, `unshare`, an init `sh`) took four; see untrusted.ts. Its
// `serve` mode is also the spawner of `command` agents (spawner.ts), so a case-trial's launch
// costs a fork of that small process and no exec but the agent's.
//
// It ships as source and is compiled on first use with the system's C compiler (`$CC`, else
// `cc`) into agentdevel's cache folder (`$XDG_CACHE_HOME/agentdevel`, else `~/.cache/agentdevel`),
// named by a hash of its source, so each version of agentdevel builds it once per machine and
// a changed source is never run from an old binary. Where there is no compiler (or the build
// fails, or this is not Linux), there is no launcher and untrusted.ts uses the shell chain.
// The binary is written under a temporary name and renamed into place, so two agentdevel
// processes building it at once never run half a file.
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from './runner.ts';
import { agentdevelCacheDir } from './cache-folder.ts';

const SOURCE = fileURLToPath(new URL('./launcher/contain.c', import.meta.url));
const BUILD_TIMEOUT_MS = 60_000;

/** Where the launcher is, or why there is none (said where the probe is reported). */
export type LauncherBuild = { readonly binary: string } | { readonly missing: string };

/** What decides which launcher is found or built: the compiler and the cache folder. */
export function launcherKey(env: Readonly<Record<string, string | undefined>>): string {
  return `${env.CC || 'cc'}\0${agentdevelCacheDir(env)}`;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The launcher's binary, built now if this source has none yet. `env` is agentdevel's own
 * environment: its PATH and CC find the compiler, its XDG_CACHE_HOME or HOME the cache.
 */
export async function buildLauncher(env: Readonly<Record<string, string | undefined>>): Promise<LauncherBuild> {
  if (process.platform !== 'linux') return { missing: 'namespaces are Linux only' };
  let source: Buffer;
  try {
    source = readFileSync(SOURCE);
  } catch {
    return { missing: `its source ${SOURCE} is not there` };
  }
  const hash = createHash('sha256').update(source).update(`${process.platform}-${process.arch}`).digest('hex').slice(0, 16);
  const dir = agentdevelCacheDir(env);
  const binary = path.join(dir, `contain-${hash}`);
  if (executable(binary)) return { binary };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return { missing: `cannot write its cache folder ${dir}: ${(error as Error).message}` };
  }
  const compiler = env.CC || 'cc';
  const partial = `${binary}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  // Static where the C library allows it: no dynamic loader at each of its many starts.
  let failure = '';
  for (const linking of [['-static', '-s'], ['-s']]) {
    const built = await runProcess({
      command: compiler,
      args: ['-O2', ...linking, '-o', partial, SOURCE],
      env: { PATH: env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: BUILD_TIMEOUT_MS,
    });
    if (built.exitCode === 0 && executable(partial)) {
      renameSync(partial, binary);
      return { binary };
    }
    failure = built.spawnError ?? built.stderr.trim().split('\n').at(-1) ?? `exit ${built.exitCode}`;
    if (built.spawnError) break;
  }
  rmSync(partial, { force: true });
  return { missing: `no C compiler could build it (${compiler}: ${failure})` };
}
