import { z } from 'zod';

export default {
  name: 'cancel_order',
  description: 'Cancel a pending or processing order. The refund goes to the original payment method.',
  inputSchema: z.object({
    order_id: z.string(),
    reason: z.enum(['no longer needed', 'ordered by mistake']),
  }),
  run: (args: { order_id: string; reason: string }, ctx: { env: { cancelOrder(orderId: string, reason: string): unknown } }) =>
    ctx.env.cancelOrder(args.order_id, args.reason),
};
