// The runtime half of the role facts, detected in this process: diagnosis scripts and tool
// wrappers run on the same Node binary (process.execPath), so what exists here exists there.
import type { Clock } from '../../domain/ports/clock.ts';
import { isoDate, type RoleFacts } from '../../domain/role-facts.ts';

/**
 * Built-ins newer than Node 18 that generated code reaches for. Node 20 lacks several of them
 * (Object.groupBy arrived in 21), and a script that calls one fails in the sandbox.
 */
const NEWER_BUILTINS = [
  'structuredClone',
  'Array.prototype.findLast',
  'Array.prototype.toSorted',
  'Array.prototype.toReversed',
  'Array.prototype.with',
  'Array.fromAsync',
  'Object.groupBy',
  'Map.groupBy',
  'Promise.withResolvers',
  'Set.prototype.union',
  'Set.prototype.intersection',
  'Set.prototype.difference',
  'Iterator.prototype.map',
  'Iterator.prototype.toArray',
  'String.prototype.isWellFormed',
  'URL.parse',
  'RegExp.escape',
  'Float16Array',
  'Math.sumPrecise',
  'Error.isError',
] as const;

function exists(dotted: string): boolean {
  let value: unknown = globalThis;
  for (const part of dotted.split('.')) {
    if (value === null || value === undefined) return false;
    value = (value as Record<string, unknown>)[part];
  }
  return value !== undefined;
}

export function currentRoleFacts(clock: Clock): RoleFacts {
  return {
    today: isoDate(clock.now()),
    node: process.version,
    builtins: {
      available: NEWER_BUILTINS.filter((name) => exists(name)),
      missing: NEWER_BUILTINS.filter((name) => !exists(name)),
    },
  };
}
