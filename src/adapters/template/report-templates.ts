import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Report templates ship with agentdevel; they are read once, when first used. */
const cache = new Map<string, string>();

export function reportTemplate(name: 'flip-report'): string {
  let source = cache.get(name);
  if (source === undefined) {
    source = readFileSync(fileURLToPath(new URL(`./templates/${name}.md.hbs`, import.meta.url)), 'utf8');
    cache.set(name, source);
  }
  return source;
}
