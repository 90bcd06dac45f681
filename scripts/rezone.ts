// Re-zones src/ into the layered folders of docs/architecture.md (issue 18), as a codemod that
// can be run again: several branches change src/ at once, so the moves are a table and the
// imports are recomputed, instead of a hand-made diff that conflicts with all of them.
//
//   npx tsx scripts/rezone.ts             apply: `git mv` every file the table moves, rewrite imports
//   npx tsx scripts/rezone.ts --dry-run   print what it would do, change nothing
//
// What it does, in order:
// 1. Lists the tracked files under src/ and gives each the first rule of MOVES that matches it.
//    A file no rule matches stays where it is and is listed under "not placed" (a file added by
//    another branch is reported, never lost or guessed).
// 2. Rewrites, in every source file of src/, test/, bench/, scripts/, lib/ and bin/, each relative
//    specifier (`from './x.ts'`, `import('./x.ts')`, `new URL('./x', import.meta.url)`): it is
//    resolved against the importer's OLD folder, the target mapped through the moves, and written
//    relative to the importer's NEW folder. A specifier whose target does not exist (code inside a
//    string, such as a generated tool wrapper) is left alone.
// 3. Rewrites repository-rooted mentions of a moved file (`'src/cli/main.ts'` in bin/, docs) and
//    the identifiers of RENAMES.
// 4. `git mv`s the files and writes the rewritten texts. It does not commit.
//
// Idempotent: on a tree already re-zoned every file matches a "keep" rule, nothing moves, no
// specifier changes (a specifier is only rewritten when its importer or its target moves), and
// the renamed identifiers are gone; it prints "nothing to move" and writes nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One rule: files matching `from` go to `to`. A `from` ending in `/**` moves a folder (its tree kept below `to`); `to: null` keeps the file where it is. */
export interface MoveRule {
  readonly from: string;
  readonly to: string | null;
}

const keep = (from: string): MoveRule => ({ from, to: null });

/** First match wins: specific files first, then whole folders, then the folders of the new layout, which stay. */
export const MOVES: readonly MoveRule[] = [
  // Ports move into domain/ports: what the stages and the pipeline need from the world.
  { from: 'src/domain/model-port.ts', to: 'src/domain/ports/model.ts' },
  { from: 'src/domain/clock.ts', to: 'src/domain/ports/clock.ts' },
  { from: 'src/domain/progress.ts', to: 'src/domain/ports/reporter.ts' },
  { from: 'src/blueprint/runtimes/runtime.ts', to: 'src/domain/ports/runtime.ts' },
  // Declared shapes of files a user writes: schemas, so domain.
  { from: 'src/blueprint/manifest.ts', to: 'src/domain/blueprint-manifest.ts' },
  { from: 'src/task/manifest.ts', to: 'src/domain/task-manifest.ts' },
  // What a child process may see of agentdevel's environment, and redaction: pure policy over a
  // map it is handed (the one reader of process.env is adapters/process/ambient-environment.ts).
  { from: 'src/process/environment.ts', to: 'src/domain/environment.ts' },

  // The flat pipeline/ splits into its four concerns.
  { from: 'src/pipeline/iterate.ts', to: 'src/pipeline/loop/iterate.ts' },
  { from: 'src/pipeline/stop.ts', to: 'src/pipeline/loop/stop.ts' },
  { from: 'src/pipeline/rc-history.ts', to: 'src/pipeline/loop/rc-history.ts' },
  { from: 'src/pipeline/task-brief.ts', to: 'src/pipeline/loop/task-brief.ts' },
  { from: 'src/pipeline/role-requests.ts', to: 'src/pipeline/loop/role-requests.ts' },
  { from: 'src/pipeline/candidate.ts', to: 'src/pipeline/loop/candidate.ts' },

  { from: 'src/pipeline/conclude.ts', to: 'src/pipeline/gate/conclude.ts' },
  { from: 'src/pipeline/evaluate-candidate.ts', to: 'src/pipeline/gate/evaluate-candidate.ts' },
  // Name collisions (issue 18, item 6): layered-gate.ts vs gate-layers.ts; gate-candidate.ts vs gateCandidateRuns.
  { from: 'src/pipeline/layered-gate.ts', to: 'src/pipeline/gate/decide-layers.ts' },
  { from: 'src/pipeline/gate-layers.ts', to: 'src/pipeline/gate/layer-evidence.ts' },
  { from: 'src/pipeline/gate-candidate.ts', to: 'src/pipeline/gate/submitted-candidate.ts' },
  { from: 'src/pipeline/case-evidence.ts', to: 'src/pipeline/gate/case-evidence.ts' },
  { from: 'src/pipeline/release.ts', to: 'src/pipeline/gate/release.ts' },
  { from: 'src/pipeline/calibrate.ts', to: 'src/pipeline/gate/calibrate.ts' },

  { from: 'src/pipeline/execute-run.ts', to: 'src/pipeline/run/execute-run.ts' },
  { from: 'src/pipeline/case-trial-executor.ts', to: 'src/pipeline/run/case-trial-executor.ts' },
  { from: 'src/pipeline/fingerprint.ts', to: 'src/pipeline/run/fingerprint.ts' },

  { from: 'src/pipeline/workspace.ts', to: 'src/pipeline/workspace/workspace.ts' },
  { from: 'src/pipeline/lock.ts', to: 'src/pipeline/workspace/lock.ts' },
  { from: 'src/pipeline/versions.ts', to: 'src/pipeline/workspace/versions.ts' },
  { from: 'src/pipeline/line-history.ts', to: 'src/pipeline/workspace/line-history.ts' },
  { from: 'src/pipeline/init-workspace.ts', to: 'src/pipeline/workspace/init-workspace.ts' },
  { from: 'src/pipeline/sync.ts', to: 'src/pipeline/workspace/sync.ts' },
  { from: 'src/pipeline/approval.ts', to: 'src/pipeline/workspace/approval.ts' },
  { from: 'src/pipeline/example.ts', to: 'src/pipeline/workspace/example.ts' },
  { from: 'src/pipeline/test-seal.ts', to: 'src/pipeline/workspace/test-seal.ts' },
  { from: 'src/pipeline/decision-log.ts', to: 'src/pipeline/workspace/decision-log.ts' },
  { from: 'src/pipeline/recorded-report.ts', to: 'src/pipeline/workspace/recorded-report.ts' },
  { from: 'src/pipeline/store-workspace.ts', to: 'src/pipeline/workspace/store-workspace.ts' },
  { from: 'src/pipeline/label-aliases.ts', to: 'src/pipeline/workspace/label-aliases.ts' },
  { from: 'src/pipeline/pending-integrity.ts', to: 'src/pipeline/workspace/pending-integrity.ts' },
  { from: 'src/pipeline/rebuild-store.ts', to: 'src/pipeline/workspace/rebuild-store.ts' },
  { from: 'src/pipeline/scratch-line.ts', to: 'src/pipeline/workspace/scratch-line.ts' },
  { from: 'src/pipeline/decision-record.ts', to: 'src/pipeline/gate/decision-record.ts' },
  { from: 'src/pipeline/attribute.ts', to: 'src/pipeline/gate/attribute.ts' },
  { from: 'src/pipeline/ablate.ts', to: 'src/pipeline/loop/ablate.ts' },
  { from: 'src/pipeline/credit.ts', to: 'src/pipeline/loop/credit.ts' },
  { from: 'src/pipeline/gradient.ts', to: 'src/pipeline/loop/gradient.ts' },
  { from: 'src/pipeline/shadow.ts', to: 'src/pipeline/loop/shadow.ts' },
  { from: 'src/pipeline/synthesis-evidence.ts', to: 'src/pipeline/loop/synthesis-evidence.ts' },

  // Adapters: one folder per kind of world the code talks to.
  { from: 'src/pipeline/import-taubench.ts', to: 'src/adapters/importers/taubench.ts' },
  { from: 'src/process/**', to: 'src/adapters/process' },
  { from: 'src/git/**', to: 'src/adapters/git' },
  { from: 'src/store/**', to: 'src/adapters/store' },
  { from: 'src/template/**', to: 'src/adapters/template' },
  // The report templates are files read from disk; the renderers that fill them are pure (stages/report).
  { from: 'src/report/handlebars-templates.ts', to: 'src/adapters/template/report-templates.ts' },
  { from: 'src/report/templates/**', to: 'src/adapters/template/templates' },
  { from: 'src/report/**', to: 'src/stages/report' },
  { from: 'src/engine/**', to: 'src/adapters/engines' },
  { from: 'src/queue/**', to: 'src/adapters/queue' },
  { from: 'src/blueprint/load.ts', to: 'src/adapters/blueprint/load.ts' },
  { from: 'src/blueprint/bundle.ts', to: 'src/adapters/blueprint/bundle.ts' },
  { from: 'src/blueprint/brief.ts', to: 'src/adapters/blueprint/brief.ts' },
  { from: 'src/export/**', to: 'src/adapters/export' },
  { from: 'src/github/**', to: 'src/adapters/github' },
  { from: 'src/blueprint/runtimes/**', to: 'src/adapters/runtimes' },
  { from: 'src/blueprint/tool-host/**', to: 'src/adapters/runtimes/tool-host' },
  { from: 'src/task/**', to: 'src/adapters/task' },

  // The composition root, shared by the CLI and the library.
  { from: 'src/cli/context.ts', to: 'src/app/compose.ts' },

  // The folders of the new layout stay as they are.
  keep('src/api.ts'),
  keep('src/domain/**'),
  keep('src/config/**'),
  keep('src/stages/**'),
  keep('src/pipeline/loop/**'),
  keep('src/pipeline/gate/**'),
  keep('src/pipeline/run/**'),
  keep('src/pipeline/workspace/**'),
  keep('src/adapters/**'),
  keep('src/app/**'),
  keep('src/cli/**'),
];

/** Identifiers renamed with the files (whole words, in every source file). */
export const RENAMES: Readonly<Record<string, string>> = {
  // Collided with the file gate-candidate.ts (now submitted-candidate.ts): this one compares the runs.
  gateCandidateRuns: 'compareCandidateRuns',
};

/** Where the table sends a repository-relative path: a new path, the same path (kept), or null when no rule knows it. */
export function destinationOf(file: string, rules: readonly MoveRule[] = MOVES): string | null {
  for (const rule of rules) {
    if (rule.from.endsWith('/**')) {
      const folder = rule.from.slice(0, -'**'.length);
      if (!file.startsWith(folder)) continue;
      return rule.to === null ? file : `${rule.to}/${file.slice(folder.length)}`;
    }
    if (rule.from === file) return rule.to ?? file;
  }
  return null;
}

/** Where a folder's contents go, by the folder rules only (for `new URL('./prompts/', …)`). */
function folderDestination(folder: string, rules: readonly MoveRule[]): string {
  const withSlash = folder.endsWith('/') ? folder : `${folder}/`;
  for (const rule of rules) {
    if (!rule.from.endsWith('/**') || rule.to === null) continue;
    const from = rule.from.slice(0, -'**'.length);
    if (withSlash.startsWith(from)) return `${rule.to}/${withSlash.slice(from.length)}`;
  }
  return withSlash;
}

export interface Plan {
  /** old path → new path, only the files that move. */
  readonly moves: ReadonlyMap<string, string>;
  /** Files under src/ that no rule places; they stay. */
  readonly unplaced: readonly string[];
}

export function planMoves(srcFiles: readonly string[], rules: readonly MoveRule[] = MOVES): Plan {
  const moves = new Map<string, string>();
  const unplaced: string[] = [];
  const taken = new Set(srcFiles);
  for (const file of srcFiles) {
    const to = destinationOf(file, rules);
    if (to === null) unplaced.push(file);
    else if (to !== file) {
      if (taken.has(to)) throw new Error(`rezone: ${file} would move onto ${to}, which already exists`);
      taken.add(to);
      moves.set(file, to);
    }
  }
  return { moves, unplaced };
}

const posix = path.posix;
const toPosix = (p: string): string => p.split(path.sep).join('/');

/** Relative specifier from a folder to a target, always starting with ./ or ../. */
function relativeSpecifier(fromFolder: string, target: string, folderTarget: boolean): string {
  let rel = posix.relative(fromFolder, target);
  if (!rel.startsWith('.')) rel = rel === '' ? '.' : `./${rel}`;
  if (folderTarget && !rel.endsWith('/')) rel = `${rel}/`;
  return rel;
}

// Specifiers in import/export declarations, dynamic imports and `new URL(x, import.meta.url)`. The
// quoted text is group 3; a template literal is matched up to its first `${`.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew URL\(\s*)(['"`])(\.{1,2}\/[^'"`\n]*?)(\2|\$\{)/g;

/**
 * Rewrites the relative specifiers of one file's text. `oldFile` and `newFile` are the importer's
 * paths before and after; `exists` says whether an old-layout path is a file or folder there.
 */
export function rewriteSpecifiers(
  text: string,
  oldFile: string,
  newFile: string,
  moves: ReadonlyMap<string, string>,
  rules: readonly MoveRule[],
  exists: (oldPath: string) => 'file' | 'folder' | null,
): string {
  const oldFolder = posix.dirname(oldFile);
  const newFolder = posix.dirname(newFile);
  return text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string, end: string) => {
    const templatePrefix = end === '${';
    // In a template literal only the folder before the first `${` is a path.
    const pathPart = templatePrefix ? spec.slice(0, spec.lastIndexOf('/') + 1) : spec;
    if (pathPart === '') return whole;
    const rest = spec.slice(pathPart.length);
    const folderSpec = pathPart.endsWith('/');
    const target = posix.normalize(posix.join(oldFolder, pathPart));
    const kind = exists(target);
    if (kind === null) return whole; // not a path of this repository: code inside a string, say
    const moved = kind === 'file' ? (moves.get(target) ?? target) : folderDestination(target, rules);
    const newTarget = kind === 'folder' ? moved.replace(/\/$/, '') : moved;
    if (newFile === oldFile && newTarget === target.replace(/\/$/, '')) return whole;
    const rewritten = relativeSpecifier(newFolder, newTarget, folderSpec || (kind === 'folder' && pathPart.endsWith('/')));
    return `${lead}${quote}${rewritten}${rest}${end}`;
  });
}

/**
 * Rewrites mentions of a moved file by its repository path (`src/cli/main.ts`), and of a folder
 * whose files all move by one folder rule (`src/engine/anthropic/prompts/`, with its slash).
 */
export function rewriteRootedPaths(
  text: string,
  moves: ReadonlyMap<string, string>,
  rules: readonly MoveRule[] = MOVES,
  isOldFolder: (folder: string) => boolean = () => false,
): string {
  if (moves.size === 0) return text;
  const olds = [...moves.keys()].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(?<![\\w./-])(${olds.join('|')})(?![\\w.-])`, 'g');
  const files = text.replace(pattern, (old) => moves.get(old) ?? old);
  return files.replace(/(?<![\w./-])src\/[\w./-]*\//g, (folder) => (isOldFolder(folder) ? folderDestination(folder, rules) : folder));
}

export function renameIdentifiers(text: string, renames: Readonly<Record<string, string>> = RENAMES): string {
  let out = text;
  for (const [from, to] of Object.entries(renames)) out = out.replace(new RegExp(`\\b${from}\\b`, 'g'), to);
  return out;
}

/** This script and its test name the old layout on purpose (the table, the fixture): never rewritten. */
const DESCRIBES_OLD_LAYOUT = new Set(['scripts/rezone.ts', 'test/unit/rezone.test.ts']);
const SOURCE_EXT = /\.(ts|mts|cts|mjs|js)$/;
const CODE_ROOTS = ['src/', 'test/', 'bench/', 'scripts/', 'lib/', 'bin/'];
// Texts that name files by their repository path, besides the code.
const ROOTED_TEXTS = (file: string): boolean =>
  /^docs\/.*\.md$/.test(file) || ['README.md', '.ci/run', 'package.json', 'action.yml', 'vitest.config.ts'].includes(file);

function git(root: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

export interface RezoneReport {
  readonly moves: ReadonlyMap<string, string>;
  readonly unplaced: readonly string[];
  readonly rewritten: readonly string[];
}

export function rezone(root: string, options: { readonly dryRun: boolean; readonly log?: (line: string) => void }): RezoneReport {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const tracked = git(root, ['ls-files', '-z']).split('\0').filter(Boolean);
  const srcFiles = tracked.filter((f) => f.startsWith('src/'));
  const plan = planMoves(srcFiles);
  const trackedSet = new Set(tracked);
  const exists = (p: string): 'file' | 'folder' | null => {
    if (p === '.' || p === '') return 'folder';
    if (trackedSet.has(p)) return 'file';
    const abs = path.join(root, p);
    if (!existsSync(abs)) return null;
    return statSync(abs).isDirectory() ? 'folder' : 'file';
  };

  // A folder of the old layout whose files all leave it (so a mention of it must follow them).
  const isOldFolder = (folder: string): boolean => {
    const inside = srcFiles.filter((f) => f.startsWith(folder));
    return inside.length > 0 && inside.every((f) => plan.moves.has(f));
  };
  const rewritten: string[] = [];
  const writes = new Map<string, string>(); // new path → text
  for (const file of tracked) {
    if (DESCRIBES_OLD_LAYOUT.has(file)) continue;
    const isCode = CODE_ROOTS.some((r) => file.startsWith(r)) && SOURCE_EXT.test(file);
    if (!isCode && !ROOTED_TEXTS(file)) continue;
    const newFile = plan.moves.get(file) ?? file;
    const before = readFileSync(path.join(root, file), 'utf8');
    let after = before;
    if (isCode) after = renameIdentifiers(rewriteSpecifiers(after, file, newFile, plan.moves, MOVES, exists));
    after = rewriteRootedPaths(after, plan.moves, MOVES, isOldFolder);
    if (after !== before) {
      rewritten.push(newFile);
      writes.set(newFile, after);
    }
  }

  for (const [from, to] of plan.moves) log(`move     ${from} -> ${to}`);
  for (const file of rewritten) log(`rewrite  ${file}`);
  for (const file of plan.unplaced) log(`not placed (no rule; stays): ${file}`);
  if (plan.moves.size === 0 && rewritten.length === 0) log('nothing to move: the tree is already re-zoned');

  if (!options.dryRun) {
    for (const [from, to] of plan.moves) {
      execFileSync('mkdir', ['-p', path.dirname(path.join(root, to))]);
      git(root, ['mv', from, to]);
    }
    for (const [file, text] of writes) writeFileSync(path.join(root, file), text);
    // git tracks no folders: remove the ones the moves emptied, deepest first.
    const emptied = [...new Set([...plan.moves.keys()].map((f) => path.posix.dirname(f)))].sort((x, y) => y.length - x.length);
    for (const folder of emptied) {
      for (let dir = folder; dir.startsWith('src/'); dir = path.posix.dirname(dir)) {
        const abs = path.join(root, dir);
        if (!existsSync(abs) || readdirSync(abs).length > 0) break;
        rmdirSync(abs);
      }
    }
  }
  return { moves: plan.moves, unplaced: plan.unplaced, rewritten };
}

if (process.argv[1] && toPosix(path.resolve(process.argv[1])) === toPosix(fileURLToPath(import.meta.url))) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--dry-run' && a !== '--allow-dirty');
  if (unknown.length > 0) {
    process.stderr.write(`rezone: unknown argument ${unknown[0]} (use --dry-run, --allow-dirty)\n`);
    process.exit(2);
  }
  const root = fileURLToPath(new URL('../', import.meta.url));
  const dirty = git(root, ['status', '--porcelain', '--untracked-files=no']).trim();
  if (dirty !== '' && !args.includes('--allow-dirty') && !args.includes('--dry-run')) {
    process.stderr.write(`rezone: the work tree has uncommitted changes; commit them first (or pass --allow-dirty):\n${dirty}\n`);
    process.exit(2);
  }
  const untracked = git(root, ['ls-files', '--others', '--exclude-standard', 'src']).trim();
  if (untracked !== '') process.stderr.write(`rezone: untracked files under src/ are neither moved nor rewritten; add them first:\n${untracked}\n`);
  rezone(root, { dryRun: args.includes('--dry-run') });
}
