// How an untrusted program that may start processes of its own (a blueprint check, a `command`
// agent) is launched: under the memory limit (RLIMIT_DATA, as for sandboxed Node, see
// memory-limit.ts) and contained, so that nothing it starts outlives it, whatever it does to
// escape (setsid, a double fork, env -i).
//
// Containment, the strongest this machine allows (probed once per agentdevel process):
// - pid-namespace: it runs in a PID namespace of its own (util-linux `unshare --pid --fork`,
//   with a user namespace when agentdevel is not root). A small shell is the namespace's first
//   process and runs the program as its child; when the program ends the shell ends, and the
//   kernel kills every process left in the namespace. No process can leave a PID namespace
//   without privileges, so nothing escapes. `--kill-child` also kills it all when `unshare`
//   itself is killed (the time limit, agentdevel's exit).
// - process-table: where namespaces are not allowed (many containers, some hardened kernels),
//   its descendants are followed in /proc while it runs (descendants.ts) and killed when it
//   ends. A process that forks, leaves the session, clears its environment and loses its parent
//   within one sample (25 ms) can escape this one.
import { launcher, dataLimitKb, LIMIT_REFUSED_EXIT } from './memory-limit.ts';
import { runProcess, type Containment } from './runner.ts';

export type { Containment } from './runner.ts';

const SHELL = '/bin/sh';
const UNSHARE = '/usr/bin/unshare';

/**
 * The namespace's first process: a shell that runs the program as its child and exits with its
 * status. The program must not be process 1 itself: the kernel drops signals process 1 sends
 * itself (abort(), a raise()), which would change how it ends. `exit` after it keeps the shell
 * from exec'ing the program in its place.
 */
const NAMESPACE_INIT = [SHELL, '-c', '"$@"; exit $?', 'agentdevel-init'];

/** The `unshare` invocations tried, strongest first: as root, then in a user namespace of one's own. */
const NAMESPACE_PREFIXES: readonly (readonly string[])[] = [
  [UNSHARE, '--pid', '--fork', '--kill-child', '--'],
  [UNSHARE, '--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--'],
];

let probed: Promise<readonly string[] | null> | null = null;

/** The first `unshare` prefix under which a program really is in a PID namespace of its own (its shell is process 1); null when none works. */
async function probeNamespace(): Promise<readonly string[] | null> {
  for (const prefix of NAMESPACE_PREFIXES) {
    const [command, ...args] = [...prefix, SHELL, '-c', 'echo $$'];
    const outcome = await runProcess({ command: command as string, args, env: { PATH: '/nonexistent' }, timeoutMs: 20_000 });
    if (outcome.exitCode === 0 && outcome.stdout.trim() === '1') return prefix;
  }
  return null;
}

/** How untrusted programs are contained on this machine (probed once, then remembered). */
export async function containment(): Promise<Containment> {
  probed ??= probeNamespace();
  return (await probed) === null ? 'process-table' : 'pid-namespace';
}

export interface UntrustedLaunch {
  readonly command: string;
  readonly args: string[];
  /** Hand to the process runner (ProcessRequest.contain): the process-table fallback is applied there. */
  readonly contain: Containment;
}

/**
 * The command line that runs `argv` contained and under the memory limit of `memoryMb` (plus
 * Node's own baseline and a margin, as for the sandbox, so a Node program gets `memoryMb` of its
 * own). `mode` forces a containment (tests of the fallback); by default the strongest available.
 */
export async function untrustedCommand(argv: readonly string[], memoryMb: number, mode?: Containment): Promise<UntrustedLaunch> {
  probed ??= probeNamespace();
  const prefix = await probed;
  const contain: Containment = mode ?? (prefix === null ? 'process-table' : 'pid-namespace');
  const contained = contain === 'pid-namespace' && prefix !== null ? [...prefix, ...NAMESPACE_INIT, ...argv] : [...argv];
  const found = await launcher();
  const limited =
    found.baselineKb === null
      ? contained
      : [SHELL, '-c', `ulimit -d "$1" || exit ${LIMIT_REFUSED_EXIT}; shift; exec "$@"`, 'agentdevel-untrusted', String(dataLimitKb(found, found.baselineKb, memoryMb)), ...contained];
  const [command, ...args] = limited;
  return { command: command as string, args, contain };
}
