import { AgentdevelError } from '../../domain/errors.ts';
import { DEFAULT_SYNC_TIMEOUT_S, syncLine } from '../../pipeline/workspace/sync.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import type { SyncOptions } from './sync.options.ts';

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SYNC_TIMEOUT_S * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds > 0)) throw new AgentdevelError('USAGE', `--timeout: expected a number of seconds above 0, got "${value}"`);
  return seconds * 1000;
}

/** `agentdevel sync [REMOTE]`: fetch and push the line, its release tags and refs/agentdevel/*. */
export async function syncCommand(io: Io, options: SyncOptions, remote: string | undefined): Promise<number> {
  if (options.fetchOnly && options.pushOnly) throw new AgentdevelError('USAGE', 'sync takes --fetch-only or --push-only, not both');
  const timeoutMs = parseTimeout(options.timeout);
  const command = await openCommand(io, options, null);
  try {
    const result = await syncLine(command.workspace.repo, command.workspace.config, { remote: remote ?? 'origin', fetch: options.pushOnly !== true, push: options.fetchOnly !== true, timeoutMs });
    if (command.output.json) command.output.result({ remote: remote ?? 'origin', ...result });
    else {
      if (result.fetched.length) command.output.line(`fetched from ${remote ?? 'origin'}: ${result.fetched.join(' ')}`);
      for (const merged of result.merged) command.output.line(`merged: ${merged}`);
      if (result.pushed.length) command.output.line(`pushed to ${remote ?? 'origin'}: ${result.pushed.join(' ')}`);
    }
    return 0;
  } finally {
    await command.close();
  }
}
