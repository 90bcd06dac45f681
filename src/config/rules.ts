import type { Config } from './schema.ts';

/** A cross-field rule: returns the offending key path and what was expected, or null. */
export type ConfigRule = (config: Config) => { key: string; message: string } | null;

// git check-ref-format, reduced to what a branch or tag made from config can break.
const badRefPart = /(^[./-])|\.\.|[\s~^:?*[\\]|@\{|\.lock$|\/$|\.$/;

export const configRules: readonly ConfigRule[] = [
  (config) =>
    badRefPart.test(config.line.branch)
      ? { key: 'line.branch', message: `"${config.line.branch}" is not a valid git branch name` }
      : null,
  (config) =>
    badRefPart.test(`${config.line.tagPrefix}${config.blueprint}/v1`)
      ? { key: 'line.tagPrefix', message: `tags "${config.line.tagPrefix}${config.blueprint}/vN" would not be valid git tag names` }
      : null,
  (config) => {
    const order = ['checks', 'flips', 'requirements', 'approval'];
    const names = config.gate.layers.map((l) => l.layer);
    if (!names.includes('flips')) return { key: 'gate.layers', message: 'the "flips" layer is required' };
    const duplicate = names.find((name, i) => names.indexOf(name) !== i);
    if (duplicate) return { key: 'gate.layers', message: `the "${duplicate}" layer appears twice` };
    const ranks = names.map((n) => order.indexOf(n));
    if (ranks.some((r, i) => i > 0 && r < (ranks[i - 1] as number))) return { key: 'gate.layers', message: `layers go in this order: ${order.join(', ')}` };
    return null;
  },
  (config) =>
    config.gate.maxViolationRate !== undefined && !config.gate.layers.some((l) => l.layer === 'requirements')
      ? { key: 'gate.maxViolationRate', message: 'needs the "requirements" layer in gate.layers' }
      : null,
  (config) =>
    config.gate.maxP2FRate < 1 && config.gate.maxP2F < 0
      ? { key: 'gate.maxP2F', message: 'must not be negative' }
      : null,
];
