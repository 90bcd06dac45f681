import { z } from 'zod';

export default {
  name: 'find_customer',
  description: 'Look up a customer by the email address on their account.',
  inputSchema: z.object({ email: z.string().describe('The email address the customer gave.') }),
  run: (args: { email: string }, ctx: { env: { findCustomer(email: string): unknown } }) => ctx.env.findCustomer(args.email),
};
