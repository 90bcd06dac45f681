// How an untrusted program that may start processes of its own (a blueprint check, a `command`
// agent) is launched: under the memory limit (RLIMIT_DATA, as for sandboxed Node, see
// memory-limit.ts) and contained, so that nothing it starts outlives it, whatever it does to
// escape (setsid, a double fork, env -i), and so that it can read no secret of agentdevel's.
//
// Containment, the strongest this machine allows (probed once per agentdevel process):
// - pid-namespace: it runs in a PID namespace and a mount namespace of its own, made for it
//   alone (each case-trial, each check), with a user namespace of its own where one can be
//   made, and without capabilities (root's program runs as nobody inside its user namespace).
//   A small init is the namespace's first process and runs the program as its child; when the
//   program ends the init ends, and the kernel kills every process left in the namespace. No
//   process can leave a PID namespace without privileges, so nothing escapes. The init also
//   dies when the launch is killed (the time limit, agentdevel's exit), and all with it.
//   Its /proc is the namespace's own: it lists the program's processes only, so agentdevel's
//   environment, command line and memory (and those of its helpers, such as the spawner) are not
//   there to read. Without capabilities it cannot unmount that /proc to reach the host's below
//   it; in a user namespace of its own it could not read another process's environ or mem even
//   then. The probe checks all of this (its pid, /proc/self is itself, no capabilities)
//   rather than trusting that the namespaces were made.
//   Two chains do it. The containment launcher (launcher/contain.c, built once per machine
//   with the system's C compiler: containment-launcher.ts) sets the memory limit, makes the
//   namespaces, mounts /proc, drops the capabilities and is the init, in one exec. Where it
//   cannot be built, the shell chain: `sh` sets the limit and execs util-linux `unshare --mount
//   --pid --fork --mount-proc --kill-child`, whose child is an init `sh`: four execs, and a
//   Node spawner to start them (spawner.ts): about 3.3 ms of CPU more per launch.
// - process-table: where namespaces are not allowed (many containers, some hardened kernels),
//   its descendants are followed in /proc while it runs (descendants.ts) and killed when it
//   ends. A process that forks, leaves the session, clears its environment and loses its parent
//   within one sample (25 ms) can escape this one. The host's /proc is then readable, and with
//   it agentdevel's environment, command line and memory: so an untrusted program is refused
//   (UNCONTAINED_SECRETS) while agentdevel holds a secret that is not passed to it.
import { AgentdevelError } from '../../domain/errors.ts';
import { heldSecretNames } from '../../domain/environment.ts';
import { buildLauncher, launcherKey } from './containment-launcher.ts';
import { launcher, dataLimitKb, LIMIT_REFUSED_EXIT } from './memory-limit.ts';
import { runProcess, type Containment } from './runner.ts';
import { ambientEnvironment } from './ambient-environment.ts';

export type { Containment } from './runner.ts';

const SHELL = '/bin/sh';
const UNSHARE = '/usr/bin/unshare';
const SETPRIV = '/usr/bin/setpriv';

/**
 * The namespace's first process: a shell that runs the program as its child and exits with its
 * status. The program must not be process 1 itself: the kernel drops signals process 1 sends
 * itself (abort(), a raise()), which would change how it ends. `exit` after it keeps the shell
 * from exec'ing the program in its place.
 */
const NAMESPACE_INIT = [SHELL, '-c', '"$@"; exit $?', 'agentdevel-init'];

/** A program exec'd after this holds no capability, and cannot gain one (root's, here, would let it unmount the private /proc). */
const NO_CAPABILITIES = [SETPRIV, '--bounding-set=-all', '--inh-caps=-all', '--'];
const NAMESPACES = ['--mount', '--pid', '--fork', '--mount-proc', '--kill-child'];
/** The unprivileged user a program run by root is inside its user namespace (nobody on most systems). */
const NOBODY = '65534';

/**
 * The `unshare` invocations tried, first that holds wins. In a user namespace of its own (then
 * even the host's /proc would not let it read agentdevel's environ or mem): as the same user
 * (not root: a program it execs has no capabilities), or, for root, as nobody inside (root
 * outside still owns what it writes), so that it execs without capabilities either way. Where
 * no user namespace can be made, as root, without capabilities by `setpriv` (an extra exec,
 * which about doubles the cost of a launch, so it is the last resort). None adds a process:
 * unshare mounts /proc in its child before that child execs.
 */
const NAMESPACE_PREFIXES: readonly (readonly string[])[] = [
  [UNSHARE, '--user', '--map-current-user', ...NAMESPACES, '--'],
  [UNSHARE, '--user', `--map-user=${NOBODY}`, `--map-group=${NOBODY}`, ...NAMESPACES, '--'],
  [UNSHARE, ...NAMESPACES, '--', ...NO_CAPABILITIES],
];

/**
 * What a contained program must see: it is process 1 of its namespace, /proc/self is itself (so
 * /proc is the namespace's own, not the host's), and it has no effective capability. Shell
 * builtins only: the probe's PATH finds nothing.
 */
const PROBE = 'read self rest < /proc/self/stat; while read key value; do [ "$key" = CapEff: ] && caps=$value; done < /proc/self/status; echo "$$ $self $caps"';
const CONTAINED = '1 1 0000000000000000';

/**
 * How a contained program starts on this machine:
 * - launcher: the containment launcher (containment-launcher.ts), one exec per program; `mode`
 *   is its namespace argument (user: a user namespace of its own; root: none, as root);
 * - shell: `sh` for the memory limit, then `unshare` with `prefix`, then the init shell.
 * `null`: no namespace can be made here.
 */
type NamespaceLaunch = { readonly chain: 'launcher'; readonly binary: string; readonly mode: 'user' | 'root' } | { readonly chain: 'shell'; readonly prefix: readonly string[] };

/** Which start-up chain: the launcher where it can be built and works (the default), or the shell chain (tests, benches, and where there is none). */
export type LaunchChain = 'launcher' | 'shell';

/** What the launcher's program sees: process 2 (init is 1), /proc/self is itself, no effective capability. */
const CONTAINED_BY_LAUNCHER = '2 2 0000000000000000';

interface Probed {
  /** The launcher's binary, or why there is none. */
  readonly launcher: { readonly binary: string } | { readonly missing: string };
  readonly namespace: NamespaceLaunch | null;
}

/** Per compiler and cache folder (a test, or a bench, may ask for a machine without a compiler). */
const probedLaunchers = new Map<string, Promise<Probed>>();
let probedShell: Promise<NamespaceLaunch | null> | null = null;

/** The first `unshare` prefix under which a program really is contained as PROBE checks; null when none works. */
async function probeShell(): Promise<NamespaceLaunch | null> {
  for (const prefix of NAMESPACE_PREFIXES) {
    const [command, ...args] = [...prefix, SHELL, '-c', PROBE];
    const outcome = await runProcess({ command: command as string, args, env: { PATH: '/nonexistent' }, timeoutMs: 20_000 });
    if (outcome.exitCode === 0 && outcome.stdout.trim() === CONTAINED) return { chain: 'shell', prefix };
  }
  return null;
}

/** The launcher (built if need be) and the first of its modes under which a program is contained as PROBE checks. */
async function probeLauncher(env: Readonly<Record<string, string | undefined>>): Promise<Probed> {
  const launcher = await buildLauncher(env);
  if (!('binary' in launcher)) return { launcher, namespace: null };
  for (const mode of ['user', 'root'] as const) {
    const outcome = await runProcess({ command: launcher.binary, args: ['-', mode, SHELL, '-c', PROBE], env: { PATH: '/nonexistent' }, timeoutMs: 20_000 });
    if (outcome.exitCode === 0 && outcome.stdout.trim() === CONTAINED_BY_LAUNCHER) return { launcher, namespace: { chain: 'launcher', binary: launcher.binary, mode } };
  }
  // No namespace here: it still sets the memory limit (process-table), if it runs at all.
  const bare = await runProcess({ command: launcher.binary, args: ['-', 'none', SHELL, '-c', 'echo ok'], env: { PATH: '/nonexistent' }, timeoutMs: 20_000 });
  if (bare.exitCode !== 0 || bare.stdout.trim() !== 'ok') return { launcher: { missing: `${launcher.binary} does not run here: ${bare.spawnError ?? bare.stderr.trim().split('\n').at(-1) ?? `exit ${bare.exitCode}`}` }, namespace: null };
  return { launcher, namespace: null };
}

function probedLauncher(env: Readonly<Record<string, string | undefined>>): Promise<Probed> {
  const key = launcherKey(env);
  let found = probedLaunchers.get(key);
  if (found === undefined) {
    found = probeLauncher(env);
    probedLaunchers.set(key, found);
  }
  return found;
}

/**
 * How a program is started here (probed once per agentdevel process, then remembered): by the
 * launcher where it works, else by the shell chain; `chain` forces one.
 */
async function probe(env: Readonly<Record<string, string | undefined>>, chain?: LaunchChain): Promise<{ readonly binary: string | null; readonly namespace: NamespaceLaunch | null }> {
  if (chain !== 'shell') {
    const found = await probedLauncher(env);
    const binary = 'binary' in found.launcher ? found.launcher.binary : null;
    if (found.namespace !== null || chain === 'launcher') return { binary, namespace: found.namespace };
  }
  probedShell ??= probeShell();
  return { binary: null, namespace: await probedShell };
}

/** How untrusted programs are contained on this machine, and by which chain (probed once, then remembered). */
export async function containment(env: Readonly<Record<string, string | undefined>> = ambientEnvironment(), chain?: LaunchChain): Promise<Containment> {
  return (await probe(env, chain)).namespace === null ? 'process-table' : 'pid-namespace';
}

/** What the probe found, in words (benches, diagnostics): the chain in use and why the launcher is not. */
export async function containmentReport(env: Readonly<Record<string, string | undefined>> = ambientEnvironment()): Promise<string> {
  const { namespace } = await probe(env);
  const { launcher } = await probedLauncher(env);
  const without = 'missing' in launcher ? ` (no launcher: ${launcher.missing})` : '';
  if (namespace === null) return `process-table: no namespace can be made here${without}`;
  return namespace.chain === 'launcher' ? `pid-namespace by the launcher ${namespace.binary} (${namespace.mode})` : `pid-namespace by the shell chain (${namespace.prefix.join(' ')})${without}`;
}

export interface UntrustedLaunch {
  readonly command: string;
  readonly args: string[];
  /** Hand to the process runner (ProcessRequest.contain): the process-table fallback is applied there. */
  readonly contain: Containment;
  /** The containment launcher's binary when `command` is it (a line runner can then serve through it: spawner.ts). */
  readonly launcher: string | null;
}

/** What agentdevel's environment holds, and what of it the program is given: a secret it is not given must stay unreadable. */
export interface HeldSecrets {
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** Names of the variables the program is given (passEnv). */
  readonly passed: readonly string[];
}

/**
 * The command line that runs `argv` contained and under the memory limit of `memoryMb` (plus
 * Node's own baseline and a margin, as for the sandbox, so a Node program gets `memoryMb` of its
 * own). `mode` forces a containment (tests of the fallback); by default the strongest available.
 * Under the process-table fallback it refuses (UNCONTAINED_SECRETS) while `held` names a secret
 * the program is not given: it could read it in /proc/<agentdevel>/environ.
 */
export async function untrustedCommand(argv: readonly string[], memoryMb: number, held: HeldSecrets, mode?: Containment, chain?: LaunchChain): Promise<UntrustedLaunch> {
  const { binary, namespace } = await probe(held.parentEnv, chain);
  const contain: Containment = mode ?? (namespace === null ? 'process-table' : 'pid-namespace');
  if (contain === 'process-table') {
    const names = heldSecretNames(held.parentEnv, held.passed);
    if (names.length > 0) {
      throw new AgentdevelError('UNCONTAINED_SECRETS', `cannot start ${argv[0] ?? 'an untrusted program'} where it could read ${names.join(', ')}: no namespace can be made on this machine`);
    }
  }
  const contained = contain === 'pid-namespace' && namespace !== null;
  const found = await launcher();
  const limitKb = found.baselineKb === null ? null : String(dataLimitKb(found, found.baselineKb, memoryMb));
  // The launcher: the limit, the namespaces and the init in one exec (without a namespace: the limit, then the program).
  const launched =
    namespace?.chain === 'launcher' && contained
      ? [namespace.binary, limitKb ?? '-', namespace.mode, ...argv]
      : binary !== null && !contained
        ? [binary, limitKb ?? '-', 'none', ...argv]
        : null;
  if (launched !== null) {
    const [command, ...args] = launched;
    return { command: command as string, args, contain, launcher: command as string };
  }
  const inNamespace = contained && namespace?.chain === 'shell' ? [...namespace.prefix, ...NAMESPACE_INIT, ...argv] : [...argv];
  const limited = limitKb === null ? inNamespace : [SHELL, '-c', `ulimit -d "$1" || exit ${LIMIT_REFUSED_EXIT}; shift; exec "$@"`, 'agentdevel-untrusted', limitKb, ...inNamespace];
  const [command, ...args] = limited;
  return { command: command as string, args, contain, launcher: null };
}
