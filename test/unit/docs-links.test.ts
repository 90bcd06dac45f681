// Every link in the README, CONTRIBUTING.md and docs/ resolves: a relative link names a file of
// the repository, and an anchor (#section) names a heading of the page it points into, slugged
// as GitHub slugs them. A page moved or a heading renamed fails here, not for a reader.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/workspace.ts';

const markdown = new MarkdownIt({ html: true });

function pagesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? pagesUnder(file) : name.endsWith('.md') ? [file] : [];
  });
}

const pages = [path.join(repoRoot, 'README.md'), path.join(repoRoot, 'CONTRIBUTING.md'), ...pagesUnder(path.join(repoRoot, 'docs'))];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const tokens = markdown.parse(readFileSync(file, 'utf8'), {});
  for (const [i, token] of tokens.entries()) {
    if (token.type !== 'heading_open') continue;
    const text = (tokens[i + 1]?.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function linksOf(file: string): string[] {
  const links: string[] = [];
  const walk = (tokens: ReturnType<typeof markdown.parse>) => {
    for (const token of tokens) {
      if (token.type === 'link_open' || token.type === 'image') {
        const href = token.attrGet(token.type === 'image' ? 'src' : 'href');
        if (typeof href === 'string' && href !== '') links.push(href);
      }
      if (token.children) walk(token.children);
    }
  };
  walk(markdown.parse(readFileSync(file, 'utf8'), {}));
  return links;
}

describe('the documentation links', () => {
  it('has the pages it is expected to have', () => {
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) expect(existsSync(page), page).toBe(true);
  });

  it.each(pages.map((page) => [path.relative(repoRoot, page), page]))('%s: every relative link and anchor resolves', (_name, page) => {
    const broken: string[] = [];
    for (const href of linksOf(page)) {
      if (/^[a-z]+:/i.test(href)) continue;
      const [target, anchor] = href.split('#') as [string, string | undefined];
      const file = target === '' ? page : path.resolve(path.dirname(page), decodeURI(target));
      if (!existsSync(file)) {
        broken.push(`${href}: no such file`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${href}: no heading with that anchor`);
    }
    expect(broken).toEqual([]);
  });
});
