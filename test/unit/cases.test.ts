import { describe, expect, it } from 'vitest';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { parseCases } from '../../src/domain/cases-file.ts';

function refusal(text: string): AgentdevelError {
  try {
    parseCases(text, 'rubrics/t/train.jsonl');
  } catch (error) {
    if (error instanceof AgentdevelError) return error;
    throw error;
  }
  throw new Error('expected the split to be refused');
}

describe('cases', () => {
  it('reads one case per line and skips blank lines', () => {
    const cases = parseCases('{"id":"a","x":1}\n\n{"id":"b"}\n', 'f');
    expect(cases.map((c) => c.id)).toEqual(['a', 'b']);
    expect(cases[0]?.x).toBe(1);
  });

  it.each([
    ['a malformed line 3', '{"id":"a"}\n{"id":"b"}\n{"id": "c", oops}\n', 3, /not valid JSON/],
    ['a duplicate id', '{"id":"a"}\n{"id":"b"}\n{"id":"a"}\n', 3, /duplicate case id "a" \(first used on line 1\)/],
    ['a missing id', '{"id":"a"}\n{"name":"b"}\n', 2, /id/],
    ['an id that is not a string', '{"id":7}\n', 1, /id/],
    ['an empty split', '\n\n', 1, /no cases/],
  ])('refuses %s with the file and line', (_name, text, line, message) => {
    const error = refusal(text);
    expect(error.code).toBe('CASES_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.location).toEqual({ file: 'rubrics/t/train.jsonl', line });
    expect(error.message.startsWith(`rubrics/t/train.jsonl:${line}: `)).toBe(true);
    expect(error.message).toMatch(message);
  });
});
