// Node's permission model changed its spelling: Node 20 has --experimental-permission, Node 22
// (from 22.13) and 24 have --permission. We ask the running Node which one it knows rather than
// parsing version numbers, so new releases keep working.

export interface PermissionGrant {
  readonly read: readonly string[];
  readonly write: readonly string[];
}

export function permissionFlag(allowed: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string {
  if (allowed.has('--permission')) return '--permission';
  if (allowed.has('--experimental-permission')) return '--experimental-permission';
  throw new Error(`this Node.js (${process.version}) has no permission model; agentdevel needs Node 20 or later`);
}

/** Flags for `node` that grant exactly these paths and nothing else (no child processes, no workers, no addons). */
export function permissionArgs(grant: PermissionGrant, allowed?: ReadonlySet<string>): string[] {
  return [
    permissionFlag(allowed),
    ...grant.read.map((p) => `--allow-fs-read=${p}`),
    ...grant.write.map((p) => `--allow-fs-write=${p}`),
  ];
}
