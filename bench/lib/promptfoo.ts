// promptfoo, side by side: installed at bench time into a scratch folder under the system's
// temp folder (never a dependency of agentdevel), and run on the same kind of minimal case:
// the echo provider and one `equals` assertion per case.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { measure, type Cost } from './measure.ts';

export const PROMPTFOO_DIR = path.join(tmpdir(), 'agentdevel-bench-promptfoo');

/** The promptfoo CLI, installed on first use; null (with the reason printed) when it cannot be. */
export function installPromptfoo(): string | null {
  const bin = path.join(PROMPTFOO_DIR, 'node_modules', '.bin', 'promptfoo');
  if (existsSync(bin)) return bin;
  mkdirSync(PROMPTFOO_DIR, { recursive: true });
  writeFileSync(path.join(PROMPTFOO_DIR, 'package.json'), JSON.stringify({ name: 'agentdevel-bench-promptfoo', private: true }));
  console.log(`installing promptfoo into ${PROMPTFOO_DIR} (npm install promptfoo) …`);
  const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund', 'promptfoo'], { cwd: PROMPTFOO_DIR, encoding: 'utf8', timeout: 15 * 60_000 });
  if (installed.status !== 0 || !existsSync(bin)) {
    console.log(`promptfoo could not be installed (npm exit ${installed.status}): ${(installed.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`);
    return null;
  }
  return bin;
}

export function promptfooVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8', env: promptfooEnv() }).stdout.trim().split('\n').at(-1) ?? '?';
}

const promptfooEnv = () => ({
  PROMPTFOO_DISABLE_TELEMETRY: '1',
  PROMPTFOO_DISABLE_UPDATE: '1',
  PROMPTFOO_CONFIG_DIR: path.join(PROMPTFOO_DIR, 'home'),
});

/** A promptfoo eval of `cases` echo cases with one equals assertion each. */
export function writePromptfooEval(dir: string, cases: number): void {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < cases; i += 1) lines.push(JSON.stringify({ vars: { input: `hello ${i}` }, assert: [{ type: 'equals', value: `hello ${i}` }] }));
  writeFileSync(path.join(dir, 'tests.jsonl'), `${lines.join('\n')}\n`);
  writeFileSync(path.join(dir, 'promptfooconfig.yaml'), "prompts:\n  - '{{input}}'\nproviders:\n  - echo\ntests: file://tests.jsonl\n");
}

/**
 * Runs the eval with no cache and its results written to a JSON file (as agentdevel writes its
 * records), not to promptfoo's database. promptfoo may exit non-zero after finishing (on Node 20
 * its logger throws at shutdown) and cut its console output: the run counts when its results
 * file says every case passed.
 */
export function runPromptfoo(bin: string, dir: string, cases: number, concurrency: number): Cost & { complete: boolean } {
  const results = path.join(dir, 'results.json');
  const cost = measure(bin, ['eval', '--no-cache', '--no-write', '--no-table', '-j', String(concurrency), '-o', results], { cwd: dir, env: promptfooEnv() });
  let successes = -1;
  try {
    successes = (JSON.parse(readFileSync(results, 'utf8')) as { results: { stats: { successes: number } } }).results.stats.successes;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
  }
  return { ...cost, complete: successes === cases };
}

/**
 * promptfoo's exec provider on the same `sh` agent as agentdevel's command bench: `sh echo.sh`
 * with the prompt as its first argument, its stdout the output, one equals assertion per case.
 * Returns the cost of the eval (CPU: promptfoo and every process it reaped).
 */
export function runPromptfooExec(bin: string, cases: number, concurrency: number): Cost & { complete: boolean } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-promptfoo-exec-'));
  try {
    const lines: string[] = [];
    for (let i = 0; i < cases; i += 1) lines.push(JSON.stringify({ vars: { input: `hello ${i}` }, assert: [{ type: 'equals', value: `echo hello ${i}` }] }));
    writeFileSync(path.join(dir, 'tests.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(path.join(dir, 'echo.sh'), "printf 'echo %s' \"$1\"\n");
    writeFileSync(path.join(dir, 'promptfooconfig.yaml'), "prompts:\n  - '{{input}}'\nproviders:\n  - 'exec: sh echo.sh'\ntests: file://tests.jsonl\n");
    return runPromptfoo(bin, dir, cases, concurrency);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
