// Workspaces for the throughput benches: the smallest agent of each runtime over N generated
// cases, so what is measured is agentdevel's own cost per case-trial, not the agent's.
//   tool-loop: the mock engine answers in one turn with text, one regex scorer, no environment.
//   command:   `sh` echoing a final event for the case, one regex scorer.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type ScaleRuntime = 'tool-loop' | 'command';

export interface ScaleOptions {
  readonly runtime: ScaleRuntime;
  readonly cases: number;
  readonly concurrency: number;
  /** Claude model id for the agent and critic (with ANTHROPIC_BASE_URL at a fake API), or mock. */
  readonly model?: string;
}

const TOOL = `import { z } from 'zod';
export default { name: 'lookup', description: 'Look something up.', inputSchema: z.object({ q: z.string() }), run: (args) => ({ found: args.q }) };
`;

// Reads the case from stdin and says one final event; the whole agent is one process of sh.
const ECHO = `#!/bin/sh
read -r line
printf '{"type":"final","output":"echo %s"}\\n' "$AGENTDEVEL_TRIAL"
`;

export function writeScaleWorkspace(dir: string, options: ScaleOptions): void {
  const model = options.model ?? 'mock';
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  };
  write(
    'agentdevel.config.json',
    JSON.stringify({
      blueprint: 'echo',
      task: 'echo',
      models: { agent: model, critic: model, diagnostician: 'mock', synthesizer: 'mock' },
      trials: 1,
      concurrency: options.concurrency,
    }),
  );
  if (options.runtime === 'tool-loop') {
    write('blueprints/echo/blueprint.json', JSON.stringify({ runtime: 'tool-loop', prompt: 'system.hbs', tools: ['tools/lookup.ts'], maxSteps: 3 }));
    write('blueprints/echo/system.hbs', 'You answer briefly.\n');
    write('blueprints/echo/tools/lookup.ts', TOOL);
  } else {
    write('blueprints/echo/blueprint.json', JSON.stringify({ runtime: 'command', command: ['sh', 'echo.sh'], timeoutMs: 10_000 }));
    write('blueprints/echo/echo.sh', ECHO);
  }
  // The mock agent answers an opening it cannot place with "How can I help …".
  const pattern = options.runtime === 'tool-loop' ? 'help' : '^echo';
  write('rubrics/echo/task.json', JSON.stringify({ rubric: 'rubric.md', scorers: [{ kind: 'regex', pattern }] }));
  write('rubrics/echo/rubric.md', 'The agent answers.\n');
  const lines: string[] = [];
  for (let i = 0; i < options.cases; i += 1) lines.push(JSON.stringify({ id: `case-${String(i).padStart(6, '0')}`, input: `hello ${i}` }));
  write('rubrics/echo/train.jsonl', `${lines.join('\n')}\n`);
  write('rubrics/echo/test.jsonl', `${JSON.stringify({ id: 'test-1', input: 'hello' })}\n`);
  write('.gitignore', 'traces/\n.agentdevel/\n');
  const git = (...args: string[]) => {
    const result = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@agentdevel.invalid', ...args], { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench workspace');
}
