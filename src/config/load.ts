import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import { parseJsonDocument } from '../domain/json-document.ts';
import { parseJson } from '../domain/json.ts';
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

/** Keys an earlier agentdevel accepted, with what replaced them: named instead of "unknown key". */
const RENAMED: ReadonlyArray<{ readonly section: string; readonly key: string; readonly now: string }> = [
  {
    section: 'gate',
    key: 'confirmTrials',
    now: 'gate.maxConfirmTrials (the most fresh trials per side for one moved case; the gate designs each case for power within it, and both sides get the same number)',
  },
];

export function parseConfig(text: string, file: string): Config {
  const raw = parseJson(text);
  if (raw.ok && raw.value && typeof raw.value === 'object') {
    for (const { section, key, now } of RENAMED) {
      const part = (raw.value as Record<string, unknown>)[section];
      if (part && typeof part === 'object' && key in part) {
        throw new AgentdevelError('CONFIG_INVALID', `${file}: ${section}.${key}: replaced by ${now}`, { location: { file, key: `${section}.${key}` } });
      }
    }
  }
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
