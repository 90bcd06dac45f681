// Warm checkouts (src/adapters/queue/warm-checkouts.ts) with real git bundles: workers of one
// machine share the cache folder, and a worker checks a changed checkout out afresh before a
// new run. That must never touch a folder another worker's agents are running in.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSnapshot } from '../../src/adapters/git/snapshot.ts';
import { warmCheckouts } from '../../src/adapters/queue/warm-checkouts.ts';
import { JOB_SCHEMA, type JobVersion } from '../../src/adapters/queue/job.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-warm-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function version(files: Record<string, string> = {}): Promise<{ version: JobVersion; bytes: Buffer }> {
  const workspace = tempDir();
  mkdirSync(path.join(workspace, 'blueprints/bp'), { recursive: true });
  mkdirSync(path.join(workspace, 'rubrics/task'), { recursive: true });
  writeFileSync(path.join(workspace, 'blueprints/bp/agent.sh'), 'echo hi\n');
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(workspace, file), text);
  writeFileSync(path.join(workspace, 'rubrics/task/task.json'), '{}\n');
  execFileSync('git', ['init', '-q', workspace]);
  const bundle = await bundleSnapshot(workspace, ['blueprints/bp', 'rubrics/task'], path.join(tempDir(), 'scratch'));
  return {
    bytes: bundle.bytes,
    version: {
      schema: JOB_SCHEMA,
      snapshot: { commit: bundle.commit, tree: bundle.tree, bundleKey: bundle.tree, bundleBytes: bundle.bytes.length, source: 'test', remote: null },
      blueprint: 'bp',
      task: 'task',
      agentModel: 'mock',
      callTimeoutMs: 1000,
      memoryMb: 256,
      isolation: 'shared',
      passEnv: [],
    },
  };
}

describe('warm checkouts', () => {
  it('gives two workers sharing a cache folder folders of their own, so one never resets what the other runs in', async () => {
    const cache = tempDir();
    const { version: v, bytes } = await version();
    const bundle = async () => bytes;
    const first = warmCheckouts(cache, async () => undefined, () => undefined);
    const second = warmCheckouts(cache, async () => undefined, () => undefined);

    // Worker one runs a job whose agent writes into its blueprint folder, and is still running.
    const running = await first.take(v, bundle);
    const written = path.join(running.dir, 'blueprints/bp/scratch.txt');
    writeFileSync(written, 'in use');

    // Worker two starts a job of the same version: its checkout holds the tree, untouched by the other's writes.
    const other = await second.take(v, bundle);
    expect(other.dir).not.toBe(running.dir);
    expect(existsSync(path.join(other.dir, 'blueprints/bp/scratch.txt'))).toBe(false);
    other.release();
    // ...and worker two's next run checks its own folder again, leaving worker one's alone.
    (await second.take(v, bundle)).release();
    expect(readFileSync(written, 'utf8')).toBe('in use');

    // Worker one's next run (nothing in flight) gets its folder back as the version holds it.
    running.release();
    const next = await first.take(v, bundle);
    expect(next.dir).toBe(running.dir);
    expect(existsSync(written)).toBe(false);
    expect(first.counts).toEqual({ made: 2, reset: 1 });
    next.release();
  });

  it('never checks a checkout again under a job that took it while the last one was being released', async () => {
    const cache = tempDir();
    const { version: v, bytes } = await version();
    const bundle = async () => bytes;
    const worker = warmCheckouts(cache, async () => undefined, () => undefined);
    const first = await worker.take(v, bundle);
    // A second job takes it, and the first lets it go before the second has its lease.
    const taking = worker.take(v, bundle);
    first.release();
    const second = await taking;
    writeFileSync(path.join(second.dir, 'blueprints/bp/in-use.txt'), 'the second job writes here');
    // A third job comes while the second runs: the folder is left as the second has it.
    const third = await worker.take(v, bundle);
    expect(readFileSync(path.join(second.dir, 'blueprints/bp/in-use.txt'), 'utf8')).toBe('the second job writes here');
    expect(worker.counts).toEqual({ made: 1, reset: 0 });
    second.release();
    third.release();
    // The next run, with none in flight, gets it clean.
    const next = await worker.take(v, bundle);
    expect(existsSync(path.join(next.dir, 'blueprints/bp/in-use.txt'))).toBe(false);
    next.release();
  });

  it('reads a small bundle before asking the remote, fetches a large one from the remote, and each way falls back to the other', async () => {
    // A committed workspace whose commit is on a remote (a local bare repository here).
    const { version: base, bytes } = await version();
    const workspace = tempDir();
    mkdirSync(path.join(workspace, 'blueprints/bp'), { recursive: true });
    mkdirSync(path.join(workspace, 'rubrics/task'), { recursive: true });
    writeFileSync(path.join(workspace, 'blueprints/bp/agent.sh'), 'echo hi\n');
    writeFileSync(path.join(workspace, 'rubrics/task/task.json'), '{}\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: workspace, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'v');
    const remote = path.join(tempDir(), 'remote.git');
    git('clone', '-q', '--bare', workspace, remote);
    const head = git('rev-parse', 'HEAD');
    const on = (url: string, bundleBytes: number, commit = head): JobVersion => ({ ...base, snapshot: { ...base.snapshot, bundleBytes, remote: { url, commit } } });
    const routes = async (v: JobVersion, bundle: () => Promise<Buffer | null>) => {
      const cache = tempDir();
      const notes: string[] = [];
      const lease = await warmCheckouts(cache, async () => undefined, (note) => notes.push(note)).take(v, bundle);
      expect(readFileSync(path.join(lease.dir, 'blueprints/bp/agent.sh'), 'utf8')).toBe('echo hi\n');
      lease.release();
      return { from: /from (the remote|its bundle)/.exec(notes.join('\n'))?.[1], fetched: existsSync(path.join(cache, 'remote.git')) };
    };
    const inRedis = async () => bytes;
    const expired = async () => null;
    const broken = async () => Buffer.concat([bytes.subarray(0, bytes.length - 30), Buffer.alloc(30)]);
    const large = 2 * 1024 * 1024;
    // Small: the bundle, and the remote is never asked; with the bundle gone or broken, the remote.
    expect(await routes(on(remote, bytes.length), inRedis)).toEqual({ from: 'its bundle', fetched: false });
    expect(await routes(on(remote, bytes.length), expired)).toEqual({ from: 'the remote', fetched: true });
    expect(await routes(on(remote, bytes.length), broken)).toEqual({ from: 'the remote', fetched: true });
    // Large: the remote; with a remote that lacks the commit (not pushed) or cannot be reached, the bundle.
    expect(await routes(on(remote, large), inRedis)).toEqual({ from: 'the remote', fetched: true });
    expect(await routes(on(remote, large, 'f'.repeat(40)), inRedis)).toEqual({ from: 'its bundle', fetched: true });
    expect(await routes(on(path.join(tempDir(), 'no-such-remote'), large), inRedis)).toEqual({ from: 'its bundle', fetched: true });
    // Neither: the job fails, saying why (a broken bundle's own failure, else that neither had it).
    await expect(routes(on(remote, bytes.length, 'f'.repeat(40)), expired)).rejects.toThrow(/not in the queue \(expired\?\), and the remote could not serve its commit/);
    await expect(routes(on(remote, bytes.length, 'f'.repeat(40)), broken)).rejects.toThrow(/git/);
  });

  it('keeps a checkout that git converted as it wrote it (.gitattributes eol=crlf) run after run, and still makes it afresh after a run changed it', async () => {
    const cache = tempDir();
    const { version: v, bytes } = await version({ 'blueprints/bp/.gitattributes': '*.txt text eol=crlf\n', 'blueprints/bp/notes.txt': 'one\ntwo\n' });
    const bundle = async () => bytes;
    const worker = warmCheckouts(cache, async () => undefined, () => undefined);
    const first = await worker.take(v, bundle);
    // Git wrote the file with CRLF: the folder on disk is not the snapshot's tree, byte for byte.
    expect(readFileSync(path.join(first.dir, 'blueprints/bp/notes.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
    first.release();
    // The next runs find it as it was written: no checkout again.
    (await worker.take(v, bundle)).release();
    (await worker.take(v, bundle)).release();
    expect(worker.counts).toEqual({ made: 1, reset: 0 });
    // A run that writes into it still gets it made afresh at the next.
    const writing = await worker.take(v, bundle);
    writeFileSync(path.join(writing.dir, 'blueprints/bp/notes.txt'), 'changed\n');
    writing.release();
    const after = await worker.take(v, bundle);
    expect(readFileSync(path.join(after.dir, 'blueprints/bp/notes.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
    expect(worker.counts).toEqual({ made: 2, reset: 1 });
    after.release();
  });

  it('lets a job of a version being evicted wait for the eviction, then check it out again; evicts only checkouts idle when their turn comes', async () => {
    const cache = tempDir();
    const versions = await Promise.all([1, 2, 3, 4, 5].map((n) => version({ [`blueprints/bp/v${n}.txt`]: `${n}\n` })));
    const bundleOf = (bytes: Buffer) => async () => bytes;
    // The first eviction's runtimes take a while to close.
    let evictionStarted!: (tree: string) => void;
    const evicted = new Promise<string>((resolve) => (evictionStarted = resolve));
    let finishEviction!: () => void;
    const gate = new Promise<void>((resolve) => (finishEviction = resolve));
    let evictions = 0;
    const worker = warmCheckouts(cache, async (tree) => {
      evictions += 1;
      if (evictions > 1) return;
      evictionStarted(tree);
      await gate;
    }, () => undefined);
    const [first] = versions as [(typeof versions)[number]];
    for (const { version: v, bytes } of versions.slice(0, 4)) (await worker.take(v, bundleOf(bytes))).release();
    // A fifth version: the oldest idle checkout (the first) is evicted, its runtimes closing...
    const fifth = worker.take(versions[4]!.version, bundleOf(versions[4]!.bytes));
    expect(await evicted).toBe(first.version.snapshot.tree);
    // Meanwhile a job takes the second version (next in line to be evicted, when the eviction began)...
    const second = await worker.take(versions[1]!.version, bundleOf(versions[1]!.bytes));
    // ...and a job of the first version comes again.
    const again = worker.take(first.version, bundleOf(first.bytes));
    // The eviction ends only after that job had the time to get its checkout (it waits for the eviction).
    await Promise.race([again, new Promise((resolve) => setTimeout(resolve, 300))]);
    finishEviction();
    const [lease] = await Promise.all([again, fifth.then((l) => l.release())]);
    // Its folder is there, as the version holds it, once the eviction is over.
    expect(readFileSync(path.join(lease.dir, 'blueprints/bp/v1.txt'), 'utf8')).toBe('1\n');
    expect(existsSync(path.join(lease.dir, 'blueprints/bp/agent.sh'))).toBe(true);
    expect(worker.counts.made).toBe(6);
    // The second version's checkout, in use, was not evicted to make room: an idle one was.
    expect(readFileSync(path.join(second.dir, 'blueprints/bp/v2.txt'), 'utf8')).toBe('2\n');
    expect(existsSync(path.join(cache, 'snapshots', path.basename(second.dir)))).toBe(true);
    lease.release();
    second.release();
  });
});
