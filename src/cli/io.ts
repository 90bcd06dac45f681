// What every command starts from: its streams, environment and clock, and the options common
// to all commands. Kept apart from the workspace and the engines, so that `--help` and the
// command line's parsing load nothing heavy.
import { systemClock, type Clock } from '../domain/ports/clock.ts';
import type { CommandOptions } from '../app/command-options.ts';

/** The options common to all commands: those a command is opened with (app/command-options.ts), and --json. */
export interface CommonOptions extends CommandOptions {
  readonly json?: boolean;
}

export interface Io {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly clock: Clock;
}

export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  clock: systemClock,
});
