// Errors keep their cause (STYLE.md, after execa): an error made from a caught one carries it as
// `cause`, so the stack of a bug shows where it began and a caller can still ask what failed.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { InfraError } from '../../src/domain/ports/model.ts';
import { RubricBlockError } from '../../src/domain/rubric-blocks.ts';
import { loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { JobGaveUp } from '../../src/adapters/queue/errors.ts';
import { collectCaseTrial } from '../../src/adapters/queue/executor.ts';
import type { CaseTrialQueue } from '../../src/adapters/queue/collector.ts';
import type { CaseTrialJob } from '../../src/adapters/queue/job.ts';
import { loadTask } from '../../src/adapters/task/load.ts';
import { compileTemplates, TemplateError } from '../../src/adapters/template/handlebars.ts';
import { workspaceDir } from '../../src/app/compose.ts';
import type { Io } from '../../src/cli/io.ts';
import { exampleWorkspace, tempDir } from '../helpers/workspace.ts';

/** What `run` throws (or rejects with), for a look at it. */
async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, got none');
}

function editFile(dir: string, file: string, change: (text: string) => string): void {
  writeFileSync(path.join(dir, file), change(readFileSync(path.join(dir, file), 'utf8')));
}

describe('an error made from a caught error keeps it as its cause', () => {
  it('a malformed critic-rules block: TASK_INVALID, caused by the RubricBlockError that names the block', async () => {
    const dir = await exampleWorkspace();
    editFile(dir, 'rubrics/orders/rubric.md', (t) => t.replace('"confirmBefore": ["cancel_order", "return_items"]', '"confirmBefore": "cancel_order"'));
    const error = await thrown(() => loadTask(dir, 'orders'));
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).code).toBe('TASK_INVALID');
    expect((error as Error).cause).toBeInstanceOf(RubricBlockError);
    expect(((error as Error).cause as RubricBlockError).block).toBe('critic-rules');
  });

  it("a template that does not parse: a TemplateError, caused by Handlebars' own parse error", async () => {
    const error = await thrown(() => compileTemplates({ main: 'Hello {{#if name}}', partials: {} }, 'system'));
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(((error as Error).cause as Error).message).toMatch(/Parse error on line 1/);
  });

  it("a blueprint prompt that does not compile: BLUEPRINT_INVALID, caused by the TemplateError, caused by Handlebars'", async () => {
    const dir = await exampleWorkspace();
    editFile(dir, 'blueprints/support-agent/system.hbs', (t) => `${t}\n{{#each tools}}\n`);
    const error = await thrown(() => loadBlueprint(dir, 'support-agent', tempDir('agentdevel-build-')));
    expect((error as AgentdevelError).code).toBe('BLUEPRINT_INVALID');
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(TemplateError);
    expect((cause as Error).cause).toBeInstanceOf(Error);
  });

  it('a -C folder that does not exist: USAGE, caused by the ENOENT of the file system', async () => {
    const error = await thrown(() => workspaceDir({ cwd: tempDir() } as Io, { C: 'no-such-folder' }));
    expect((error as AgentdevelError).code).toBe('USAGE');
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('a job the queue gave up on: an InfraError of the case-trial, caused by the JobGaveUp', async () => {
    const gaveUp = new JobGaveUp('job c1 stalled more than 2 times');
    // The queue's port, answering as BullMQ does for a job whose stalls ran out.
    const queue = { submit: () => Promise.reject(gaveUp) } as unknown as CaseTrialQueue;
    const error = await thrown(() => collectCaseTrial(queue, { schema: 1, caseId: 'c1', trial: 0 } as unknown as CaseTrialJob));
    expect(error).toBeInstanceOf(InfraError);
    expect((error as Error).cause).toBe(gaveUp);
  });
});
