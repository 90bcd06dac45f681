// The simulated member writer of `discover`. It is NOT a language model: like the simulated
// synthesizer it knows a short catalogue of crew members for the orders example, and writes the
// first one not yet in the archive whose tools the blueprint has, preferring one aimed at the
// most frequent symptom of the design split. What it models:
//   - order-finder: a look-up member that passes order ids as the back office writes them and
//     has turns enough to open a customer's orders one by one (aimed at tool_error and
//     step_budget_exhausted);
//   - returns-desk: a refunds member that normalizes order ids too (aimed at tool_error);
//   - when both are in, a note-taking member no orchestrator needs (numbered, never the same).
// Warm-up: a draft that ran out of turns in a warm-up run gets twice the turns; otherwise it is
// kept as it is. The orchestrator prompt for a team is a fixed template: the release's prompt,
// with a plan that lists each chosen member, when to call it and what the design split showed.
import type { MemberWriteRequest, OrchestratorPromptRequest } from '../../../domain/ports/model.ts';
import type { MemberDraft, OrchestratorPrompt } from '../../../domain/member-writer.ts';

interface CatalogueEntry {
  readonly name: string;
  readonly aims: readonly string[];
  /** Tool names it needs (looked up among the blueprint's wrappers). */
  readonly tools: readonly string[];
  readonly draft: (tools: readonly string[]) => MemberDraft;
}

const TOOL_LIST = '\n\nTools:\n{{#each tools}}\n- {{name}}: {{description}}\n{{/each}}\n';
const IDS = 'Pass order ids without the leading # and in upper case, as the back office writes them (W1234).';

const catalogue: readonly CatalogueEntry[] = [
  {
    name: 'order-finder',
    aims: ['step_budget_exhausted', 'tool_error'],
    tools: ['find_customer', 'list_orders', 'get_order'],
    draft: (tools) => ({
      name: 'order-finder',
      description: "Looks orders up in the back office: finds the customer by email, then the order by its id or by an item the customer names; gives the order's status, dates, items and payment as one line.",
      prompt: `You are {{member.name}}, a member of a customer-service crew: {{member.description}}\n${IDS} When the context names no order id, list the customer's orders and open them one by one until one has the item.\nAnswer with one line: ORDER followed by the order as JSON, or NOT FOUND and why.${TOOL_LIST}`,
      tools: [...tools],
      sees: ['context'],
      maxSteps: 12,
      maxCalls: 2,
      rationale: 'Look-ups fail on order ids written "#W1234" or "w1234", and a search by item runs out of turns opening orders one by one: a look-up member that normalizes ids and has turns enough.',
    }),
  },
  {
    name: 'returns-desk',
    aims: ['tool_error'],
    tools: ['cancel_order', 'return_items'],
    draft: (tools) => ({
      name: 'returns-desk',
      description: 'Carries out a cancellation or a return the customer has agreed to, with the order id as the back office writes it, and reports the refund.',
      prompt: `You are {{member.name}}, a member of a customer-service crew: {{member.description}}\n${IDS}\nCarry out exactly the cancellation or return the context names, then answer with one line: DONE followed by the tool's result as JSON, or FAILED and why.${TOOL_LIST}`,
      tools: [...tools],
      sees: ['context', 'request'],
      maxSteps: 3,
      maxCalls: 1,
      rationale: 'Cancellations fail when the order id keeps the customer\'s "#" or lower case: a member that carries them out with the id normalized.',
    }),
  },
];

/** A member no task needs: what the simulated writer falls back to once its catalogue is in the archive. */
function noteTaker(archive: readonly string[]): MemberDraft {
  let name = 'case-notes';
  for (let n = 2; archive.includes(name); n += 1) name = `case-notes-${n}`;
  return {
    name,
    description: 'Writes a short note summarising the conversation so far, for the record.',
    prompt: 'You are {{member.name}}, a member of a customer-service crew: {{member.description}}\nAnswer with one short note.\n',
    tools: [],
    sees: ['context'],
    maxSteps: 2,
    maxCalls: 1,
    rationale: 'The simulated writer has no other member for this task: a note-taker, which no step of the task needs.',
  };
}

export function simulatedMemberDraft(request: MemberWriteRequest): MemberDraft {
  if (request.warmup) return simulatedWarmup(request.warmup);
  const archive = request.archive.map((m) => m.name);
  const fileOf = (tool: string) => request.tools.find((t) => t.name === tool)?.file ?? null;
  const open = catalogue.filter((entry) => !archive.includes(entry.name) && entry.tools.every((t) => fileOf(t) !== null));
  const aimed = request.symptoms.map((s) => open.find((entry) => entry.aims.includes(s.label))).find((entry) => entry !== undefined);
  const entry = aimed ?? open[0];
  return entry ? entry.draft(entry.tools.map((t) => fileOf(t) as string)) : noteTaker(archive);
}

function simulatedWarmup(warmup: NonNullable<MemberWriteRequest['warmup']>): MemberDraft {
  const { draft } = warmup;
  const ranOut = warmup.trajectories.some((t) => t.trace.some((e) => e.type === 'error' && e.message.startsWith(`${draft.name} exhausted its step budget`)));
  if (!ranOut || draft.maxSteps >= 50) return draft;
  return { ...draft, maxSteps: Math.min(50, draft.maxSteps * 2), rationale: `${draft.rationale} Warm-up ${warmup.attempt}: it ran out of turns, so it gets ${Math.min(50, draft.maxSteps * 2)}.` };
}

export function simulatedOrchestratorPrompt(request: OrchestratorPromptRequest): OrchestratorPrompt {
  const plan = request.team.map((member) => {
    const { used, helpful } = member.arm;
    const shown = member.sees.map((v) => (v === 'context' ? 'the context you write' : v === 'request' ? "the customer's messages" : `${v}'s results`)).join(', ');
    const record = used === 0 ? 'it was not called on the design split' : `on the design split it took part in ${used} conversations and helped in ${helpful}`;
    return `- ${member.name}: ${member.description} Call it when the request needs exactly this; it sees only ${shown}, so write in the context everything it needs (${record}).`;
  });
  const section = `Your team for this task, and when to call each member:\n${plan.join('\n')}\n\n`;
  const current = request.current.content;
  const marker = current.indexOf('Your members and tools');
  const prompt = marker >= 0 ? `${current.slice(0, marker)}${section}${current.slice(marker)}` : `${current.trimEnd()}\n\n${section}`;
  return { prompt, rationale: `The release's orchestrator prompt, with a plan for the team ${request.team.map((m) => m.name).join(', ')} (the simulated writer's fixed template).` };
}
