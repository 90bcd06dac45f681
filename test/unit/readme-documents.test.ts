// The "What lives where" table of docs/reference/documents.md lists every document agentdevel keeps in git: each
// schema name src/domain defines (its `…_SCHEMA` constants) appears in a row of that table.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/workspace.ts';

function domainFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? domainFiles(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []));
}

/** The current schema names: `export const X_SCHEMA = 'agentdevel/…@N'` in src/domain. */
function schemaNames(): string[] {
  const names = domainFiles(path.join(repoRoot, 'src', 'domain')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/export const [A-Z_]+_SCHEMA = '(agentdevel\/[a-z-]+@\d+)'/g)].map((m) => m[1] as string),
  );
  return [...new Set(names)].sort();
}

/** The table rows of the "What lives where" section of docs/reference/documents.md. */
function tableRows(): string[] {
  const readme = readFileSync(path.join(repoRoot, 'docs', 'reference', 'documents.md'), 'utf8');
  const start = readme.indexOf('\n## What lives where\n');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end).split('\n').filter((line) => line.startsWith('| '));
}

describe('the "What lives where" table of the documents reference', () => {
  it('names every schema of a document agentdevel keeps in git', () => {
    const names = schemaNames();
    // The documents of issue 19's audit, at least: a table that drops one fails here.
    expect(names).toEqual(expect.arrayContaining(['agentdevel/decision@3', 'agentdevel/runs@2', 'agentdevel/gradient@2', 'agentdevel/credit@1', 'agentdevel/synthesis-attempts@2', 'agentdevel/test-seal@2', 'agentdevel/labels@2']));
    const rows = tableRows();
    expect(rows.length).toBeGreaterThan(2);
    const missing = names.filter((name) => !rows.some((row) => row.includes(`\`${name}\``)));
    expect(missing).toEqual([]);
  });
});
