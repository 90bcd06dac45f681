// The coordinator's collector (adapters/queue/collector.ts) over a link of this file's making:
// jobs kept in a map, round trips as slow as each test needs. What it checks is the collector's
// own bookkeeping around an interrupt (which jobs it takes back, and when) and around a job
// another command removed; Redis and BullMQ themselves are tested end to end (test/e2e/queue*).
import { afterEach, describe, expect, it } from 'vitest';
import { startCollector, type CaseTrialQueue, type CoordinatorLink, type QueueEvent } from '../../src/adapters/queue/collector.ts';
import { waitFor } from '../helpers/waits.ts';

const settings = { lostAfterMs: 10_000, idleLimitMs: 60_000, noWorkerHintMs: 60_000, attempts: 3, keepResultsSeconds: 60 };
const key = Buffer.from('collector-test-key-0123456789');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue in memory: jobs waiting, every id ever added, and events to hand the reader. */
function memoryLink(options: { statesMs?: (call: number) => number } = {}) {
  const waiting = new Set<string>();
  const added: string[] = [];
  const events: QueueEvent[] = [];
  let statesCalls = 0;
  const link: CoordinatorLink = {
    shown: 'memory',
    states: async (ids) => {
      await sleep(options.statesMs?.(statesCalls++) ?? 0);
      return ids.map((id) => (waiting.has(id) ? { finished: false, returnvalue: null, failedReason: null, createdAt: 0 } : null));
    },
    addAll: async (jobs) => {
      for (const job of jobs) {
        waiting.add(job.id);
        added.push(job.id);
      }
    },
    remove: async (id) => {
      waiting.delete(id);
    },
    removeWaiting: async (ids) => ids.filter((id) => waiting.delete(id)).length,
    eventsEnd: async () => '0-0',
    eventsAfter: async (after, blockMs) => {
      if (events.length === 0) await sleep(Math.min(blockMs, 10));
      return { position: after, events: events.splice(0) };
    },
    reachable: async () => true,
    hasBundle: async () => true,
    putBundle: async () => undefined,
    putVersion: async () => undefined,
    workerCount: async () => 1,
    close: async () => undefined,
  };
  return { link, waiting, added, events };
}

const opened: CaseTrialQueue[] = [];
afterEach(async () => {
  for (const queue of opened.splice(0)) await queue.close();
});

async function collector(link: CoordinatorLink): Promise<CaseTrialQueue> {
  const queue = await startCollector(link, settings, key);
  opened.push(queue);
  return queue;
}

describe('the collector', () => {
  it('withdrawn, takes back every job it sent, a batch still being sent included, and sends nothing more', async () => {
    // The first batch's lookup is slow; the next batch goes out meanwhile and is quick.
    const memory = memoryLink({ statesMs: (call) => (call === 0 ? 300 : 0) });
    const queue = await collector(memory.link);
    for (let i = 0; i < 100; i += 1) void queue.submit(`job-${i}`, `{"n":${i}}`).catch(() => undefined);
    expect(await waitFor(() => memory.added.length > 0, 2000, 5)).toBe(true);
    const taken = await queue.withdraw();
    await sleep(400);
    expect(memory.waiting.size).toBe(0);
    expect(taken).toBe(memory.added.length);
    // Submitted later, or to be sent again: nothing goes out once withdrawn.
    void queue.submit('job-late', '{"n":-1}').catch(() => undefined);
    await sleep(100);
    expect(memory.added).not.toContain('job-late');
  });

  it('adds again a job it waits for that another command removed', async () => {
    const memory = memoryLink();
    const queue = await collector(memory.link);
    void queue.submit('shared', '{"n":1}').catch(() => undefined);
    expect(await waitFor(() => memory.added.length === 1, 2000, 5)).toBe(true);
    // Another command's withdrawal: the job is gone, and the stream says so.
    memory.waiting.delete('shared');
    memory.events.push({ kind: 'removed', jobId: 'shared' });
    expect(await waitFor(() => memory.added.length === 2, 2000, 5)).toBe(true);
    expect(memory.waiting.has('shared')).toBe(true);
  });
});
