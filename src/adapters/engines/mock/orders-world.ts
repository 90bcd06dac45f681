// What the simulated agents (single and crew) read of the orders task: the guidance a prompt
// gives, the customer's intent, order references and the shop's arithmetic. Shared by agent.ts
// and crew.ts, so neither imports the other's policy.
import type { AgentTurnRequest } from '../../../domain/ports/model.ts';

export interface Guidance {
  readonly verifyIdentity: boolean;
  readonly confirmActions: boolean;
  readonly confirmEveryCall: boolean;
  readonly returnWindowDays: number | null;
  readonly stripOrderIdPrefix: boolean;
  readonly exchangeHandover: boolean;
  /** The prompt asks to look an order up again before answering: a repeated identical call (more cost, same outcome). */
  readonly recheckOrders: boolean;
  /** A sampling slip: the order id comes out in lower case (a weak model's typo). */
  readonly garbleIds: boolean;
}

export function readGuidance(request: AgentTurnRequest): Guidance {
  const system = request.system;
  const orderTool = request.tools.find((t) => t.name === 'get_order');
  const idHints = `${system}\n${orderTool?.description ?? ''}\n${JSON.stringify(orderTool?.inputSchema ?? {})}`;
  const window = /within (\d+) days of delivery/i.exec(system);
  return {
    verifyIdentity: /verify the customer's identity|identify the customer/i.test(system),
    confirmActions: /ask the customer to confirm/i.test(system),
    confirmEveryCall: /before (every|each|any) tool call/i.test(system),
    returnWindowDays: window?.[1] ? Number(window[1]) : null,
    stripOrderIdPrefix: /without the leading ["'`]?#/i.test(idHints),
    exchangeHandover: /exchange[\s\S]{0,120}human agent/i.test(system),
    recheckOrders: /look the order up again/i.test(system),
    garbleIds: false,
  };
}

export type Intent = 'status' | 'cancel' | 'return' | 'find_return' | 'exchange' | 'unknown';

export function intentOf(opening: string): Intent {
  if (/exchange/i.test(opening)) return 'exchange';
  if (/cancel/i.test(opening)) return 'cancel';
  if (/return|send back/i.test(opening)) return orderRefOf(opening) ? 'return' : 'find_return';
  if (/where is|status|shipped/i.test(opening)) return 'status';
  return 'unknown';
}

export function orderRefOf(text: string): string | null {
  return /#?\b[Ww]\d{4}\b/.exec(text)?.[0] ?? null;
}

export function itemPhraseOf(opening: string): string | null {
  return /(?:return|send back) the (.+?)(?: I bought| from order| I got| in order|\?|\.|,)/i.exec(opening)?.[1] ?? null;
}

export interface OrderView {
  id: string;
  status: string;
  deliveredOn: string | null;
  items: Array<{ id: string; name: string; price: number }>;
  payment: { label: string };
}

export const money = (n: number): string => `$${n.toFixed(2)}`;

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
