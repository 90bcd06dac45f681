// What every model engine does alike, whatever its wire: a structured answer comes as one forced
// tool (function) call, is checked with the role's zod schema, and gets one repair turn before it
// is a StructuredOutputError; and every role but the agent is one such call. Each provider says
// only how its request and its answer look (its `Dialect`).
import {
  StructuredOutputError,
  addUsage,
  zeroUsage,
  type CallRole,
  type ModelPort,
  type Usage,
  type WithUsage,
} from '../../domain/ports/model.ts';
import type { RoleFacts } from '../../domain/role-facts.ts';
import { criticCall, diagnosticianCall, judgeCall, orchestratorPromptCall, requirementsReviewCall, synthesizerCall, writerCall, type StructuredCall } from './anthropic/requests.ts';

/** What one answer held: the forced call (its arguments read or not), or no such call. */
export type ReadAnswer =
  | {
      readonly kind: 'call';
      readonly args: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string; readonly raw: string };
      /** The turns that ask again, after `problem` was found in the arguments. */
      readonly retry: (problem: string) => unknown[];
    }
  | { readonly kind: 'none'; readonly problem: string; readonly output: string; readonly retry: unknown[] };

/** How one provider asks for a structured answer and reads it. */
export interface Dialect<Params, Result> {
  /** The request's parameters, with the conversation in their `messages`. */
  readonly params: (spec: StructuredCall<unknown>) => Params;
  readonly read: (result: Result, toolName: string) => ReadAnswer;
}

export type EngineCall<Params, Result> = (role: CallRole, params: Params, stream: boolean) => Promise<{ result: Result; usage: Usage }>;

/** One structured answer: the call, and one repair turn when the answer does not fit the schema. */
export function structuredAnswers<Params, Result>(call: EngineCall<Params, Result>, dialect: Dialect<Params, Result>) {
  return async function structured<T>(spec: StructuredCall<T>): Promise<WithUsage<T>> {
    const params = dialect.params(spec as StructuredCall<unknown>);
    const messages = [...((params as { messages?: unknown[] }).messages ?? [])];
    let usage = zeroUsage;
    let problem = '';
    let output = '(no answer)';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await call(spec.role, { ...params, messages: [...messages] }, spec.stream);
      usage = addUsage(usage, answer.usage);
      const read = dialect.read(answer.result, spec.tool.name);
      if (read.kind === 'call') {
        const parsed = read.args.ok ? spec.tool.schema.safeParse(read.args.value) : null;
        if (parsed?.success) return { value: parsed.data, usage, ...(attempt > 0 ? { repairs: [problem] } : {}) };
        problem = parsed ? parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ') : (read.args as { problem: string }).problem;
        output = read.args.ok ? JSON.stringify(read.args.value, null, 2) : read.args.raw;
        messages.push(...read.retry(problem));
      } else {
        problem = read.problem;
        output = read.output;
        messages.push(...read.retry);
      }
    }
    throw new StructuredOutputError(spec.role, `the ${spec.role}'s output was invalid after one repair: ${problem}`, output, problem);
  };
}

/** Every role but the agent's, each one structured call with the request's facts. */
export function structuredRoles(structured: <T>(spec: StructuredCall<T>) => Promise<WithUsage<T>>, facts: RoleFacts): Omit<ModelPort, 'agentTurn'> {
  return {
    criticize: (request) => structured(criticCall(request, facts)),
    writeDiagnosisScript: (request) => structured(diagnosticianCall(request, facts)),
    synthesize: (request) => structured(synthesizerCall(request, facts)),
    reviewRequirements: (request) => structured(requirementsReviewCall(request, facts)),
    judgeHelpfulness: (request) => structured(judgeCall(request, facts)),
    writeMember: (request) => structured(writerCall(request, facts)),
    writeOrchestratorPrompt: (request) => structured(orchestratorPromptCall(request, facts)),
  };
}
