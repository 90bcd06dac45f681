// The orders environment: a small, deterministic customer-service back office. It is part of
// the task (frozen): blueprints reach it only through the `api` object handed to tool wrappers
// as ctx.env. Like tau-bench, the environment checks what is physically possible (an order
// must exist, only pending orders can be cancelled) but not the written policy; following the
// policy is the agent's job, and the state scorer catches it when the agent does not.
import seed from './data.json' with { type: 'json' };
import { simulatedUser, type UserScript } from './user.ts';

export interface Item {
  id: string;
  name: string;
  price: number;
  returned?: boolean;
}

export interface Order {
  id: string;
  customerId: string;
  status: 'pending' | 'processing' | 'delivered' | 'cancelled' | 'return requested';
  placedOn: string;
  deliveredOn: string | null;
  items: Item[];
  payment: { method: 'credit_card' | 'paypal' | 'gift_card'; label: string };
  refunds: Array<{ amount: number; method: string }>;
  cancelReason?: string;
}

interface Customer {
  id: string;
  name: string;
  email: string;
}

export interface OrdersCase {
  id: string;
  user: UserScript;
  expected?: { actions?: Array<{ name: keyof OrdersApi; args: unknown[] }>; outputs?: string[] };
}

const CANCEL_REASONS = ['no longer needed', 'ordered by mistake'];

function round2(amount: number): number {
  return Math.round(amount * 100) / 100;
}

function freshOrders(): Map<string, Order> {
  return new Map((seed.orders as Order[]).map((order) => [order.id, structuredClone(order)]));
}

export type OrdersApi = ReturnType<typeof makeApi>;

function makeApi(orders: Map<string, Order>) {
  const customers = seed.customers as Customer[];
  const find = (orderId: string): Order => {
    const order = orders.get(orderId);
    if (!order) throw new Error(`order "${orderId}" not found`);
    return order;
  };
  return {
    today: (): string => seed.today,
    findCustomer(email: string): { customerId: string; name: string } {
      const customer = customers.find((c) => c.email.toLowerCase() === String(email).trim().toLowerCase());
      if (!customer) throw new Error(`no customer with email "${email}"`);
      return { customerId: customer.id, name: customer.name };
    },
    listOrders(customerId: string): Array<{ orderId: string; status: string; placedOn: string }> {
      return [...orders.values()]
        .filter((o) => o.customerId === customerId)
        .map((o) => ({ orderId: o.id, status: o.status, placedOn: o.placedOn }));
    },
    getOrder(orderId: string): Order {
      return structuredClone(find(orderId));
    },
    cancelOrder(orderId: string, reason: string): { orderId: string; status: string; refund: number } {
      const order = find(orderId);
      if (order.status !== 'pending' && order.status !== 'processing') {
        throw new Error(`order ${orderId} is ${order.status} and cannot be cancelled`);
      }
      if (!CANCEL_REASONS.includes(reason)) {
        throw new Error(`reason must be one of: ${CANCEL_REASONS.join(', ')}`);
      }
      const amount = round2(order.items.reduce((sum, item) => sum + item.price, 0));
      order.status = 'cancelled';
      order.cancelReason = reason;
      order.refunds.push({ amount, method: order.payment.method });
      return { orderId, status: order.status, refund: amount };
    },
    returnItems(orderId: string, itemIds: string[]): { orderId: string; status: string; refund: number } {
      const order = find(orderId);
      if (order.status !== 'delivered') throw new Error(`order ${orderId} is ${order.status}; only delivered orders can be returned`);
      if (!Array.isArray(itemIds) || itemIds.length === 0) throw new Error('give at least one item id');
      let amount = 0;
      for (const itemId of itemIds) {
        const item = order.items.find((i) => i.id === itemId);
        if (!item) throw new Error(`order ${orderId} has no item "${itemId}"`);
        if (item.returned) throw new Error(`item ${itemId} was already returned`);
        item.returned = true;
        amount += item.price;
      }
      order.status = 'return requested';
      order.refunds.push({ amount: round2(amount), method: order.payment.method });
      return { orderId, status: order.status, refund: round2(amount) };
    },
  };
}

/** The changed orders only, so that state comparison messages stay short. */
function changedState(orders: Map<string, Order>): Record<string, Order> {
  const before = freshOrders();
  const changed: Record<string, Order> = {};
  for (const [id, order] of orders) {
    if (JSON.stringify(order) !== JSON.stringify(before.get(id))) changed[id] = order;
  }
  return changed;
}

export function createEnvironment(caseData: OrdersCase) {
  const orders = freshOrders();
  return {
    api: makeApi(orders),
    user: simulatedUser(caseData.user),
    state: () => ({ orders: changedState(orders) }),
  };
}

/** The state the case's expected actions produce on a fresh environment (tau-bench's ground truth). */
export function expectedState(caseData: OrdersCase) {
  const orders = freshOrders();
  const api = makeApi(orders) as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const action of caseData.expected?.actions ?? []) {
    const call = api[action.name];
    if (typeof call !== 'function') throw new Error(`case ${caseData.id}: unknown expected action ${String(action.name)}`);
    call(...action.args);
  }
  return { orders: changedState(orders) };
}
