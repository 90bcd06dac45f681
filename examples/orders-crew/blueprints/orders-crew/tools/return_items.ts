import { z } from 'zod';

export default {
  name: 'return_items',
  description: 'Return items of a delivered order. The refund goes to the original payment method.',
  inputSchema: z.object({
    order_id: z.string(),
    item_ids: z.array(z.string()).min(1),
  }),
  run: (args: { order_id: string; item_ids: string[] }, ctx: { env: { returnItems(orderId: string, itemIds: string[]): unknown } }) =>
    ctx.env.returnItems(args.order_id, args.item_ids),
};
