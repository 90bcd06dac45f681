// No module reads process.env or Date.now() but the environment and clock modules: everything
// else is handed an environment map or a Clock (STYLE.md rule 8).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readImports } from '../helpers/import-rules.ts';
import { repoRoot } from '../helpers/workspace.ts';

/** Where each ambient read is allowed (re-zoned paths), and why. */
const ALLOWED: Readonly<Record<'process.env' | 'Date.now()', readonly string[]>> = {
  // The CLI's boundary with its process (argv, streams, env, cwd), and the one adapter module for
  // tools run as the user (git over ssh).
  'process.env': ['src/cli/io.ts', 'src/adapters/process/ambient-environment.ts'],
  // The clock module (systemClock); nothing else reads the time.
  'Date.now()': ['src/domain/ports/clock.ts'],
};

/** The ambient reads of one source text, as `kind:line` (comments and strings are not code, so they never count). */
function ambientReads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (node.expression.text === 'process' && node.name.text === 'env') found.push(`process.env:${line}`);
      if (node.expression.text === 'Date' && node.name.text === 'now') found.push(`Date.now():${line}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('ambient reads (process.env, Date.now())', () => {
  it('happen only in the environment and clock modules', () => {
    const misplaced: string[] = [];
    for (const file of readImports(repoRoot).files) {
      const rezoned = file;
      for (const read of ambientReads(file, readFileSync(path.join(repoRoot, file), 'utf8'))) {
        const kind = read.slice(0, read.lastIndexOf(':')) as keyof typeof ALLOWED;
        if (!ALLOWED[kind].includes(rezoned)) misplaced.push(`${file}:${read.slice(kind.length + 1)} reads ${kind}`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  it('are found in code, not in comments or strings', () => {
    const text = "// process.env is not read here\nconst a = 'Date.now()';\nconst home = process.env.HOME;\nconst t = Date.now();\n";
    expect(ambientReads('src/stages/x.ts', text)).toEqual(['process.env:3', 'Date.now():4']);
  });
});
