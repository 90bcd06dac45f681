// The simulated synthesizer of the bundled example. It is NOT a language model: it knows a
// short catalogue of repairs for the orders example, picks the dominant symptom of the
// diagnosis report, and proposes the first repair for it that has not been tried. Like a real
// synthesizer it sometimes overreaches (asking for confirmation before every tool call fixes
// the skipped confirmations but breaks conversations that used to fit in the step budget), so
// the gate has real regressions to catch.
import type { RcHistoryEntry, SynthesisRequest } from '../../../domain/ports/model.ts';
import type { FileEdit, ReleaseCandidate } from '../../../domain/release-candidate.ts';
import { changeType, editEffects } from '../../../domain/blueprint-components.ts';

type Files = ReadonlyMap<string, string>;

interface Repair {
  readonly targets: readonly string[];
  readonly rationale: string;
  /** The edits, or null when the repair does not apply to these files (or is already in). */
  edits(files: Files, root: string): FileEdit[] | null;
}

function manifestOf(files: Files, root: string): { prompt: string; tools: string[] } | null {
  const text = files.get(`${root}/blueprint.json`);
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as { prompt?: string; tools?: string[] };
    return { prompt: parsed.prompt ?? 'system.hbs', tools: parsed.tools ?? [] };
  } catch {
    return null;
  }
}

/** Adds a paragraph to the system prompt, before the tool list when there is one. */
function addToPrompt(files: Files, root: string, paragraph: string, alreadyThere: RegExp): FileEdit[] | null {
  const manifest = manifestOf(files, root);
  if (!manifest) return null;
  const file = `${root}/${manifest.prompt}`;
  const prompt = files.get(file);
  if (prompt === undefined || alreadyThere.test(prompt)) return null;
  const marker = prompt.indexOf('You can use these tools');
  const content = marker >= 0 ? `${prompt.slice(0, marker)}${paragraph}\n\n${prompt.slice(marker)}` : `${prompt.trimEnd()}\n\n${paragraph}\n`;
  return [{ path: file, content }];
}

const ORDER_ID_HELPER = `/** Order ids are stored as "W1234"; customers write "#W1234", "w1234" or " W1234 ". */
export function normalizeOrderId(raw: string): string {
  return raw.trim().replace(/^#/, '').toUpperCase();
}
`;

const SEARCH_TOOL = `import { z } from 'zod';

interface OrdersEnv {
  listOrders(customerId: string): Array<{ orderId: string }>;
  getOrder(orderId: string): { items: Array<{ name: string }> };
}

export default {
  name: 'find_orders_by_item',
  description: "Find a customer's orders that contain an item, by (part of) the item's name. Returns the full orders.",
  inputSchema: z.object({ customer_id: z.string(), item: z.string().min(1) }),
  run: (args: { customer_id: string; item: string }, ctx: { env: OrdersEnv }) =>
    ctx.env
      .listOrders(args.customer_id)
      .map((summary) => ctx.env.getOrder(summary.orderId))
      .filter((order) => order.items.some((item) => item.name.toLowerCase().includes(args.item.toLowerCase()))),
};
`;

const repairs: Readonly<Record<string, readonly Repair[]>> = {
  tool_error: [
    {
      targets: ['tool_error'],
      rationale:
        'Order lookups fail when the customer writes the id with a leading "#" or in lower case; normalize order ids in every order tool before calling the back office.',
      edits(files, root) {
        const edits: FileEdit[] = [];
        for (const name of ['get_order', 'cancel_order', 'return_items']) {
          const file = `${root}/tools/${name}.ts`;
          const source = files.get(file);
          if (!source || source.includes('normalizeOrderId') || !source.includes('(args.order_id')) continue;
          const content = source
            .replace("import { z } from 'zod';", "import { z } from 'zod';\nimport { normalizeOrderId } from './order-id.ts';")
            .replace('(args.order_id', '(normalizeOrderId(args.order_id)');
          edits.push({ path: file, content });
        }
        if (edits.length === 0) return null;
        return [{ path: `${root}/tools/order-id.ts`, content: ORDER_ID_HELPER }, ...edits];
      },
    },
  ],
  missing_required_step: [
    {
      targets: ['missing_required_step'],
      rationale: 'Orders change without the customer agreeing; ask for a yes/no confirmation before every tool call.',
      edits: (files, root) =>
        addToPrompt(
          files,
          root,
          'Before every tool call, tell the customer what you are about to do and wait for them to confirm with yes or no.',
          /before (every|each|any) tool call/i,
        ),
    },
    {
      targets: ['missing_required_step', 'acted_against_user'],
      rationale:
        'Cancellations and returns happen without an explicit yes from the customer; ask the customer to confirm before either action, and change nothing on a no.',
      edits: (files, root) =>
        addToPrompt(
          files,
          root,
          'Before you cancel an order or return items, state exactly what you will do and the refund amount, and ask the customer to confirm (yes/no). Act only after a clear yes; if they say no, change nothing.',
          /ask the customer to confirm/i,
        ),
    },
  ],
  unexpected_state_change: [
    {
      targets: ['unexpected_state_change'],
      rationale: 'Returns are accepted after the return window has closed; state the 30-day window so that later returns are refused.',
      edits: (files, root) =>
        addToPrompt(
          files,
          root,
          'Items can be returned only within 30 days of delivery. Check the delivery date with get_order first, and politely refuse returns of orders delivered earlier than that.',
          /within \d+ days of delivery/i,
        ),
    },
  ],
  // An idea that costs more and fixes nothing: re-reading an order repeats an identical call.
  // The gate rejects it (no fixes) and its report shows the trace cost going up.
  missing_required_output: [
    {
      targets: ['missing_required_output'],
      rationale: 'Answers lack the figures the customer needs; look the order up again just before answering, so the amounts and dates are fresh.',
      edits: (files, root) =>
        addToPrompt(files, root, 'Just before you answer the customer, look the order up again with get_order to double-check the figures.', /look the order up again/i),
    },
  ],
  step_budget_exhausted: [
    {
      targets: ['step_budget_exhausted'],
      rationale:
        'Conversations run out of steps opening the orders one by one when the customer does not know the order id; add a tool that finds orders by item.',
      edits(files, root) {
        const manifestFile = `${root}/blueprint.json`;
        const text = files.get(manifestFile);
        if (!text || files.has(`${root}/tools/find_orders_by_item.ts`)) return null;
        const manifest = JSON.parse(text) as { tools?: string[]; members?: Array<{ tools?: string[] }> };
        // A crew gets the tool in the member that lists orders; a single agent in its own list.
        const searcher = manifest.members?.find((m) => m.tools?.includes('tools/list_orders.ts'));
        if (manifest.members && !searcher) return null;
        if (searcher) searcher.tools = [...(searcher.tools ?? []), 'tools/find_orders_by_item.ts'];
        else manifest.tools = [...(manifest.tools ?? []), 'tools/find_orders_by_item.ts'];
        const prompt = addToPrompt(
          files,
          root,
          'When the customer does not know the order id, use find_orders_by_item instead of opening their orders one by one.',
          /find_orders_by_item/,
        );
        return [
          { path: `${root}/tools/find_orders_by_item.ts`, content: SEARCH_TOOL },
          { path: manifestFile, content: `${JSON.stringify(manifest, null, 2)}\n` },
          ...(prompt ?? []),
        ];
      },
    },
  ],
};

function tried(history: readonly RcHistoryEntry[], repair: Repair): boolean {
  return history.some((entry) => entry.rationale === repair.rationale && entry.decision !== 'invalid');
}

/** A repair's targets that the vocabulary has (it names only symptoms the critic gave), the dominant one first. */
function targetsOf(repair: Repair, symptom: string, request: SynthesisRequest): string[] {
  const labels = new Set(request.taxonomy.map((s) => s.label));
  return labels.size === 0 ? [...repair.targets] : repair.targets.filter((t) => t === symptom || labels.has(t));
}

export function simulatedSynthesis(request: SynthesisRequest): ReleaseCandidate {
  const files = new Map(request.files.map((f) => [f.path, f.content]));
  const root = request.blueprintRoot;
  for (const symptom of request.diagnosis.dominantSymptoms) {
    for (const repair of repairs[symptom.label] ?? []) {
      if (tried(request.history, repair)) continue;
      const edits = repair.edits(files, root);
      if (edits && edits.length > 0) return { edits: typeEdits(request, edits), intent: { targets: targetsOf(repair, symptom.label, request), rationale: repair.rationale } };
    }
  }
  const top = request.diagnosis.dominantSymptoms[0]?.label ?? 'none';
  return { edits: [], intent: { targets: [top], rationale: 'The simulated synthesizer knows no untried repair for the remaining symptoms.' } };
}

/**
 * Types each edit as EvoMAC's updating operator would (remove, revise or add a component) by
 * what it does, read with the same component model as the scope check: the one component it
 * changes applied alone. A helper module that is no component of its own (it changes nothing
 * alone) is typed with the component of the RC's other edits that uses it: the first they change.
 */
function typeEdits(request: SynthesisRequest, edits: readonly FileEdit[]): FileEdit[] {
  const effects = editEffects(request.files, edits, request.blueprintRoot);
  const fallback = effects.alone.flat()[0] ?? null;
  return edits.map((edit, i) => {
    const component = effects.alone[i]?.[0] ?? fallback;
    return component === null ? edit : { ...edit, type: changeType(effects, component), component };
  });
}
