// The few steps of a snapshot's scratch repository that need no git process: a bare repository
// made as files (HEAD, objects/, refs/), the snapshot's commit written as a loose object, its ref
// written as a file, and the pack of a bundle read out of it. A git process costs a fork of this
// large process and git's own start (a few milliseconds of CPU each), and a version carried to
// the workers paid seven of them on the coordinator and four on every worker.
// A repository made as files has no config: git reads it as format version 0 (SHA-1) with its
// defaults, which are what `git init` finds on a Linux file system, not on macOS (ignorecase,
// precomposeunicode) or where modes are not kept. Workers use it on Linux only; the coordinator,
// whose `git add` reads the user's workspace, has git make its repository.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

/** Makes `gitDir` a bare repository git can use (what `git init --bare` writes that git needs). */
export async function makeBareRepository(gitDir: string): Promise<void> {
  await mkdir(path.join(gitDir, 'objects', 'pack'), { recursive: true });
  await mkdir(path.join(gitDir, 'refs', 'heads'), { recursive: true });
  await writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
}

export interface CommitIdentity {
  readonly name: string;
  readonly email: string;
  /** Seconds since the epoch, UTC. */
  readonly seconds: number;
}

/**
 * Writes a commit of `tree` with no parent as a loose object, the bytes `git commit-tree -m`
 * writes for a one-line `message` (followed by a newline), and returns its id: SHA-256 when the
 * tree's id is (a repository of that format), SHA-1 otherwise.
 */
export async function writeRootCommit(gitDir: string, tree: string, who: CommitIdentity, message: string): Promise<string> {
  const person = `${who.name} <${who.email}> ${who.seconds} +0000`;
  const body = Buffer.from(`tree ${tree}\nauthor ${person}\ncommitter ${person}\n\n${message}\n`);
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]);
  const id = createHash(tree.length === 64 ? 'sha256' : 'sha1').update(object).digest('hex');
  const folder = path.join(gitDir, 'objects', id.slice(0, 2));
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, id.slice(2)), deflateSync(object));
  return id;
}

/** Points the branch `name` at `commit` (a loose ref, as update-ref writes one in a new repository). */
export async function writeBranch(gitDir: string, name: string, commit: string): Promise<void> {
  await writeFile(path.join(gitDir, 'refs', 'heads', name), `${commit}\n`);
}

/**
 * The pack inside a git bundle, when the bundle is one `bundleSnapshot` writes: version 2, with
 * no prerequisite commit. Null for anything else (the caller has git unbundle it).
 */
export function packOfBundle(bytes: Buffer): Buffer | null {
  const header = '# v2 git bundle\n';
  if (bytes.subarray(0, header.length).toString('latin1') !== header) return null;
  const end = bytes.indexOf('\n\n', header.length, 'latin1');
  if (end < 0) return null;
  const lines = bytes.subarray(header.length, end).toString('latin1').split('\n');
  if (!lines.every((line) => /^[0-9a-f]{40} \S+$/.test(line))) return null;
  const pack = bytes.subarray(end + 2);
  return pack.subarray(0, 4).toString('latin1') === 'PACK' ? pack : null;
}
