// A command's context as the CLI's commands use it: what app/compose opens (the workspace, the
// run context, the reporter and the redactor), and the output on stdout that --json shapes.
import { commandReporting, openCommand as openOnWorkspace, type OpenedCommand } from '../app/compose.ts';
import type { Redactor } from '../domain/environment.ts';
import type { Reporter } from '../domain/ports/reporter.ts';
import { beforeInterruptExit } from './interrupt-steps.ts';
import type { CommonOptions, Io } from './io.ts';
import { createOutput, type Output } from './render.ts';

export interface CommandContext extends OpenedCommand {
  readonly output: Output;
}

/** How a command that opens no workspace through app shows itself: its output, progress reporter and redactor. */
export function presentation(io: Io, options: CommonOptions): { output: Output; reporter: Reporter; redact: Redactor } {
  const { reporter, redact } = commandReporting(io, options);
  return { output: createOutput(options.json === true, redact, io.stdout), reporter, redact };
}

/** What app/compose's openCommand takes after the place and the options: the lock, and when models and the store open (its defaults apply). */
type OpeningChoices = Parameters<typeof openOnWorkspace> extends [unknown, unknown, ...infer Rest] ? Rest : never;

/** Opens the workspace named by -C (default: the current directory) for one command (app/compose.ts), with its output. */
export async function openCommand(io: Io, options: CommonOptions, ...choices: OpeningChoices): Promise<CommandContext> {
  const opened = await openOnWorkspace(io, options, ...choices);
  // Interrupted with case-trials on a queue: those no worker has started are taken back, so the
  // workers spend nothing on a run nobody collects (the running ones leave results to reuse).
  const withdraw = opened.withdraw;
  const stopWithdrawing = withdraw
    ? beforeInterruptExit(async () => {
        const count = await withdraw();
        if (count > 0) io.stderr.write(`agentdevel: took ${count} waiting case-trial${count === 1 ? '' : 's'} back out of the queue\n`);
      })
    : () => undefined;
  return {
    ...opened,
    output: createOutput(options.json === true, opened.redact, io.stdout),
    close: async () => {
      stopWithdrawing();
      await opened.close();
    },
  };
}
