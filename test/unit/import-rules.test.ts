import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports, readImports } from '../helpers/import-rules.ts';
import { repoRoot } from '../helpers/workspace.ts';

/** A source file of the layout, checked to exist (a planted import names a real file). */
function currentPathOf(file: string): string {
  const { files } = readImports(repoRoot);
  if (!files.includes(file)) throw new Error(`no source file at ${file}`);
  return file;
}

describe('the import rules of src/ (docs/architecture.md)', () => {
  it('hold: every import is allowed by the table or a named exception, no circle, no stale exception', () => {
    const check = checkImports(repoRoot.replace(/\/$/, ''));
    expect(check.violations).toEqual([]);
    expect(check.cycles).toEqual([]);
    expect(check.stale).toEqual([]);
  });

  describe('on a copy with wrong imports planted', () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'agentdevel-import-rules-'));
    afterAll(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(path.join(repoRoot, 'src'), path.join(copy, 'src'), { recursive: true });
    const plant = (file: string, text: string): void => writeFileSync(path.join(copy, file), text);
    const relative = (from: string, to: string): string => {
      const rel = path.posix.relative(path.posix.dirname(from), to);
      return rel.startsWith('.') ? rel : `./${rel}`;
    };

    // A stage reaching an adapter: the score stage importing the git adapter.
    const stage = currentPathOf('src/stages/score/scorers.ts');
    const planted = path.posix.join(path.posix.dirname(stage), 'planted-stage.ts');
    const adapter = currentPathOf('src/adapters/git/git.ts');
    plant(planted, `import type { GitRepo } from '${relative(planted, adapter)}';\nexport type Planted = GitRepo;\n`);
    // An import circle inside domain: errors.ts <-> a planted file.
    const errors = currentPathOf('src/domain/errors.ts');
    const circle = path.posix.join(path.posix.dirname(errors), 'planted-circle.ts');
    plant(circle, `import type { AgentdevelError } from './errors.ts';\nexport type Planted = AgentdevelError;\n`);
    plant(errors, `export type { Planted } from './planted-circle.ts';\n${readFileSync(path.join(repoRoot, errors), 'utf8')}`);

    const check = checkImports(copy);

    it('fails on a stage that imports an adapter, naming both files and the rule', () => {
      expect(check.violations).toEqual([{ from: planted, to: 'src/adapters/git/git.ts', rule: 'stages may not import adapters' }]);
    });

    it('fails on an import circle, naming its files', () => {
      expect(check.cycles).toEqual([['src/domain/errors.ts', 'src/domain/planted-circle.ts']]);
    });
  });
});
