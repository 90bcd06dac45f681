import { pathToFileURL } from 'node:url';
import type { Case } from '../../domain/case.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { providerOf } from '../../domain/models.ts';
import { AgentRequestRejected, InfraError, type AgentTurn, type AssistantBlock, type ConversationMessage, type ModelPort, type UserBlock } from '../../domain/ports/model.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { renderPromptFor, type LoadedBlueprint } from '../blueprint/load.ts';
import type { ToolLoopManifest } from '../../domain/blueprint-manifest.ts';
import { startToolHost, ToolHostError, ToolHostStartError, type SessionEnd, type ToolHost } from './tool-host/client.ts';
import { startHostPool, type HostIsolation, type HostPool } from './tool-host/pool.ts';
import { visibleCase, type CaseOutcome, type Runtime, type TraceSink } from '../../domain/ports/runtime.ts';

export interface ToolLoopOptions {
  readonly blueprint: LoadedBlueprint;
  readonly manifest: ToolLoopManifest;
  readonly environmentBundle: string | null;
  readonly model: ModelPort;
  readonly agentModel: string;
  readonly callTimeoutMs: number;
  readonly memoryMb: number;
  /** Paths of a case the grading reads (`caseGradingPaths`): the agent never sees them. */
  readonly gradingPaths: readonly string[];
  /** False on a queue worker: the case it gets has no grading fields, and the coordinator fills the expected state in. */
  readonly gradesHere?: boolean;
  /** Case-trials in flight at once: sizes the pool of tool hosts. */
  readonly concurrency?: number;
  /** Whether case-trials share tool hosts (the default) or each gets its own (see tool-host/pool.ts). */
  readonly isolation?: HostIsolation;
}

/** The task's expected state for a case, from its trusted code in this process; null without an environment. */
export async function expectedStateReader(environmentBundle: string | null): Promise<(testCase: Case) => unknown> {
  const environment = environmentBundle
    ? ((await import(pathToFileURL(environmentBundle).href)) as { expectedState?: (c: unknown) => unknown })
    : null;
  const expectedState = environment?.expectedState;
  return (testCase) => (expectedState ? JSON.parse(JSON.stringify(expectedState(testCase) ?? null)) : null);
}

/**
 * The built-in tool-use loop: the model proposes tool calls, the sandboxed tool host runs the
 * blueprint's wrappers against the task environment, and text turns go to the (simulated)
 * user until the user has nothing more to say or the step budget runs out.
 */
export async function startToolLoop(options: ToolLoopOptions): Promise<Runtime> {
  const { blueprint, manifest } = options;
  const hostBundles = { wrappers: blueprint.wrappersBundle as string, environment: options.environmentBundle };
  const hostLimits = { callTimeoutMs: options.callTimeoutMs, memoryMb: options.memoryMb };
  // The expected state comes from the task's trusted code in this process: the sandboxed host
  // (where the blueprint's wrappers run) never sees a case's expected answers.
  const expectedStateOf = options.gradesHere === false ? () => null : await expectedStateReader(options.environmentBundle);
  // Hosts are pooled (tool-host/pool.ts): the first starts eagerly, so wrappers that do not
  // import fail the load, not every case.
  const first = await startFirstHost(() => startToolHost(hostBundles, hostLimits));
  const tools = first.tools;
  let system: string;
  try {
    system = renderPromptFor(blueprint, tools);
  } catch (error) {
    first.stop();
    throw error;
  }
  const pool = await startHostPool({ start: () => startToolHost(hostBundles, hostLimits), isolation: options.isolation ?? 'shared', concurrency: options.concurrency ?? 1 }, first);

  /** One conversation on `host`; a host or request that fails throws (the pool decides what it means). */
  async function converse(host: ToolHost, testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    const session = `${testCase.id}#${trial}`;
    let ended = false;
    try {
      const outcome = await conversation(host, session, testCase, trial, sink);
      ended = true;
      return outcome;
    } finally {
      // A case-trial that failed mid-conversation (its model call, a request refused) leaves its
      // session on a host that goes on serving others.
      if (!ended) host.discard(session);
    }
  }

  async function conversation(host: ToolHost, session: string, testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    const visible = visibleCase(testCase, options.gradingPaths);
    const { opening } = await host.open(session, visible);
    const input = visible.input;
    const firstText = opening ?? (typeof input === 'string' ? input : JSON.stringify(visible));
    sink.emit({ type: 'message', role: 'user', text: firstText });
    const messages: ConversationMessage[] = [{ role: 'user', content: [{ type: 'text', text: firstText }] }];
    let lastText: string | null = null;
    let finished: SessionEnd | null = null;
    for (let step = 0; step < manifest.maxSteps && !finished; step += 1) {
      const turn = await options.model.agentTurn({
        model: options.agentModel,
        system,
        tools,
        messages,
        maxTokens: manifest.maxTokens,
        ...(manifest.temperature === undefined ? {} : { temperature: manifest.temperature }),
        seed: `${testCase.id}:${trial}`,
      });
      const played = await playTurn(turn, options.agentModel, (event) => sink.emit(event), messages, async (block) => {
        sink.emit({ type: 'tool_call', id: block.id, name: block.name, args: block.input });
        const outcome = await host.call(session, block.name, block.input);
        const changed = outcome.stateChanged === undefined ? {} : { stateChanged: outcome.stateChanged };
        sink.emit(
          outcome.ok
            ? { type: 'tool_result', id: block.id, ok: true, result: outcome.result, ...changed }
            : { type: 'tool_result', id: block.id, ok: false, error: outcome.error ?? 'error', ...changed },
        );
        return {
          type: 'tool_result',
          toolUseId: block.id,
          content: outcome.ok ? JSON.stringify(outcome.result ?? null) : (outcome.error ?? 'error'),
          isError: !outcome.ok,
        };
      });
      lastText = played.text ?? lastText;
      if (played.results.length > 0) {
        messages.push({ role: 'user', content: played.results });
        continue;
      }
      const userSaid = await userTurn(host, session, lastText, (event) => sink.emit(event), messages);
      if ('end' in userSaid) {
        finished = userSaid.end;
        break;
      }
    }
    if (!finished) {
      sink.emit({ type: 'error', kind: 'agent', message: `step budget exhausted: ${manifest.maxSteps} model turns without finishing` });
    }
    const end = finished ?? (await host.close(session));
    sink.emit({ type: 'final', output: lastText });
    return { output: lastText, observation: { state: end.state, expectedState: expectedStateOf(testCase) } };
  }

  async function runCase(testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    return playOnPool(pool, sink, (host, attemptSink) => converse(host, testCase, trial, attemptSink), (event) => sink.emit(event));
  }

  return {
    runCase,
    close: async () => pool.stop(),
  };
}

/** Starts the first tool host: wrappers that do not load are the blueprint's error (exit 2). */
export async function startFirstHost(start: () => Promise<ToolHost>): Promise<ToolHost> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof ToolHostError) {
      throw new AgentdevelError('BLUEPRINT_INVALID', `the tool wrappers do not load: ${error.message}`, { cause: error });
    }
    if (error instanceof ToolHostStartError) throw new AgentdevelError('INFRA', error.message, { cause: error });
    throw error;
  }
}

/**
 * The simulated user's turn after the agent's last message: the host's reply, added to the
 * conversation and the trace, or the end of the session when the user has nothing more to say.
 */
export async function userTurn(
  host: ToolHost,
  session: string,
  lastText: string | null,
  emit: (event: { type: 'message'; role: 'user'; text: string }) => void,
  messages: ConversationMessage[],
): Promise<{ readonly reply: string } | { readonly end: SessionEnd }> {
  const answer = await host.reply(session, lastText ?? '');
  if (answer.reply === null) return { end: answer.end };
  emit({ type: 'message', role: 'user', text: answer.reply });
  messages.push({ role: 'user', content: [{ type: 'text', text: answer.reply }] });
  return { reply: answer.reply };
}

type ToolUse = Extract<AssistantBlock, { type: 'tool_use' }>;

/**
 * One model turn of an agent, taken into the conversation: its usage traced, its message kept,
 * each non-empty text traced as the agent's, and each tool use answered by `useTool`, in the
 * order the turn gave them. `text` is the turn's last non-empty text (null: none); `results`
 * the tool results to send back (none: the agent has answered).
 */
export async function playTurn(
  turn: AgentTurn,
  model: string,
  emit: (event: TraceEvent) => void,
  messages: ConversationMessage[],
  useTool: (block: ToolUse) => Promise<UserBlock>,
): Promise<{ readonly text: string | null; readonly results: readonly UserBlock[] }> {
  const provider = providerOf(model);
  emit({ type: 'llm', model, ...(provider ? { provider } : {}), inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens, latencyMs: turn.latencyMs, stopReason: turn.stopReason });
  messages.push({ role: 'assistant', content: turn.content });
  let text: string | null = null;
  const results: UserBlock[] = [];
  for (const block of turn.content) {
    if (block.type === 'tool_use') {
      results.push(await useTool(block));
    } else if (block.text.trim() !== '') {
      text = block.text;
      emit({ type: 'message', role: 'assistant', text: block.text });
    }
  }
  return { text, results };
}

/** One case-trial played on a host of the pool; `emit` writes the events the agent's failure adds to its trace. */
export async function playOnPool(pool: HostPool, sink: TraceSink, converse: (host: ToolHost, sink: TraceSink) => Promise<CaseOutcome>, emit: (event: TraceEvent) => void): Promise<CaseOutcome> {
  try {
    return await pool.play(sink, converse);
  } catch (error) {
    // No host process at all is an outage of this machine, never the agent's failure.
    if (error instanceof ToolHostStartError) throw new InfraError('agent', error.message, { cause: error });
    if (!(error instanceof ToolHostError || error instanceof AgentRequestRejected)) throw error;
    // The host runs blueprint code and the request is built from the blueprint, so either
    // failing (on a host of the case-trial's own: see the pool) is the agent's failure on this case.
    emit({ type: 'error', kind: 'agent', message: error.message });
    emit({ type: 'final', output: null });
    return { output: null, observation: null };
  }
}
