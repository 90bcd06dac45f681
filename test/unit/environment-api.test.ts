import { describe, expect, it } from 'vitest';
import { describeEnvironmentApi, sourceSignature } from '../../src/adapters/task/environment-api.ts';

const source = {
  file: 'index.ts',
  text: `export interface Refund { amount: number; method: Method }
type Method = 'card' | 'paypal';
interface Unused { x: number }
function makeApi(store: Map<string, number>) {
  return {
    today: (): string => '2026-06-15',
    balance(customerId: string): { total: number; currency: string } {
      return { total: 1, currency: 'EUR' };
    },
    async refund(
      orderId: string,
      amounts: Array<{ value: number }>,
    ): Promise<Refund> {
      return { amount: 1, method: 'card' };
    },
    find<T extends string>(ids: T[]): Map<T, number> {
      return new Map();
    },
    noTypes(a, b) {
      return a;
    },
  };
}
`,
};

describe('the environment API the synthesizer reads', () => {
  it.each([
    ['an arrow property with a return type', 'today', 'today(): string'],
    ['a method returning an object type', 'balance', 'balance(customerId: string): { total: number; currency: string }'],
    ['an async method over several lines', 'refund', 'refund(orderId: string, amounts: Array<{ value: number }>): Promise<Refund>'],
    ['a generic method', 'find', 'find<T extends string>(ids: T[]): Map<T, number>'],
    ['an untyped method', 'noTypes', 'noTypes(a, b)'],
  ])('reads the signature of %s from the source', (_name, method, signature) => {
    expect(sourceSignature(method, [source])).toBe(signature);
  });

  it('lists what the live api offers, with the types its signatures use (and those they use), and falls back to the compiled parameters', () => {
    const api = { today: () => '', balance: (customerId: string) => customerId, refund: async () => null, extra: (x: number, y: number) => x + y, region: 'eu' };
    const text = describeEnvironmentApi(api, [source]);
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- ctx.env.today(): string',
      '- ctx.env.balance(customerId: string): { total: number; currency: string }',
      '- ctx.env.refund(orderId: string, amounts: Array<{ value: number }>): Promise<Refund>',
      '- ctx.env.extra(x, y)',
      '- ctx.env.region: string',
    ]);
    expect(text).toContain('export interface Refund { amount: number; method: Method }');
    expect(text).toContain("type Method = 'card' | 'paypal';");
    expect(text).not.toContain('Unused');
  });

  it('lists inherited methods of a class instance', () => {
    class Shop {
      constructor(readonly name: string) {}
      open(hour: number): boolean {
        return hour > 8;
      }
    }
    expect(describeEnvironmentApi(new Shop('s'), [])).toMatch(/- ctx\.env\.name: string\n- ctx\.env\.open\(hour\)/);
  });
});
