// The re-zone codemod (scripts/rezone.ts) on a small real git repository laid out the old way.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { destinationOf, rezone } from '../../scripts/rezone.ts';

const files: Record<string, string> = {
  'src/domain/model-port.ts': 'export interface ModelPort { readonly name: string }\n',
  'src/domain/errors.ts': 'export class AgentdevelError extends Error {}\n',
  'src/process/spawner.ts': "import { fileURLToPath } from 'node:url';\nexport const entry = fileURLToPath(new URL('./spawner-entry.mjs', import.meta.url));\n",
  'src/process/spawner-entry.mjs': '// child\n',
  'src/engine/anthropic/prompts.ts': "export const folder = new URL('./prompts/', import.meta.url);\n",
  'src/engine/anthropic/prompts/task.hbs': '{{task}}\n',
  'src/engine/mock/synthesizer.ts': "// Code inside a string is not an import of ours:\nexport const helper = \"import { normalizeOrderId } from './order-id.ts';\";\n",
  'src/report/handlebars-templates.ts': "export const at = (name: string) => new URL(`./templates/${name}.md.hbs`, import.meta.url);\n",
  'src/report/templates/flip-report.md.hbs': '# report\n',
  'src/stages/gate/compare.ts': "import type { ModelPort } from '../../domain/model-port.ts';\nexport async function gateCandidateRuns(model: ModelPort): Promise<string> { return model.name; }\n",
  'src/pipeline/evaluate-candidate.ts': "import { gateCandidateRuns } from '../stages/gate/compare.ts';\nimport { AgentdevelError } from '../domain/errors.ts';\nimport { entry } from '../process/spawner.ts';\nexport { gateCandidateRuns, AgentdevelError, entry };\n",
  'src/pipeline/example.ts': "export const packageRoot = new URL('../../', import.meta.url);\n",
  'src/pipeline/brand-new-from-another-branch.ts': "import { packageRoot } from './example.ts';\nexport const again = packageRoot;\n",
  'test/unit/evaluate.test.ts': "import { gateCandidateRuns } from '../../src/pipeline/evaluate-candidate.ts';\nexport const loaded = () => import('../../src/pipeline/example.ts');\nexport { gateCandidateRuns };\n",
  'bin/agentdevel.mjs': "await loadEntry('agentdevel', 'src/pipeline/evaluate-candidate.ts');\n",
  'docs/architecture.md': 'See `src/pipeline/example.ts` (and `src/pipeline/example.tsx`, which is no file of ours), the prompts in `src/engine/anthropic/prompts/` and `src/pipeline/`.\n',
};

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('scripts/rezone.ts', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentdevel-rezone-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'old layout');

  const lines: string[] = [];
  const first = rezone(root, { dryRun: false, log: (line) => lines.push(line) });
  const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

  it('moves files with git mv by the table, and reports the files it does not know', () => {
    expect(first.moves.get('src/pipeline/evaluate-candidate.ts')).toBe('src/pipeline/gate/evaluate-candidate.ts');
    expect(first.moves.get('src/domain/model-port.ts')).toBe('src/domain/ports/model.ts');
    expect(first.moves.get('src/report/templates/flip-report.md.hbs')).toBe('src/adapters/template/templates/flip-report.md.hbs');
    expect(first.unplaced).toEqual(['src/pipeline/brand-new-from-another-branch.ts']);
    expect(lines).toContain('not placed (no rule; stays): src/pipeline/brand-new-from-another-branch.ts');
    // The folders it emptied are gone; the one that keeps a file stays.
    expect(existsSync(path.join(root, 'src/engine'))).toBe(false);
    expect(existsSync(path.join(root, 'src/pipeline'))).toBe(true);
    const staged = git(root, 'status', '--porcelain');
    expect(staged).toContain('R  src/process/spawner-entry.mjs -> src/adapters/process/spawner-entry.mjs');
  });

  it('rewrites every relative specifier against the new layout, and the identifiers it renames', () => {
    expect(read('src/pipeline/gate/evaluate-candidate.ts')).toBe(
      "import { compareCandidateRuns } from '../../stages/gate/compare.ts';\nimport { AgentdevelError } from '../../domain/errors.ts';\nimport { entry } from '../../adapters/process/spawner.ts';\nexport { compareCandidateRuns, AgentdevelError, entry };\n",
    );
    expect(read('src/stages/gate/compare.ts')).toContain("from '../../domain/ports/model.ts'");
    expect(read('test/unit/evaluate.test.ts')).toContain("from '../../src/pipeline/gate/evaluate-candidate.ts'");
    expect(read('test/unit/evaluate.test.ts')).toContain("import('../../src/pipeline/workspace/example.ts')");
    // Files found through import.meta.url: a file, a folder, a template's folder, the package root.
    expect(read('src/adapters/process/spawner.ts')).toContain("new URL('./spawner-entry.mjs', import.meta.url)");
    expect(read('src/adapters/engines/anthropic/prompts.ts')).toContain("new URL('./prompts/', import.meta.url)");
    expect(read('src/adapters/template/report-templates.ts')).toContain('new URL(`./templates/${name}.md.hbs`, import.meta.url)');
    expect(read('src/pipeline/workspace/example.ts')).toContain("new URL('../../../', import.meta.url)");
    // A file no rule knows keeps its place, and its imports follow the files that moved.
    expect(read('src/pipeline/brand-new-from-another-branch.ts')).toContain("from './workspace/example.ts'");
    // Code inside a string names no file of ours: left as it is.
    expect(read('src/adapters/engines/mock/synthesizer.ts')).toBe(files['src/engine/mock/synthesizer.ts']);
    // Paths from the repository's root, in code and docs.
    expect(read('bin/agentdevel.mjs')).toContain("'src/pipeline/gate/evaluate-candidate.ts'");
    // A folder all of whose files moved follows them; one that keeps a file (pipeline/) stays.
    expect(read('docs/architecture.md')).toBe(
      'See `src/pipeline/workspace/example.ts` (and `src/pipeline/example.tsx`, which is no file of ours), the prompts in `src/adapters/engines/anthropic/prompts/` and `src/pipeline/`.\n',
    );
  });

  it('does nothing when run again on the re-zoned tree', () => {
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 're-zoned');
    const again: string[] = [];
    const second = rezone(root, { dryRun: false, log: (line) => again.push(line) });
    expect(second.moves.size).toBe(0);
    expect(second.rewritten).toEqual([]);
    expect(again).toContain('nothing to move: the tree is already re-zoned');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('places every file of the re-zoned layout where it already is', () => {
    for (const file of ['src/domain/ports/model.ts', 'src/pipeline/gate/conclude.ts', 'src/adapters/queue/worker.ts', 'src/app/compose.ts', 'src/cli/main.ts', 'src/api.ts']) {
      expect(destinationOf(file)).toBe(file);
    }
  });
});
