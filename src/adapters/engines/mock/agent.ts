// The simulated agent of the bundled example. It is NOT a language model: it is a small,
// deterministic policy for the orders task that reads what a real model would read (the
// rendered system prompt, the tool descriptions and the conversation) and behaves the way a
// weak agent does. What it gets wrong depends on the blueprint:
//   - it passes order ids as the customer wrote them ("#W1001") unless told not to, so a
//     wrapper that does not normalize ids fails (wrong tool arguments);
//   - it asks for confirmation only if the prompt tells it to (skipped confirmation step);
//   - it knows no return window unless the prompt states one (policy violation);
//   - without a search tool it opens the customer's orders one by one (exhausted step budget).
import type { AgentTurn, AgentTurnRequest, AssistantBlock } from '../../../domain/ports/model.ts';
import { readConversation, type ConversationView, type ToolExchange } from './conversation.ts';
import { crewTurn } from './crew.ts';
import { mockUsage } from './usage.ts';

export { daysBetween, intentOf, itemPhraseOf, money, orderRefOf, readGuidance, type Guidance, type Intent, type OrderView } from './orders-world.ts';
import { daysBetween, intentOf, itemPhraseOf, money, orderRefOf, readGuidance, type Guidance, type Intent, type OrderView } from './orders-world.ts';

class Policy {
  private step = 0;
  constructor(
    private readonly request: AgentTurnRequest,
    private readonly guidance: Guidance,
    private readonly view: ConversationView,
  ) {}

  private has(tool: string): boolean {
    return this.request.tools.some((t) => t.name === tool);
  }

  private lastCall(name: string): ToolExchange | undefined {
    return [...this.view.calls].reverse().find((c) => c.name === name);
  }

  private say(text: string): AssistantBlock[] {
    return [{ type: 'text', text }];
  }

  /** A tool call, behind a confirmation question when the prompt asks for one. */
  private use(name: string, input: Record<string, unknown>, consequential: string | null): AssistantBlock[] {
    const needsConfirmation = this.guidance.confirmEveryCall || (consequential !== null && this.guidance.confirmActions);
    if (needsConfirmation) {
      const question = consequential ?? `May I use ${name} to look this up for you`;
      const asked = this.view.lastQuestion;
      if (!asked || !asked.text.startsWith(question)) {
        return this.say(question.startsWith('May I') ? `${question}? (yes/no)` : `${question}. Shall I go ahead? (yes/no)`);
      }
      if (asked.answer === null || !/^\s*(yes|yeah|sure|please|ok)/i.test(asked.answer)) {
        return this.say("Understood, I haven't changed anything. Is there anything else I can help with?");
      }
    }
    this.step += 1;
    return [{ type: 'tool_use', id: `toolu_mock_${this.view.calls.length + 1}`, name, input }];
  }

  private orderArg(written: string): string {
    if (this.guidance.garbleIds) return written.toLowerCase();
    return this.guidance.stripOrderIdPrefix ? written.replace(/^#/, '').toUpperCase() : written;
  }

  decide(): AssistantBlock[] {
    const { opening } = this.view;
    const intent = intentOf(opening);
    if (intent === 'unknown') return this.say('How can I help you with your orders today?');

    let customerId: string | null = null;
    if (this.guidance.verifyIdentity || intent === 'find_return') {
      const email = this.view.userTexts.map((t) => /[\w.+-]+@[\w.-]+\.\w+/.exec(t)?.[0]).find(Boolean);
      if (!email) return this.say('Could you please tell me the email address on your account?');
      const lookup = this.lastCall('find_customer');
      if (!lookup) return this.use('find_customer', { email }, null);
      if (!lookup.ok) return this.say("I'm sorry, I couldn't find an account with that email address.");
      customerId = (lookup.result as { customerId: string }).customerId;
    }

    const order = intent === 'find_return' ? this.findOrderByItem(customerId ?? '') : this.orderFromOpening();
    if (!('order' in order)) return order.next;
    return this.handle(intent, order.order);
  }

  private orderFromOpening(): { order: OrderView } | { next: AssistantBlock[] } {
    const written = orderRefOf(this.view.opening) ?? '';
    const lookup = this.lastCall('get_order');
    if (!lookup) return { next: this.use('get_order', { order_id: this.orderArg(written) }, null) };
    if (!lookup.ok) return { next: this.say(`I'm sorry, I couldn't find order ${written}. Please check the number.`) };
    if (this.guidance.recheckOrders && this.view.calls.filter((c) => c.name === 'get_order').length === 1) {
      return { next: this.use('get_order', { order_id: this.orderArg(written) }, null) };
    }
    return { order: lookup.result as OrderView };
  }

  private findOrderByItem(customerId: string): { order: OrderView } | { next: AssistantBlock[] } {
    const phrase = (itemPhraseOf(this.view.opening) ?? '').toLowerCase();
    if (this.has('find_orders_by_item')) {
      const search = this.lastCall('find_orders_by_item');
      if (!search) return { next: this.use('find_orders_by_item', { customer_id: customerId, item: phrase }, null) };
      const found = search.ok ? (search.result as OrderView[]) : [];
      if (found[0]) return { order: found[0] };
      return { next: this.say(`I couldn't find a ${phrase} in your orders.`) };
    }
    const list = this.lastCall('list_orders');
    if (!list) return { next: this.use('list_orders', { customer_id: customerId }, null) };
    const orders = (list.ok ? (list.result as Array<{ orderId: string }>) : []).map((o) => o.orderId);
    const opened = this.view.calls.filter((c) => c.name === 'get_order' && c.ok).map((c) => c.result as OrderView);
    const match = opened.find((o) => o.items.some((i) => i.name.toLowerCase() === phrase));
    if (match) return { order: match };
    const next = orders.find((id) => !opened.some((o) => o.id === id));
    if (!next) return { next: this.say(`I couldn't find a ${phrase} in your orders.`) };
    return { next: this.use('get_order', { order_id: next }, null) };
  }

  private handle(intent: Intent, order: OrderView): AssistantBlock[] {
    const today = '2026-06-15';
    switch (intent) {
      case 'status':
        return this.say(
          order.status === 'delivered'
            ? `Order ${order.id} was delivered on ${order.deliveredOn}.`
            : `Order ${order.id} is ${order.status} and has not been delivered yet.`,
        );
      case 'exchange':
        return this.say(
          this.guidance.exchangeHandover
            ? 'Exchanges are handled by our team: I am handing you over to a human agent now.'
            : "I'm sorry, I can't exchange items.",
        );
      case 'cancel': {
        const done = this.lastCall('cancel_order');
        if (done) return this.afterAction(done, 'cancelled order');
        if (order.status !== 'pending' && order.status !== 'processing') {
          return this.say(`Order ${order.id} is ${order.status}, so it can no longer be cancelled.`);
        }
        const reason = /mistake/i.test(this.view.opening) ? 'ordered by mistake' : 'no longer needed';
        const written = orderRefOf(this.view.opening) ?? order.id;
        return this.use('cancel_order', { order_id: this.orderArg(written), reason }, `I can cancel order ${order.id} (reason: ${reason})`);
      }
      case 'return':
      case 'find_return': {
        const done = this.lastCall('return_items');
        if (done) return this.afterAction(done, 'return');
        const window = this.guidance.returnWindowDays;
        if (window !== null && order.deliveredOn && daysBetween(order.deliveredOn, today) > window) {
          return this.say(
            `I'm sorry, order ${order.id} was delivered on ${order.deliveredOn}, more than ${window} days ago, so it can no longer be returned.`,
          );
        }
        const phrase = (itemPhraseOf(this.view.opening) ?? '').toLowerCase();
        const items = order.items.filter((i) => i.name.toLowerCase() === phrase);
        const chosen = items.length > 0 ? items : order.items;
        const total = chosen.reduce((s, i) => s + i.price, 0);
        const written = intent === 'return' ? (orderRefOf(this.view.opening) ?? order.id) : order.id;
        return this.use(
          'return_items',
          { order_id: this.orderArg(written), item_ids: chosen.map((i) => i.id) },
          `I can return the ${chosen.map((i) => i.name).join(', ')} from order ${order.id} for a refund of ${money(total)} to your ${order.payment.label}`,
        );
      }
      default:
        return this.say('How can I help you with your orders today?');
    }
  }

  private afterAction(done: ToolExchange, what: string): AssistantBlock[] {
    if (!done.ok) return this.say(`I'm sorry, the ${what} did not go through: ${String(done.result)}`);
    const result = done.result as { orderId: string; refund: number };
    return this.say(`All done: your ${what} for order ${result.orderId} is processed. A refund of ${money(result.refund)} goes to your original payment method.`);
  }
}

/** A deterministic draw in [0, 1) from a string (FNV-1a), so a trial's seed fixes its luck. */
function draw(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}

/**
 * With a temperature above zero the simulated agent is noisy like a sampled model: on a turn,
 * with probability temperature / 2, it forgets the prompt's guidance and garbles order ids. The draw depends on the
 * trial's seed and the turn, so trials differ from each other but each is reproducible.
 */
export function sampledGuidance(request: AgentTurnRequest): Guidance {
  const guidance = readGuidance(request);
  const temperature = request.temperature ?? 0;
  if (temperature <= 0 || draw(`${request.seed}:${request.messages.length}`) >= temperature / 2) return guidance;
  return { ...guidance, confirmActions: false, returnWindowDays: null, stripOrderIdPrefix: false, garbleIds: true };
}

export function simulatedAgentTurn(request: AgentTurnRequest): AgentTurn {
  const view = readConversation(request.messages);
  let content: AssistantBlock[];
  try {
    // A crew's orchestrator and members each get their own simulated policy (see crew.ts).
    content = crewTurn(request, sampledGuidance(request), view) ?? new Policy(request, sampledGuidance(request), view).decide();
  } catch {
    // Tool results of an unexpected shape (a changed wrapper): give up the way a confused agent does.
    content = [{ type: 'text', text: "I'm sorry, I couldn't make sense of what the system returned." }];
  }
  const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return { content, stopReason, usage: mockUsage(request.system, JSON.stringify(request.messages), JSON.stringify(content)), latencyMs: 0 };
}
