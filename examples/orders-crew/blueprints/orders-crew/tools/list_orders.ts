import { z } from 'zod';

export default {
  name: 'list_orders',
  description: "List a customer's orders (id, status and date placed).",
  inputSchema: z.object({ customer_id: z.string() }),
  run: (args: { customer_id: string }, ctx: { env: { listOrders(customerId: string): unknown } }) =>
    ctx.env.listOrders(args.customer_id),
};
