// The library's published types (lib/index.d.mts) are generated from src/api.ts: a committed file
// that differs from what the source renders now is stale (run `npx tsx scripts/write-library-types.ts`),
// and a program written against them compiles with nothing but the package and @types/node.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { libraryTypes } from '../../scripts/library-types.ts';
import { repoRoot, tempDir } from '../helpers/workspace.ts';

const published = path.join(repoRoot, 'lib', 'index.d.mts');

describe('lib/index.d.mts', () => {
  it('is as src/api.ts renders it (run scripts/write-library-types.ts)', () => {
    expect(readFileSync(published, 'utf8')).toBe(libraryTypes());
  }, 60_000);

  it('types a program that uses what the library returns today (decision@3, resealTest), standing alone', () => {
    const program = path.join(tempDir('agentdevel-library-types-'), 'program.mts');
    writeFileSync(
      program,
      `import { compare, gate, iterate, run, type GateSummary } from ${JSON.stringify(path.join(repoRoot, 'lib', 'index.mjs'))};
const summary: GateSummary = await gate({ dir: 'ws', candidate: 'fix', resealTest: true, progress: process.stderr });
const layers: string[] = summary.decision.layers.map((layer) => \`\${layer.layer}: \${layer.verdict}\`);
const power: number | undefined = summary.decision.power?.statedPower;
const grading: readonly string[] = summary.change?.grading?.files ?? [];
const failing: string[] = (await run({ dir: 'ws', cases: ['add-1'] })).failing.map((c) => c.reason);
const verdict: 'accept' | 'reject' | 'undecided' = (await compare({ dir: 'ws', baseline: 'a', candidate: 'b' })).verdict;
const kinds: string[] = (await iterate({ dir: 'ws', maxIterations: 1 })).iterations.map((i) => i.kind);
// @ts-expect-error: a gate names its candidate
await gate({ dir: 'ws' });
console.log(layers, power, grading, failing, verdict, kinds);
`,
    );
    const compiled = ts.createProgram([program], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
    });
    const problems = ts.getPreEmitDiagnostics(compiled).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
    // Checked from the published file itself, not the sources.
    expect(compiled.getSourceFiles().map((f) => f.fileName)).toContain(published);
    expect(compiled.getSourceFiles().some((f) => f.fileName.includes(`${path.sep}src${path.sep}`))).toBe(false);
  }, 60_000);
});
