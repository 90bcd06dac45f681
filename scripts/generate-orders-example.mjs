#!/usr/bin/env node
// Generates the bundled example's data: rubrics/orders/environment/data.json, train.jsonl and
// test.jsonl. Deterministic (no randomness, no clock), so re-running it reproduces the
// committed files byte for byte. Run: node scripts/generate-orders-example.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'rubrics', 'orders');
const TODAY = '2026-06-15';

const firstNames = ['ana', 'ben', 'chloe', 'dev', 'elena', 'farid', 'grace', 'hugo', 'ines', 'jonas', 'kira', 'liam', 'maya', 'noor', 'omar', 'priya', 'quinn', 'rosa', 'sven', 'tara', 'umar', 'vera', 'wei', 'yara', 'zane'];
const lastNames = ['lopez', 'okafor', 'martin', 'sharma', 'rossi', 'haddad', 'kim', 'moreau', 'silva', 'berg', 'tanaka', 'walsh', 'cohen', 'ali', 'nasser', 'iyer', 'park', 'diaz', 'larsen', 'reid', 'farouk', 'novak', 'chen', 'aziz', 'brooks'];
const catalogue = [
  ['desk lamp', 54.1], ['electric kettle', 39.99], ['wireless headphones', 129.0], ['hiking backpack', 89.5],
  ['water bottle', 18.25], ['yoga mat', 32.0], ['blender', 74.9], ['mechanical keyboard', 119.0],
  ['wool scarf', 45.0], ['coffee grinder', 64.3], ['running shoes', 110.0], ['phone case', 21.99],
  ['table fan', 49.95], ['cast iron pan', 58.4], ['hoodie', 55.0], ['bluetooth speaker', 79.0],
  ['travel mug', 24.5], ['notebook set', 16.8], ['desk organizer', 27.35], ['throw pillow', 29.9],
];
const methods = [
  { method: 'credit_card', label: 'Visa ending 4242' },
  { method: 'paypal', label: 'PayPal account' },
  { method: 'gift_card', label: 'gift card' },
];

function addDays(date, days) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const customers = [];
const orders = [];
let orderNumber = 1001;
let customerNumber = 0;
let itemCursor = 0;

function newCustomer() {
  const i = customerNumber++;
  const first = firstNames[i % firstNames.length];
  const last = lastNames[(i * 7) % lastNames.length];
  const customer = {
    id: `C${String(i + 1).padStart(3, '0')}`,
    name: `${first[0].toUpperCase()}${first.slice(1)} ${last[0].toUpperCase()}${last.slice(1)}`,
    email: `${first}.${last}${i >= firstNames.length ? i : ''}@example.com`,
  };
  customers.push(customer);
  return customer;
}

function nextItems(count) {
  const items = [];
  for (let k = 0; k < count; k += 1) items.push(catalogue[itemCursor++ % catalogue.length]);
  return items;
}

function newOrder(customer, { status, deliveredDaysAgo = null, itemCount = 2 }) {
  const id = `W${orderNumber++}`;
  const placedDaysAgo = (deliveredDaysAgo ?? 0) + 4;
  const order = {
    id,
    customerId: customer.id,
    status,
    placedOn: addDays(TODAY, -placedDaysAgo),
    deliveredOn: status === 'delivered' ? addDays(TODAY, -deliveredDaysAgo) : null,
    items: nextItems(itemCount).map(([name, price], k) => ({ id: `${id}-${k + 1}`, name, price })),
    payment: methods[orderNumber % methods.length],
    refunds: [],
  };
  orders.push(order);
  return order;
}

const money = (n) => n.toFixed(2);
const writtenId = (id, style) => (style === 'hash' ? `#${id}` : style === 'lower' ? id.toLowerCase() : id);

// Each maker returns one case; `n` varies wording and numbers deterministically.
const makers = {
  return_ok(n, idStyle = 'plain', confirms = true) {
    const c = newCustomer();
    const order = newOrder(c, { status: 'delivered', deliveredDaysAgo: 3 + ((n * 5) % 24) });
    const item = order.items[n % order.items.length];
    const openings = [
      `Hi, I'd like to return the ${item.name} from order ${writtenId(order.id, idStyle)}.`,
      `Hello! Can I send back the ${item.name}? It was in order ${writtenId(order.id, idStyle)}.`,
      `I want to return the ${item.name} I got in order ${writtenId(order.id, idStyle)}, please.`,
    ];
    return {
      user: { opening: openings[n % openings.length], email: c.email, confirms },
      expected: confirms
        ? { actions: [{ name: 'returnItems', args: [order.id, [item.id]] }], outputs: [money(item.price)] }
        : { actions: [], outputs: [] },
    };
  },
  cancel_ok(n, idStyle = 'plain', confirms = true) {
    const c = newCustomer();
    const order = newOrder(c, { status: n % 2 === 0 ? 'pending' : 'processing' });
    const reason = n % 2 === 0 ? 'no longer needed' : 'ordered by mistake';
    const because = reason === 'no longer needed' ? "I don't need it anymore" : 'I ordered it by mistake';
    const total = order.items.reduce((s, i) => s + i.price, 0);
    return {
      user: { opening: `Please cancel order ${writtenId(order.id, idStyle)}, ${because}.`, email: c.email, confirms },
      expected: confirms
        ? { actions: [{ name: 'cancelOrder', args: [order.id, reason] }], outputs: [money(Math.round(total * 100) / 100)] }
        : { actions: [], outputs: [] },
    };
  },
  status_ok(n, idStyle = 'plain') {
    const c = newCustomer();
    const delivered = n % 2 === 0;
    const order = newOrder(c, delivered ? { status: 'delivered', deliveredDaysAgo: 2 + n } : { status: 'processing' });
    return {
      user: { opening: `Where is my order ${writtenId(order.id, idStyle)}? Has it shipped yet?`, email: c.email, confirms: true },
      expected: { actions: [], outputs: [delivered ? order.deliveredOn : 'processing'] },
    };
  },
  find_return(n, position) {
    const c = newCustomer();
    const placed = [];
    for (let k = 0; k < Math.max(position, 2) + (n % 2); k += 1) {
      placed.push(newOrder(c, { status: 'delivered', deliveredDaysAgo: 4 + k * 2, itemCount: 1 }));
    }
    const order = placed[position - 1];
    const item = order.items[0];
    return {
      user: {
        opening: `I want to return the ${item.name} I bought recently, but I don't remember which order it was in.`,
        email: c.email,
        confirms: true,
      },
      expected: { actions: [{ name: 'returnItems', args: [order.id, [item.id]] }], outputs: [money(item.price)] },
    };
  },
  window(n) {
    const c = newCustomer();
    const order = newOrder(c, { status: 'delivered', deliveredDaysAgo: 35 + n * 6 });
    const item = order.items[0];
    return {
      user: { opening: `Hi, I'd like to return the ${item.name} from order ${order.id}.`, email: c.email, confirms: true },
      expected: { actions: [], outputs: [] },
    };
  },
  exchange(n) {
    const c = newCustomer();
    const order = newOrder(c, { status: 'delivered', deliveredDaysAgo: 5 + n });
    const item = order.items[0];
    return {
      user: {
        opening: `Can I exchange the ${item.name} from order ${order.id} for a different colour?`,
        email: c.email,
        confirms: true,
      },
      expected: { actions: [], outputs: ['human agent'] },
    };
  },
};

// [kind, train count, test count, maker arguments]
const plan = [
  ['return_ok', 5, 3, []],
  ['cancel_ok', 4, 2, []],
  ['status_ok', 3, 2, []],
  ['find_return', 2, 1, [1]],
  ['return_ok', 3, 2, ['hash']],
  ['cancel_ok', 3, 1, ['lower']],
  ['status_ok', 3, 1, ['hash']],
  ['return_ok', 4, 2, ['plain', false]],
  ['cancel_ok', 3, 1, ['plain', false]],
  ['window', 6, 3, []],
  ['find_return', 5, 1, [4]],
  ['exchange', 3, 1, []],
];

const EXPLICIT_YES = {
  id: 'explicit-yes',
  text: 'Before returning the items, the agent says what it will return and waits for the customer to say yes.',
  symptoms: ['missing_required_step'],
};

const train = [];
const test = [];
let variant = 0;
for (const [kind, trainCount, testCount, args] of plan) {
  for (const [split, count] of [[train, trainCount], [test, testCount]]) {
    for (let k = 0; k < count; k += 1) {
      const made = makers[kind](variant++, ...args);
      // One plain status question must never break in a release: the gate's must-pass check.
      const mustPass = split === train && kind === 'status_ok' && args.length === 0 && k === 0;
      // Two returns carry a requirement of their own that no scorer checks: the critic judges it.
      const ownRequirement = split === train && kind === 'return_ok' && args.length === 0 && k < 2;
      split.push(mustPass ? { ...made, tags: ['must-pass'] } : ownRequirement ? { ...made, requirements: [EXPLICIT_YES] } : made);
    }
  }
}

// Interleave kinds so that ids say nothing about the failure a case exercises.
function shuffled(cases, salt) {
  return cases
    .map((c, i) => ({ c, key: (i * 2654435761 + salt) % 4294967296 }))
    .sort((a, b) => a.key - b.key)
    .map(({ c }) => c);
}
const toLines = (cases, prefix) =>
  shuffled(cases, prefix.length)
    .map((c, i) => JSON.stringify({ id: `${prefix}-${String(i + 1).padStart(3, '0')}`, ...c }))
    .join('\n') + '\n';

writeFileSync(path.join(root, 'environment', 'data.json'), `${JSON.stringify({ today: TODAY, customers, orders }, null, 1)}\n`);
writeFileSync(path.join(root, 'train.jsonl'), toLines(train, 'train'));
writeFileSync(path.join(root, 'test.jsonl'), toLines(test, 'test'));
console.log(`wrote ${train.length} train and ${test.length} test cases, ${customers.length} customers, ${orders.length} orders`);
