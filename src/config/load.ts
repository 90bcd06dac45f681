import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import { parseJsonDocument } from '../domain/json-document.ts';
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
  const config = parseJsonDocument(text, file, configSchema, 'CONFIG_INVALID');
  for (const rule of configRules) {
    const broken = rule(config);
    if (broken) {
      throw new AgentdevelError('CONFIG_INVALID', `${file}: ${broken.key}: ${broken.message}`, {
        location: { file, key: broken.key },
      });
    }
  }
  return config;
}
