import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, shippedJsonSchemas } from '../../src/config/json-schema.ts';
import { parseConfig } from '../../src/config/load.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { DEFAULT_MODEL } from '../../src/domain/models.ts';
import { repoRoot } from '../helpers/workspace.ts';

function failure(text: string): AgentdevelError {
  try {
    parseConfig(text, '/ws/agentdevel.config.json');
  } catch (error) {
    if (error instanceof AgentdevelError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('config', () => {
  it('fills defaults into the normalized shape', () => {
    const config = parseConfig('{"blueprint": "a", "task": "b"}', 'x.json');
    expect(config.trials).toBe(1);
    expect(config.models).toEqual({ agent: DEFAULT_MODEL, critic: DEFAULT_MODEL, diagnostician: DEFAULT_MODEL, synthesizer: DEFAULT_MODEL, judge: DEFAULT_MODEL, writer: DEFAULT_MODEL });
    expect(DEFAULT_MODEL).toBe('claude-sonnet-5-5');
    expect(config.gate.maxP2F).toBe(0);
    expect(config.line).toEqual({ branch: 'main', tagPrefix: '' });
  });

  it.each([
    ['a value of the wrong type', '{"blueprint":"a","task":"b","trials":"3"}', 'trials', /expected number/],
    ['a nested value of the wrong type', '{"blueprint":"a","task":"b","gate":{"maxP2F":"x"}}', 'gate.maxP2F', /expected number/],
    ['a misspelled key', '{"blueprint":"a","task":"b","gate":{"maxP2f":1}}', 'gate.maxP2f', /unknown key/],
    ['a model that is neither mock nor Claude', '{"blueprint":"a","task":"b","models":{"critic":"gpt-4o"}}', 'models.critic', /Claude model id/],
    ['a missing blueprint', '{"task":"b"}', 'blueprint', /expected string/],
    ['a branch git would refuse', '{"blueprint":"a","task":"b","line":{"branch":"release..1"}}', 'line.branch', /not a valid git branch/],
    ['a key an earlier agentdevel accepted', '{"blueprint":"a","task":"b","gate":{"confirmTrials":3}}', 'gate.confirmTrials', /replaced by gate\.maxConfirmTrials/],
  ])('names the key of %s', (_name, text, key, message) => {
    const error = failure(text);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.location.key).toBe(key);
    expect(error.message).toContain('/ws/agentdevel.config.json');
    expect(error.message).toMatch(message);
  });

  it('takes a provider per role: "openai:MODEL" or an object naming the server; Claude ids unchanged', () => {
    const config = parseConfig(
      JSON.stringify({ blueprint: 'a', task: 'b', models: { agent: 'openai:gpt-5.1', critic: { provider: 'openai', model: 'llama3.1:8b', baseURL: 'http://127.0.0.1:11434/v1', price: { input: 0, output: 0 } }, synthesizer: 'claude-opus-4-5' } }),
      'x.json',
    );
    expect(config.models).toEqual({
      agent: 'openai:gpt-5.1',
      critic: 'openai:llama3.1:8b',
      diagnostician: DEFAULT_MODEL,
      synthesizer: 'claude-opus-4-5',
      judge: DEFAULT_MODEL,
      writer: DEFAULT_MODEL,
      endpoints: { critic: { baseURL: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'OPENAI_API_KEY', baseURLEnv: 'OPENAI_BASE_URL', price: { input: 0, output: 0 } } },
    });
    const missingModel = failure(JSON.stringify({ blueprint: 'a', task: 'b', models: { critic: { provider: 'openai', baseURL: 'http://127.0.0.1:1/v1' } } }));
    expect(missingModel.code).toBe('CONFIG_INVALID');
    expect(missingModel.message).toMatch(/models\.critic: model: .*expected string/);
    expect(failure(JSON.stringify({ blueprint: 'a', task: 'b', models: { critic: 'gpt-4o' } })).message).toMatch(/models\.critic: expected "mock", a Claude model id .* or "openai:MODEL"/);
  });

  it('names the line of a JSON syntax error', () => {
    const error = failure('{\n  "blueprint": "a",\n  "task": "b",\n}\n');
    expect(error.location.line).toBe(4);
    expect(error.message).toMatch(/agentdevel\.config\.json:4: not valid JSON/);
  });

  it('ships a JSON Schema that matches the zod schema', () => {
    const committed = readFileSync(path.join(repoRoot, 'agentdevel.config.schema.json'), 'utf8');
    expect(committed).toBe(configJsonSchema());
  });

  it.each(Object.entries(shippedJsonSchemas()))('ships %s as the zod schema generates it (run scripts/write-config-schema.ts)', (file, content) => {
    expect(readFileSync(path.join(repoRoot, file), 'utf8')).toBe(content);
    expect(JSON.parse(content).title).toBeTruthy();
  });

  it('describes the blueprint and task keys users guess at (command, scorer kinds)', () => {
    const schemas = shippedJsonSchemas();
    expect(schemas['blueprint.schema.json']).toContain('"command"');
    for (const kind of ['state', 'schema', 'regex', 'numeric', 'script']) expect(schemas['task.schema.json']).toContain(`"const": "${kind}"`);
  });

  it('accepts the bundled example config', () => {
    const text = readFileSync(path.join(repoRoot, 'agentdevel.config.json'), 'utf8');
    expect(parseConfig(text, 'agentdevel.config.json').blueprint).toBe('support-agent');
  });
});
