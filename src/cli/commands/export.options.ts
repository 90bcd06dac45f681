// `agentdevel export`: its command line (the command itself is export.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const exportCommandLine = command({
  name: 'export',
  description: "send a run's case-trials as OpenTelemetry spans (GenAI semantic conventions) to an OTLP/HTTP receiver, or write them as OTLP/JSON",
  options: [
    option('--otlp <url>', "the receiver's traces endpoint, e.g. http://localhost:4318/v1/traces"),
    option('--otlp-file <file>', 'write the spans as OTLP/JSON to FILE instead (or as well)'),
    option('--run <run>', 'a run by name or id (default: the newest train run)'),
    option('--timeout <seconds>', 'give up on a receiver that has not taken the spans and answered in full by then (default 30)'),
  ],
});

export type ExportOptions = CommonOptions & OptionsOf<typeof exportCommandLine>;
