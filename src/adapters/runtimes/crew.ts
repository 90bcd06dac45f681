import { pathToFileURL } from 'node:url';
import type { Case } from '../../domain/case.ts';
import { type ConversationMessage, type ToolSpec, type UserBlock } from '../../domain/ports/model.ts';
import { MEMBER_INPUT_SCHEMA, VIEW_HEADINGS } from '../../domain/crew.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { renderMemberPrompt, renderOrchestratorPrompt, toolNameOf } from '../blueprint/load.ts';
import { CONTEXT_VIEW, ORCHESTRATOR, REQUEST_VIEW, type CrewManifest, type CrewMember } from '../../domain/blueprint-manifest.ts';
import { startToolHost, type SessionEnd, type ToolHost } from './tool-host/client.ts';
import { visibleCase, type CaseOutcome, type Runtime, type TraceSink } from '../../domain/ports/runtime.ts';
import { playOnPool, playTurn, startFirstHost, userTurn, type ToolLoopOptions } from './tool-loop.ts';
import { startHostPool } from './tool-host/pool.ts';

/** A crew runs with what a tool-loop agent runs with; its manifest names the members. */
export interface CrewOptions extends Omit<ToolLoopOptions, 'manifest' | 'gradesHere'> {
  readonly manifest: CrewManifest;
}

interface MemberRuntime {
  readonly member: CrewMember;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
}

/** What a crew member answered the orchestrator: its last text, or why it has none. */
type MemberAnswer = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

/** What one case-trial has seen so far, from which each member's view is cut. */
interface CaseState {
  readonly session: string;
  readonly seed: string;
  readonly host: ToolHost;
  readonly sink: TraceSink;
  readonly userTexts: string[];
  readonly results: Map<string, string[]>;
  readonly calls: Map<string, number>;
}

/** The part of the conversation a member receives, by its `sees` list; never the orchestrator's history. */
export function memberInput(member: CrewMember, context: string, state: { userTexts: readonly string[]; results: ReadonlyMap<string, readonly string[]> }): string {
  const parts: string[] = [];
  for (const view of member.sees) {
    if (view === CONTEXT_VIEW) parts.push(`${VIEW_HEADINGS.context}\n${context}`);
    else if (view === REQUEST_VIEW) parts.push(`${VIEW_HEADINGS.request}\n${state.userTexts.join('\n')}`);
    else {
      const results = state.results.get(view) ?? [];
      parts.push(`${VIEW_HEADINGS.member(view)}\n${results.length > 0 ? results.join('\n') : '(none yet)'}`);
    }
  }
  return parts.join('\n\n');
}

/**
 * The crew runtime: an orchestrator runs the tool-use loop with the user, and calls its members
 * as tools. A member runs its own short loop with its own prompt and tool subset, and receives
 * only what its `sees` list grants (BOAD: sub-agents never see the orchestrator's history).
 * The runtime enforces each agent's tool subset, each member's turns per call and calls per
 * case. Every trace event names the agent that produced it.
 */
export async function startCrew(options: CrewOptions): Promise<Runtime> {
  const { blueprint, manifest } = options;
  const hostBundles = { wrappers: blueprint.wrappersBundle as string, environment: options.environmentBundle };
  const hostLimits = { callTimeoutMs: options.callTimeoutMs, memoryMb: options.memoryMb };
  const environment = options.environmentBundle
    ? ((await import(pathToFileURL(options.environmentBundle).href)) as { expectedState?: (c: unknown) => unknown })
    : null;
  const first = await startFirstHost(() => startToolHost(hostBundles, hostLimits));
  const nameOf = toolNameOf(blueprint, first.tools);
  const pick = (files: readonly string[]): ToolSpec[] => files.flatMap((file) => first.tools.filter((t) => t.name === nameOf(file)));
  let orchestratorSystem: string;
  const members = new Map<string, MemberRuntime>();
  try {
    orchestratorSystem = renderOrchestratorPrompt(blueprint, pick(manifest.orchestrator.tools));
    for (const member of manifest.members) {
      const tools = pick(member.tools);
      members.set(member.name, { member, tools, system: renderMemberPrompt(blueprint, member, tools) });
    }
  } catch (error) {
    first.stop();
    throw error;
  }
  const orchestratorTools: ToolSpec[] = [
    ...pick(manifest.orchestrator.tools),
    ...manifest.members.map((m) => ({ name: m.name, description: m.description, inputSchema: { ...MEMBER_INPUT_SCHEMA } })),
  ];
  const pool = await startHostPool({ start: () => startToolHost(hostBundles, hostLimits), isolation: options.isolation ?? 'shared', concurrency: options.concurrency ?? 1 }, first);

  const emitAs = (sink: TraceSink, agent: string) => (event: TraceEvent) => sink.emit({ ...event, agent });

  /** Runs one tool call of `agent` against the host, if the tool is in its subset. */
  async function useTool(state: CaseState, agent: string, allowed: readonly ToolSpec[], id: string, name: string, input: unknown): Promise<UserBlock> {
    const emit = emitAs(state.sink, agent);
    emit({ type: 'tool_call', id, name, args: input });
    if (!allowed.some((t) => t.name === name)) {
      const error = `${name} is not one of ${agent}'s tools (${allowed.map((t) => t.name).join(', ') || 'it has none'})`;
      emit({ type: 'tool_result', id, ok: false, error });
      return { type: 'tool_result', toolUseId: id, content: error, isError: true };
    }
    const outcome = await state.host.call(state.session, name, input);
    const changed = outcome.stateChanged === undefined ? {} : { stateChanged: outcome.stateChanged };
    emit(
      outcome.ok
        ? { type: 'tool_result', id, ok: true, result: outcome.result, ...changed }
        : { type: 'tool_result', id, ok: false, error: outcome.error ?? 'error', ...changed },
    );
    return { type: 'tool_result', toolUseId: id, content: outcome.ok ? JSON.stringify(outcome.result ?? null) : (outcome.error ?? 'error'), isError: !outcome.ok };
  }

  /** One call of a member: its own loop, on its own view, within its budget. */
  async function callMember(state: CaseState, runtime: MemberRuntime, context: string): Promise<MemberAnswer> {
    const { member } = runtime;
    const emit = emitAs(state.sink, member.name);
    const callNumber = (state.calls.get(member.name) ?? 0) + 1;
    if (callNumber > member.maxCalls) return { ok: false, error: `${member.name} was already called ${member.maxCalls} times in this conversation (its call budget)` };
    state.calls.set(member.name, callNumber);
    const input = memberInput(member, context, state);
    const messages: ConversationMessage[] = [{ role: 'user', content: [{ type: 'text', text: input }] }];
    let lastText: string | null = null;
    for (let step = 0; step < member.maxSteps; step += 1) {
      const turn = await options.model.agentTurn({
        model: options.agentModel,
        system: runtime.system,
        tools: runtime.tools,
        messages,
        maxTokens: manifest.maxTokens,
        ...(manifest.temperature === undefined ? {} : { temperature: manifest.temperature }),
        seed: `${state.seed}:${member.name}:${callNumber}`,
      });
      const played = await playTurn(turn, options.agentModel, emit, messages, (block) => useTool(state, member.name, runtime.tools, block.id, block.name, block.input));
      lastText = played.text ?? lastText;
      if (played.results.length === 0) {
        const text = lastText ?? '';
        state.results.set(member.name, [...(state.results.get(member.name) ?? []), text]);
        return { ok: true, text };
      }
      messages.push({ role: 'user', content: played.results });
    }
    const error = `${member.name} exhausted its step budget: ${member.maxSteps} model turns without an answer`;
    emit({ type: 'error', kind: 'agent', message: error });
    return { ok: false, error };
  }

  /** One conversation on `host`; a host or request that fails throws (the pool decides what it means). */
  async function converse(current: ToolHost, testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    const session = `${testCase.id}#${trial}`;
    const emit = emitAs(sink, ORCHESTRATOR);
    let ended = false;
    try {
      const visible = visibleCase(testCase, options.gradingPaths);
      const { opening } = await current.open(session, visible);
      const input = visible.input;
      const firstText = opening ?? (typeof input === 'string' ? input : JSON.stringify(visible));
      const state: CaseState = { session, seed: `${testCase.id}:${trial}`, host: current, sink, userTexts: [firstText], results: new Map(), calls: new Map() };
      emit({ type: 'message', role: 'user', text: firstText });
      const messages: ConversationMessage[] = [{ role: 'user', content: [{ type: 'text', text: firstText }] }];
      let lastText: string | null = null;
      let finished: SessionEnd | null = null;
      for (let step = 0; step < manifest.orchestrator.maxSteps && !finished; step += 1) {
        const turn = await options.model.agentTurn({
          model: options.agentModel,
          system: orchestratorSystem,
          tools: orchestratorTools,
          messages,
          maxTokens: manifest.maxTokens,
          ...(manifest.temperature === undefined ? {} : { temperature: manifest.temperature }),
          seed: state.seed,
        });
        const played = await playTurn(turn, options.agentModel, emit, messages, async (block) => {
          const member = members.get(block.name);
          if (!member) return useTool(state, ORCHESTRATOR, orchestratorTools.filter((t) => !members.has(t.name)), block.id, block.name, block.input);
          emit({ type: 'tool_call', id: block.id, name: block.name, args: block.input });
          const context = (block.input as { context?: unknown } | null)?.context;
          const answer =
            typeof context === 'string'
              ? await callMember(state, member, context)
              : ({ ok: false, error: `invalid arguments for ${block.name}: expected {"context": string}` } as const);
          emit(answer.ok ? { type: 'tool_result', id: block.id, ok: true, result: answer.text } : { type: 'tool_result', id: block.id, ok: false, error: answer.error });
          return { type: 'tool_result', toolUseId: block.id, content: answer.ok ? answer.text : answer.error, isError: !answer.ok };
        });
        lastText = played.text ?? lastText;
        if (played.results.length > 0) {
          messages.push({ role: 'user', content: played.results });
          continue;
        }
        const userSaid = await userTurn(current, session, lastText, emit, messages);
        if ('end' in userSaid) {
          finished = userSaid.end;
          break;
        }
        state.userTexts.push(userSaid.reply);
      }
      if (!finished) {
        emit({ type: 'error', kind: 'agent', message: `step budget exhausted: ${manifest.orchestrator.maxSteps} orchestrator turns without finishing` });
      }
      const end = finished ?? (await current.close(session));
      ended = true;
      emit({ type: 'final', output: lastText });
      const expectedState = environment?.expectedState ? JSON.parse(JSON.stringify(environment.expectedState(testCase) ?? null)) : null;
      return { output: lastText, observation: { state: end.state, expectedState } };
    } finally {
      // A case-trial that failed mid-conversation leaves its session on a host that goes on serving others.
      if (!ended) current.discard(session);
    }
  }

  async function runCase(testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome> {
    return playOnPool(pool, sink, (host, attemptSink) => converse(host, testCase, trial, attemptSink), emitAs(sink, ORCHESTRATOR));
  }

  return {
    runCase,
    close: async () => pool.stop(),
  };
}
