import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import type { CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { z } from '../../domain/zod.ts';
import type { RunTraces } from '../../domain/ports/run-traces.ts';
import { recordTrace } from '../../domain/trace-lines.ts';
import type { RecordStore } from '../../domain/ports/record-store.ts';
import type { Redactor } from '../../domain/environment.ts';

// tau-bench's results format: a JSON list of {task_id, reward, info, traj, trial}, where traj is
// the chat transcript (system, user, assistant with tool_calls, tool).
const toolCallSchema = z
  .object({
    id: z.string().optional(),
    function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional() }).passthrough(),
  })
  .passthrough();
const messageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().nullable().optional(),
    tool_calls: z.array(toolCallSchema).nullable().optional(),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
  })
  .passthrough();
const entrySchema = z
  .object({
    task_id: z.union([z.number(), z.string()]),
    reward: z.number(),
    info: z.unknown().optional(),
    traj: z.array(messageSchema),
    trial: z.number().int().nonnegative().default(0),
  })
  .passthrough();
const resultsSchema = z.array(entrySchema);
type Entry = z.output<typeof entrySchema>;

/**
 * A tau-bench trajectory as trace events. The system message is dropped: it is the agent's
 * prompt, and traces never carry the blueprint (the critic must stay blind to it).
 */
export function trajectoryToTrace(entry: Entry): TraceEvent[] {
  const events: TraceEvent[] = [{ type: 'start', caseId: String(entry.task_id), trial: entry.trial }];
  let lastAssistant: string | null = null;
  let callNumber = 0;
  for (const message of entry.traj) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        events.push({ type: 'message', role: 'user', text: message.content ?? '' });
        break;
      case 'assistant':
        if (message.content) {
          events.push({ type: 'message', role: 'assistant', text: message.content });
          lastAssistant = message.content;
        }
        for (const call of message.tool_calls ?? []) {
          callNumber += 1;
          const raw = call.function.arguments;
          let args: unknown = raw ?? {};
          if (typeof raw === 'string') {
            try {
              args = JSON.parse(raw);
            } catch {
              args = raw;
            }
          }
          events.push({ type: 'tool_call', id: call.id ?? `call_${callNumber}`, name: call.function.name, args });
        }
        break;
      case 'tool': {
        const content = message.content ?? '';
        const failed = /^error\b/i.test(content.trim());
        const id = message.tool_call_id ?? `call_${callNumber}`;
        events.push(failed ? { type: 'tool_result', id, ok: false, error: content } : { type: 'tool_result', id, ok: true, result: content });
        break;
      }
    }
  }
  events.push({ type: 'final', output: lastAssistant });
  return events;
}

export interface ImportRequest {
  readonly file: string;
  readonly name: string;
  readonly trials: readonly number[] | null;
  /** Which agent version the results come from; runs of one version pool into the flaky history. */
  readonly version: string | null;
}

/** Reads a tau-bench results file into a run: one record per task-trial, reward 1 meaning pass. */
export async function importTaubench(
  store: RecordStore,
  openTraces: (runId: string) => RunTraces,
  runId: string,
  request: ImportRequest,
  redact: Redactor,
): Promise<{ runId: string; records: CaseRecord[] }> {
  let text: string;
  try {
    text = await readFile(request.file, 'utf8');
  } catch (cause) {
    throw new AgentdevelError('USAGE', `${request.file}: cannot be read`, { cause });
  }
  const results = parseJsonDocument(text, request.file, resultsSchema, 'CASES_INVALID');
  const wanted = request.trials ? new Set(request.trials) : null;
  const entries = results.filter((e) => !wanted || wanted.has(e.trial));
  if (entries.length === 0) throw new AgentdevelError('USAGE', `${request.file}: no results${wanted ? ` for trials ${[...wanted].join(',')}` : ''}`);
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = `${entry.task_id}#${entry.trial}`;
    if (seen.has(key)) throw new AgentdevelError('CASES_INVALID', `${request.file}: task ${entry.task_id} trial ${entry.trial} appears twice`);
    seen.add(key);
  }
  if (store.findRun(request.name)) throw new AgentdevelError('USAGE', `--name: a run named "${request.name}" already exists`);

  const fileHash = createHash('sha256').update(text).digest('hex');
  const trialsPerTask = Math.max(...countBy(entries.map((e) => String(e.task_id))).values());
  store.createRun(
    runId,
    {
      cacheKey: `import:${runId}`,
      blueprint: 'taubench',
      commit: `import:${path.basename(request.file)}`,
      blueprintTree: `import:${request.version ?? fileHash}`,
      taskTree: 'taubench',
      split: 'train',
      trials: trialsPerTask,
      agentModel: 'imported',
      criticModel: 'none',
      simulated: false,
    },
    'run',
    request.name,
  );
  const records: CaseRecord[] = [];
  const traces = openTraces(runId);
  for (const entry of entries) {
    const caseId = String(entry.task_id);
    const recorder = recordTrace(redact);
    const trace = trajectoryToTrace(entry);
    for (const event of trace) recorder.emit(event);
    const traceRef = await traces.append(recorder.lines);
    const outage = agentSideError(entry);
    const pass = entry.reward >= 1 - 1e-9;
    const record: CaseRecord = outage
      ? { caseId, trial: entry.trial, status: 'infra_error', output: null, traceRef, scorer: null, critic: null, pass: null, error: redact(`tau-bench: ${outage}`) }
      : {
          caseId,
          trial: entry.trial,
          status: 'ok',
          output: (trace.at(-1) as { output: unknown }).output,
          traceRef,
          scorer: { pass, checks: [{ scorer: 'taubench-reward', pass, ...(pass ? {} : { code: 'reward_below_1' }), message: `reward ${entry.reward}` }] },
          critic: null,
          pass,
          error: null,
        };
    records.push(record);
  }
  await traces.close();
  store.saveRecords(runId, records);
  store.finishRun(runId, 'complete');
  return { runId, records };
}

/**
 * tau-bench's runner catches an exception in the agent (an API outage, a timeout) and writes
 * reward 0 with `info.error` and an empty trajectory. That is an infrastructure failure, not a
 * fail: it must never become a flip.
 */
function agentSideError(entry: Entry): string | null {
  const info = entry.info;
  if (!info || typeof info !== 'object' || !('error' in info)) return null;
  const error = (info as { error?: unknown }).error;
  if (error === undefined || error === null || error === '') return null;
  return typeof error === 'string' ? error.split('\n')[0]?.slice(0, 300) ?? 'error' : JSON.stringify(error).slice(0, 300);
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
