import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Case, Split } from '../../domain/case.ts';
import { criticRules } from '../../domain/critic-rules.ts';
import { requirementListSchema, rubricRequirements, type Requirement } from '../../domain/requirements.ts';
import { firstIssue } from '../../domain/schema-issue.ts';
import { RubricBlockError } from '../../domain/rubric-blocks.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { atPath } from '../../domain/json.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import { parseCases } from '../../domain/cases-file.ts';
import { caseGradingPaths } from '../../domain/ports/runtime.ts';
import { regexProblem, taskManifestSchema, type ScorerConfig } from '../../domain/task-manifest.ts';
import type { Task } from '../../domain/task.ts';

export const TASK_FILE = 'task.json';

export type { Task };

export function taskRoot(workspace: string, task: string): string {
  return path.join(workspace, 'rubrics', task);
}

/** A file as the user knows it: relative to the workspace, whichever checkout stands in for it. */
function shown(workspace: string, file: string): string {
  return path.relative(workspace, file).split(path.sep).join('/');
}

/**
 * Loads a task and checks everything that can be checked before a case runs: the manifest,
 * each scorer's configuration (regular expressions and their flags, JSON Schemas) and the
 * rubric's critic-rules block. Errors name the file and the key or line as the user wrote it.
 */
export async function loadTask(workspace: string, name: string): Promise<Task> {
  const root = taskRoot(workspace, name);
  const file = path.join(root, TASK_FILE);
  const text = await readTaskFile(workspace, file);
  const manifest = parseJsonDocument(text, shown(workspace, file), taskManifestSchema, 'TASK_INVALID');
  const rubricFile = path.join(root, manifest.rubric);
  const rubric = await readTaskFile(workspace, rubricFile);
  let requirements: Requirement[];
  try {
    criticRules(rubric);
    requirements = rubricRequirements(rubric);
  } catch (error) {
    if (!(error instanceof RubricBlockError)) throw error;
    const where = shown(workspace, rubricFile);
    throw new AgentdevelError('TASK_INVALID', `${where}:${error.line}: ${error.block}: ${error.message}`, { location: { file: where, line: error.line }, cause: error });
  }
  const kinds = new Set<string>(manifest.scorers.map((s) => s.kind));
  const unknownScorer = requirements.find((r) => r.scorer !== undefined && !kinds.has(r.scorer));
  if (unknownScorer) {
    const where = shown(workspace, rubricFile);
    throw new AgentdevelError('TASK_INVALID', `${where}: requirements: "${unknownScorer.id}" names the scorer "${unknownScorer.scorer}", which ${shown(workspace, file)} does not list`, {
      location: { file: where, key: 'requirements' },
    });
  }
  return {
    name,
    workspace,
    root,
    manifest,
    rubric,
    requirements,
    environmentModule: manifest.environment ? path.join(root, manifest.environment) : null,
    gradingPaths: caseGradingPaths(manifest.scorers),
  };
}

/** What a case must hold for the task's scorers that read it (patternFromCase, expectedFromCase). */
function caseProblem(scorers: readonly ScorerConfig[], testCase: Case): string | null {
  for (const scorer of scorers) {
    if (scorer.kind === 'regex' && scorer.patternFromCase !== undefined) {
      const pattern = atPath(testCase, scorer.patternFromCase);
      if (typeof pattern !== 'string') return `${scorer.patternFromCase}: expected a string (the regex scorer's pattern)`;
      const problem = regexProblem(pattern, scorer.flags);
      if (problem) return `${scorer.patternFromCase}: ${problem}`;
    }
    if (scorer.kind === 'numeric' && scorer.expectedFromCase !== undefined) {
      const expected = atPath(testCase, scorer.expectedFromCase);
      if (typeof expected !== 'number' || !Number.isFinite(expected)) return `${scorer.expectedFromCase}: expected a number (the numeric scorer's expected value)`;
    }
  }
  if (testCase.requirements !== undefined) {
    const own = requirementListSchema.safeParse(testCase.requirements);
    if (!own.success) {
      const { key, message } = firstIssue(own.error);
      return `requirements${key.startsWith('[') ? '' : '.'}${key}: ${message}`;
    }
    const kinds = new Set<string>(scorers.map((s) => s.kind));
    const unknown = own.data.find((r) => r.scorer !== undefined && !kinds.has(r.scorer));
    if (unknown) return `requirements: "${unknown.id}" names the scorer "${unknown.scorer}", which the task does not list`;
  }
  return null;
}

export async function loadSplit(task: Task, split: Split): Promise<Case[]> {
  const file = path.join(task.root, `${split}.jsonl`);
  return parseCases(await readTaskFile(task.workspace, file), shown(task.workspace, file), (testCase) => caseProblem(task.manifest.scorers, testCase));
}

async function readTaskFile(workspace: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    const where = shown(workspace, file);
    throw new AgentdevelError('TASK_INVALID', `${where}: cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause, location: { file: where } });
  }
}
