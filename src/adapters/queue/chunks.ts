// Case-trials that go out together share a BullMQ job (a chunk). On a worker, each BullMQ job
// costs a round trip to Redis and BullMQ's handling whatever it carries: about 0.6–0.8 ms of CPU
// on a small VM (bench/bullmq-floor.ts), as much as the rest of a case-trial's overhead. So when
// a coordinator adds many at once, they go CHUNK_SIZE to a job. A run's first batch (at most
// FIRST_BATCH_MAX) still goes one to a job, and so do the case-trials that follow one result at a
// time: a worker takes a chunk into one of its slots and runs its members as its slots free up, so
// chunks taken first would let one worker hold the work of a small run while others wait. Only the
// batch queued behind the first, which waits for free slots anyway, goes in chunks.
//
// Each member keeps its own content-addressed id and its own tag, and its answer comes back
// tagged for its id: a chunk changes how case-trials travel, not what proves them. A member's
// chunk is written beside it in Redis (agentdevel:chunk-of:<id>), so a coordinator that restarts
// finds a member's result, or its chunk still running, by the member's id alone.
import { FIRST_BATCH_MAX, type QueueEvent } from './collector.ts';
import { isTagged, type Tagged } from './queue-key.ts';

/** Case-trials to a chunk. */
export const CHUNK_SIZE = 4;
/** Fewer than this added at once go one to a job: a run's first batch, and the case-trials that follow results. */
export const CHUNK_FROM = FIRST_BATCH_MAX + 1;
/** Where a member's chunk id is kept, by the member's id. */
export const CHUNK_OF_PREFIX = 'agentdevel:chunk-of:';
const CHUNK_ID = /^chunk-[0-9a-f]{32}$/;

export const isChunkId = (jobId: string): boolean => CHUNK_ID.test(jobId);

/** A case-trial in a chunk: its job id, and its entry (body and tag) as a job of its own would carry it. */
export interface Member extends Tagged {
  readonly id: string;
}

/** A chunk's data. */
export interface ChunkEntry {
  readonly chunk: readonly Member[];
}

/** A member's answer: its result, tagged for its id; or why it was refused (never run again) or failed. */
export type MemberAnswer = Member | { readonly id: string; readonly refused: string } | { readonly id: string; readonly failed: string };

export interface ChunkAnswer {
  readonly chunk: readonly MemberAnswer[];
}

export function isChunkEntry(value: unknown): value is ChunkEntry {
  const chunk = (value as Partial<ChunkEntry> | null)?.chunk;
  return Array.isArray(chunk) && chunk.length > 0 && chunk.every((member: unknown) => isTagged(member) && typeof (member as Member).id === 'string');
}

/** The jobs of one addition, grouped: one to a group when few, else CHUNK_SIZE to a group (the last one maybe fewer). */
export function groups<T>(jobs: readonly T[]): T[][] {
  if (jobs.length < CHUNK_FROM) return jobs.map((job) => [job]);
  const out: T[][] = [];
  for (let i = 0; i < jobs.length; i += CHUNK_SIZE) out.push(jobs.slice(i, i + CHUNK_SIZE));
  return out;
}

function answersOf(returnvalue: string): readonly MemberAnswer[] {
  try {
    const chunk = (JSON.parse(returnvalue) as Partial<ChunkAnswer> | null)?.chunk;
    return Array.isArray(chunk) ? chunk.filter((answer: unknown) => typeof (answer as MemberAnswer | null)?.id === 'string') : [];
  } catch {
    return [];
  }
}

/** A member's answer as the event, or the job state, of a job of its own: its result as the JSON text of its tagged entry. */
export function memberOutcome(answer: MemberAnswer): { readonly returnvalue: string } | { readonly failedReason: string } {
  if ('refused' in answer) return { failedReason: String(answer.refused) };
  if ('failed' in answer) return { failedReason: String(answer.failed) };
  return { returnvalue: JSON.stringify({ body: answer.body, tag: answer.tag }) };
}

/** The answer of `memberId` in a chunk's returned value; null when the chunk has none for it. */
export function memberAnswer(returnvalue: string, memberId: string): MemberAnswer | null {
  return answersOf(returnvalue).find((answer) => answer.id === memberId) ?? null;
}

/**
 * A chunk's event as its members' events: a completed chunk carries every member's answer; a
 * chunk that failed for good (its checkout, its worker's stalls) fails each of its members,
 * known by the coordinator that added it (`members`; none: the sweep finds them later).
 */
export function memberEvents(event: QueueEvent, members: readonly string[] | undefined): QueueEvent[] {
  if (event.kind === 'completed') {
    return answersOf(event.returnvalue).map((answer) => {
      const outcome = memberOutcome(answer);
      return 'returnvalue' in outcome ? { kind: 'completed', jobId: answer.id, returnvalue: outcome.returnvalue } : { kind: 'failed', jobId: answer.id, failedReason: outcome.failedReason };
    });
  }
  if (event.kind === 'failed') return (members ?? []).map((jobId) => ({ kind: 'failed', jobId, failedReason: event.failedReason }));
  return [];
}
