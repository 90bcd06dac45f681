import { z } from 'zod';

export default {
  name: 'get_order',
  description: 'Get the details of an order: status, delivery date, items with prices, payment method.',
  inputSchema: z.object({ order_id: z.string().describe('The order id.') }),
  run: (args: { order_id: string }, ctx: { env: { getOrder(orderId: string): unknown } }) => ctx.env.getOrder(args.order_id),
};
