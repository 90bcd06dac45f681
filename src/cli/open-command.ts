// A command's context as the CLI's commands use it: what app/compose opens (the workspace, the
// run context, the reporter and the redactor), and the output on stdout that --json shapes.
import { commandReporting, openCommand as openOnWorkspace, type OpenedCommand } from '../app/compose.ts';
import type { Redactor } from '../domain/environment.ts';
import type { Reporter } from '../domain/ports/reporter.ts';
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

/** Opens the workspace named by -C (default: the current directory) for one command (app/compose.ts), with its output. */
export async function openCommand(
  io: Io,
  options: CommonOptions,
  lockFor: string | null,
  models: 'at_start' | 'at_first_call' = 'at_start',
  store: 'reads' | 'unused' = 'reads',
): Promise<CommandContext> {
  const opened = await openOnWorkspace(io, options, lockFor, models, store);
  return { ...opened, output: createOutput(options.json === true, opened.redact, io.stdout) };
}
