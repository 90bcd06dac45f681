import type { Redactor } from '../domain/environment.ts';
import { terminalJson, terminalText } from '../domain/terminal-text.ts';

export interface Output {
  /** Machine-readable result (stdout). */
  result(value: unknown): void;
  /** Human-readable result (stdout). */
  line(text: string): void;
  readonly json: boolean;
}

export function createOutput(json: boolean, redact: Redactor, stdout: NodeJS.WritableStream = process.stdout): Output {
  return {
    json,
    result: (value) => stdout.write(`${redact(terminalJson(JSON.stringify(value)))}\n`),
    line: (text) => {
      if (!json) stdout.write(`${redact(terminalText(text))}\n`);
    },
  };
}
