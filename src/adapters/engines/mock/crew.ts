// The simulated crew of the `orders-crew` example. It is NOT a language model: like the simulated
// single agent (agent.ts) it is a small deterministic policy for the orders task that reads only
// what a real model would read (its system prompt, the tools offered, its conversation). What it
// models:
//   - the orchestrator talks to the customer, applies the policy its prompt states (identity,
//     confirmation, return window, exchanges) and delegates: order look-ups to the member whose
//     description says it looks orders up, cancellations and returns to the member whose
//     description says it handles them, and (on status questions) it also consults any member
//     whose description offers delivery notes, whose answer it then does not use (a free rider);
//   - it writes each member's context in its own words: never the customer's message verbatim;
//   - a member acts on its view alone: it passes order ids as the context writes them (so a
//     wrapper that does not normalize "#W1001" fails), opens a customer's orders one by one when
//     it has no search tool (and can run out of turns), and answers in one line.
import type { AgentTurnRequest, AssistantBlock, ToolSpec } from '../../../domain/ports/model.ts';
import { isMemberTool, VIEW_HEADINGS, viewSections } from '../../../domain/crew.ts';
import { daysBetween, intentOf, itemPhraseOf, money, orderRefOf, type Guidance, type OrderView } from './orders-world.ts';
import type { ConversationView, ToolExchange } from './conversation.ts';

const TODAY = '2026-06-15';
const say = (text: string): AssistantBlock[] => [{ type: 'text', text }];
const EMAIL = /[\w.+-]+@[\w.-]+\.\w+/;

/** The crew's turn when the request is an orchestrator's or a member's; null for a single agent. */
export function crewTurn(request: AgentTurnRequest, guidance: Guidance, view: ConversationView): AssistantBlock[] | null {
  const members = request.tools.filter(isMemberTool);
  if (members.length > 0) return new Orchestrator(guidance, view, members).decide();
  const sections = viewSections(view.opening);
  if (sections.size > 0) return memberTurn(request, guidance, view, sections);
  return null;
}

/** The JSON object at the end of a member's one-line answer ("ORDER {...}", "DONE {...}"), or null. */
function payloadOf(answer: unknown): Record<string, unknown> | null {
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  const start = text.indexOf('{');
  if (start < 0) return null;
  try {
    return JSON.parse(text.slice(start)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

class Orchestrator {
  private readonly lookup: ToolSpec | undefined;
  private readonly changer: ToolSpec | undefined;
  private readonly notes: ToolSpec[];
  constructor(
    private readonly guidance: Guidance,
    private readonly view: ConversationView,
    members: ToolSpec[],
  ) {
    this.lookup = members.find((m) => /look(s)? (up|orders up)|find/i.test(m.description));
    // "cancel" or "refund", not "return": a look-up member's description may say it returns the order.
    this.changer = members.find((m) => m !== this.lookup && /cancel|refund/i.test(m.description));
    // Notes, not any mention of delivery: a look-up member's description may name the delivery date.
    this.notes = members.filter((m) => m !== this.lookup && m !== this.changer && /\bnotes?\b|shipping/i.test(m.description));
  }

  private lastCall(name: string | undefined): ToolExchange | undefined {
    return name === undefined ? undefined : [...this.view.calls].reverse().find((c) => c.name === name);
  }

  private delegate(member: ToolSpec, context: string): AssistantBlock[] {
    return [{ type: 'tool_use', id: `toolu_mock_${this.view.calls.length + 1}`, name: member.name, input: { context } }];
  }

  decide(): AssistantBlock[] {
    const { opening } = this.view;
    const intent = intentOf(opening);
    if (intent === 'unknown') return say('How can I help you with your orders today?');
    if (intent === 'exchange') {
      return say(this.guidance.exchangeHandover ? 'Exchanges are handled by our team: I am handing you over to a human agent now.' : "I'm sorry, I can't exchange items.");
    }
    const email = this.view.userTexts.map((t) => EMAIL.exec(t)?.[0]).find(Boolean) ?? null;
    if ((this.guidance.verifyIdentity || intent === 'find_return') && !email) return say('Could you please tell me the email address on your account?');
    if (!this.lookup) return say("I'm sorry, I can't look orders up right now.");
    const written = orderRefOf(opening);
    const found = this.lastCall(this.lookup.name);
    if (!found) {
      const who = email ? `Customer email: ${email}. ` : '';
      const what = intent === 'find_return' ? `Find the customer's order that contains the ${(itemPhraseOf(opening) ?? '').toLowerCase()}.` : `Find order ${written ?? ''}.`;
      return this.delegate(this.lookup, `${who}${what}`);
    }
    const order = found.ok ? (payloadOf(found.result) as OrderView | null) : null;
    if (!order || !Array.isArray(order.items)) return say(`I'm sorry, I couldn't find ${written ? `order ${written}` : 'that order'}. Please check the details.`);
    if (intent === 'status') {
      // Consulted on every status question; what it says is never used in the answer.
      const unasked = this.notes.find((m) => !this.lastCall(m.name));
      if (unasked) return this.delegate(unasked, `Order ${order.id} is ${order.status}. Add a delivery note if useful.`);
      return say(order.status === 'delivered' ? `Order ${order.id} was delivered on ${order.deliveredOn}.` : `Order ${order.id} is ${order.status} and has not been delivered yet.`);
    }
    return this.change(intent, order, written ?? order.id);
  }

  private change(intent: 'cancel' | 'return' | 'find_return', order: OrderView, written: string): AssistantBlock[] {
    const done = this.lastCall(this.changer?.name);
    if (done) {
      const receipt = done.ok ? payloadOf(done.result) : null;
      if (!receipt || typeof receipt.refund !== 'number') return say(`I'm sorry, that did not go through: ${String(done.result)}`);
      const what = intent === 'cancel' ? 'cancelled order' : 'return';
      return say(`All done: your ${what} for order ${String(receipt.orderId)} is processed. A refund of ${money(receipt.refund)} goes to your original payment method.`);
    }
    if (!this.changer) return say("I'm sorry, I can't change orders.");
    let question: string;
    let context: string;
    if (intent === 'cancel') {
      if (order.status !== 'pending' && order.status !== 'processing') return say(`Order ${order.id} is ${order.status}, so it can no longer be cancelled.`);
      const reason = /mistake/i.test(this.view.opening) ? 'ordered by mistake' : 'no longer needed';
      question = `I can cancel order ${order.id} (reason: ${reason})`;
      context = `Cancel order ${written} (reason: ${reason}).`;
    } else {
      const window = this.guidance.returnWindowDays;
      if (window !== null && order.deliveredOn && daysBetween(order.deliveredOn, TODAY) > window) {
        return say(`I'm sorry, order ${order.id} was delivered on ${order.deliveredOn}, more than ${window} days ago, so it can no longer be returned.`);
      }
      const phrase = (itemPhraseOf(this.view.opening) ?? '').toLowerCase();
      const matching = order.items.filter((i) => i.name.toLowerCase() === phrase);
      const chosen = matching.length > 0 ? matching : order.items;
      const total = chosen.reduce((s, i) => s + i.price, 0);
      question = `I can return the ${chosen.map((i) => i.name).join(', ')} from order ${order.id} for a refund of ${money(total)} to your ${order.payment.label}`;
      context = `Return items ${chosen.map((i) => i.id).join(', ')} from order ${intent === 'return' ? written : order.id}.`;
    }
    if (this.guidance.confirmActions) {
      const asked = this.view.lastQuestion;
      if (!asked || !asked.text.startsWith(question)) return say(`${question}. Shall I go ahead? (yes/no)`);
      if (asked.answer === null || !/^\s*(yes|yeah|sure|please|ok)/i.test(asked.answer)) return say("Understood, I haven't changed anything. Is there anything else I can help with?");
    }
    return this.delegate(this.changer, context);
  }
}

/** A member's turn: it acts on the sections of its view and answers in one line. */
function memberTurn(request: AgentTurnRequest, guidance: Guidance, view: ConversationView, sections: Map<string, string>): AssistantBlock[] {
  const has = (tool: string): boolean => request.tools.some((t) => t.name === tool);
  const last = (name: string): ToolExchange | undefined => [...view.calls].reverse().find((c) => c.name === name);
  // Ids unique across the crew's agents (a real API's are unique everywhere), so a trace's call sites never collide.
  const member = /^You are ([a-z][a-z0-9_-]*)/.exec(request.system)?.[1] ?? 'member';
  const call = shortHash(view.opening);
  const use = (name: string, input: Record<string, unknown>): AssistantBlock[] => [{ type: 'tool_use', id: `toolu_mock_${member}_${call}_${view.calls.length + 1}`, name, input }];
  const orderArg = (raw: string): string => (guidance.garbleIds ? raw.toLowerCase() : guidance.stripOrderIdPrefix ? raw.replace(/^#/, '').toUpperCase() : raw);
  const context = sections.get(VIEW_HEADINGS.context) ?? '';

  if (has('return_items') || has('cancel_order')) {
    const receipt = last('return_items') ?? last('cancel_order');
    if (receipt) return say(receipt.ok ? `DONE ${JSON.stringify(receipt.result)}` : `FAILED: ${String(receipt.result)}`);
    const cancel = /Cancel order (\S+) \(reason: ([^)]+)\)/.exec(context);
    if (cancel && has('cancel_order')) return use('cancel_order', { order_id: orderArg(cancel[1] as string), reason: cancel[2] });
    const ret = /Return items (.+) from order (\S+?)\.?$/m.exec(context);
    if (ret && has('return_items')) return use('return_items', { order_id: orderArg(ret[2] as string), item_ids: (ret[1] as string).split(/,\s*/) });
    return say('FAILED: the context names no cancellation or return I can carry out.');
  }

  if (has('get_order')) {
    const email = EMAIL.exec(context)?.[0] ?? null;
    let customerId: string | null = null;
    if (email && has('find_customer')) {
      const lookup = last('find_customer');
      if (!lookup) return use('find_customer', { email });
      if (!lookup.ok) return say(`NOT FOUND: no customer with the email ${email}`);
      customerId = (lookup.result as { customerId: string }).customerId;
    }
    const ref = orderRefOf(context);
    if (ref) {
      const got = last('get_order');
      if (!got) return use('get_order', { order_id: orderArg(ref) });
      return say(got.ok ? `ORDER ${JSON.stringify(got.result)}` : `NOT FOUND: ${String(got.result)}`);
    }
    const phrase = /contains the (.+?)\.$/m.exec(context)?.[1]?.toLowerCase() ?? '';
    if (!customerId || !phrase) return say('NOT FOUND: the context names no order and no customer to search.');
    if (has('find_orders_by_item')) {
      const search = last('find_orders_by_item');
      if (!search) return use('find_orders_by_item', { customer_id: customerId, item: phrase });
      const first = search.ok ? (search.result as OrderView[])[0] : undefined;
      return say(first ? `ORDER ${JSON.stringify(first)}` : `NOT FOUND: no order with a ${phrase}`);
    }
    const list = last('list_orders');
    if (!list && has('list_orders')) return use('list_orders', { customer_id: customerId });
    const ids = (list?.ok ? (list.result as Array<{ orderId: string }>) : []).map((o) => o.orderId);
    const opened = view.calls.filter((c) => c.name === 'get_order' && c.ok).map((c) => c.result as OrderView);
    const match = opened.find((o) => o.items.some((i) => i.name.toLowerCase() === phrase));
    if (match) return say(`ORDER ${JSON.stringify(match)}`);
    const next = ids.find((id) => !opened.some((o) => o.id === id));
    return next ? use('get_order', { order_id: next }) : say(`NOT FOUND: no order with a ${phrase}`);
  }

  // A member with no order tools: general delivery notes, the same whatever it is asked.
  return say('Note: standard shipping takes 3 to 5 business days, and tracking links are emailed when a parcel ships.');
}

/** Eight hex digits of FNV-1a: tells one call of a member from another in the same trace. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
