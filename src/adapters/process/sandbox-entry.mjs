// Entry point of every sandboxed script (plain JavaScript: it runs before anything else in the
// child). Node's permission model already denies files outside the grant, child processes,
// workers and native addons; this adds what the model does not cover on every Node version:
// environment variables and the network. Usage: node <permission flags> sandbox-entry.mjs SCRIPT ...ARGS
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

const denied = (what) => () => {
  throw new Error(`sandbox: ${what} is denied to this script`);
};

// The environment is already scrubbed by the parent. Reads from the script throw so that a
// script that looks for a secret fails loudly and the attempt is recorded; reads from Node's
// own internals (colour detection, loader options) see an empty environment.
const environment = new Proxy(Object.create(null), {
  get(_target, key) {
    const caller = (new Error().stack ?? '').split('\n')[2] ?? '';
    if (/\(node:|\bat node:/.test(caller)) return undefined;
    throw new Error(`sandbox: reading the environment variable ${String(key)} is denied to this script`);
  },
  has: denied('reading the environment'),
  ownKeys: denied('listing the environment'),
  getOwnPropertyDescriptor: denied('reading the environment'),
  set: denied('changing the environment'),
  deleteProperty: denied('changing the environment'),
});
Object.defineProperty(process, 'env', { get: () => environment, configurable: false });

for (const name of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']) {
  if (name in globalThis) Object.defineProperty(globalThis, name, { get: denied('the network'), configurable: false });
}
net.Socket.prototype.connect = denied('the network');
net.Server.prototype.listen = denied('the network');
dgram.Socket.prototype.bind = denied('the network');
dgram.Socket.prototype.send = denied('the network');
const lookups = ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];
for (const api of [dns, dns.promises, dns.Resolver.prototype, dns.promises.Resolver.prototype]) {
  for (const name of lookups) {
    if (typeof api[name] === 'function') api[name] = denied('the network');
  }
}
syncBuiltinESMExports();

// Signals: a script may signal itself, nothing else. process.kill goes through process._kill,
// so guarding that one catches both spellings (process.binding is denied by the permission
// model). Trying to signal another process (agentdevel, its own group, every process) stops the
// script at once: the parent records why.
const ownPid = process.pid;
const exitNow = process.exit.bind(process);
const rawKill = process._kill.bind(process);
const guardedKill = (pid, signal) => {
  if (Number(pid) === ownPid) return rawKill(pid, signal);
  process.stderr.write(`sandbox: stopped: it tried to signal another process (pid ${Number(pid)}), which is denied\n`);
  return exitNow(70);
};
Object.defineProperty(process, '_kill', { value: guardedKill, writable: false, configurable: false });

// A child must not outlive its parent: when agentdevel is gone (the child was re-parented),
// stop. The timer does not keep the process alive. A script that spins never reaches it: that
// one is killed by the parent-death signal the launcher sets where setpriv exists.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) exitNow(70);
}, 1000).unref();

const script = process.argv[2];
if (!script) {
  process.stderr.write('sandbox: no script given\n');
  process.exit(64);
}
process.argv.splice(1, 1);
await import(new URL(`file://${script}`).href);
