import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import { parseJson } from '../domain/json.ts';
import { firstIssue } from '../domain/schema-issue.ts';
import { configRules } from './rules.ts';
import { configSchema, type Config } from './schema.ts';

export const CONFIG_FILE = 'agentdevel.config.json';

export async function loadConfig(workspace: string): Promise<Config> {
  const file = path.join(workspace, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new AgentdevelError('CONFIG_MISSING', `no ${CONFIG_FILE} in ${workspace}`, { cause });
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): Config {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new AgentdevelError('CONFIG_INVALID', `${file}:${parsed.line}: not valid JSON: ${parsed.message}`, {
      location: { file, line: parsed.line },
    });
  }
  const result = configSchema.safeParse(parsed.value);
  if (!result.success) {
    const { key, message } = firstIssue(result.error);
    throw new AgentdevelError('CONFIG_INVALID', `${file}: ${key}: ${message}`, { location: { file, key } });
  }
  for (const rule of configRules) {
    const broken = rule(result.data);
    if (broken) {
      throw new AgentdevelError('CONFIG_INVALID', `${file}: ${broken.key}: ${broken.message}`, {
        location: { file, key: broken.key },
      });
    }
  }
  return result.data;
}
