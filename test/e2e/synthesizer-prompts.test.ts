import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaffoldExample } from '../../src/app/example.ts';
import { cli, git, tempDir } from '../helpers/workspace.ts';

const OFFLINE = { ANTHROPIC_API_KEY: '' };

function initWorkspace(runtime: 'command' | 'tool-loop'): string {
  const dir = path.join(tempDir(), runtime);
  mkdirSync(dir);
  git(dir, 'init', '-q');
  const init = cli(['init', '--runtime', runtime, '-C', dir]);
  expect(init.code, init.stderr).toBe(0);
  return dir;
}

/** The synthesizer's request as `prompts` prints it: the system blocks, the forced tool's schema, the user message. */
function synthesizerRequest(dir: string): string {
  const result = cli(['prompts', '--role', 'synthesizer', '-C', dir], { env: OFFLINE });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** Words that belong to one runtime's blueprint only. */
const ONLY = {
  'tool-loop': ['"runtime": "tool-loop"', 'The system prompt (', '"maxSteps": Model turns allowed per case'],
  command: ['"runtime": "command"', '"timeoutMs"', 'AGENTDEVEL_TRIAL', 'stdin', 'The agent is the program'],
  crew: ['"runtime": "crew"', 'orchestrator', 'member', '"sees"', '"maxCalls"', '\\{{members}}'.slice(1)],
  wrappers: ['wrapper', 'ctx.env', '<environment_api>', 'section:'],
} as const;

describe('prompts --role synthesizer, per runtime', () => {
  it('states the command runtime, what its command is and its environment, and nothing of tool-loop or crew', () => {
    const dir = initWorkspace('command');
    const text = synthesizerRequest(dir);
    for (const word of ONLY.command) expect(text).toContain(word);
    for (const word of [...ONLY['tool-loop'], ...ONLY.crew, ...ONLY.wrappers, 'tool-loop', 'crew']) expect(text).not.toContain(word);
    expect(text).toContain('The agent is the program its "command" starts: "node" "agent.mjs".');
    expect(text).toMatch(/"pattern": "\^\(agent\|partial:\\\\S\.\*\)\$"/);
    expect(text).toMatch(/<components note=[^>]*>\n- agent: blueprints\/my-agent\/blueprint\.json, blueprints\/my-agent\/agent\.mjs\n<\/components>/);
    // A Python agent: its command is stated, and nothing asserts Node.js.
    writeFileSync(path.join(dir, 'blueprints/my-agent/blueprint.json'), JSON.stringify({ runtime: 'command', command: ['python3', 'agent.py'] }));
    writeFileSync(path.join(dir, 'blueprints/my-agent/agent.py'), 'print("{}")\n');
    rmSync(path.join(dir, 'blueprints/my-agent/agent.mjs'));
    const python = synthesizerRequest(dir);
    expect(python).toContain('The agent is the program its "command" starts: "python3" "agent.py". It may be written in any language; agentdevel runs it as it is.');
    expect(python.slice(0, python.indexOf('## tool '))).not.toMatch(/Node\.js|built-ins|ES modules/);
  });

  it('states the tool-loop runtime, its prompt, wrappers and environment API, and nothing of command or crew', () => {
    const text = synthesizerRequest(initWorkspace('tool-loop'));
    for (const word of [...ONLY['tool-loop'], ...ONLY.wrappers]) expect(text).toContain(word);
    for (const word of [...ONLY.command, ...ONLY.crew, 'crew']) expect(text).not.toContain(word);
    expect(text).toContain('Runtime: Node.js');
    expect(text).toContain('- tool:get_order: blueprints/support-agent/tools/get_order.ts');
  });

  it('states the crew runtime from the orders-crew example: orchestrator, members, their prompts and views, wrappers and the environment API; nothing of command or tool-loop', async () => {
    const dir = path.join(tempDir(), 'crew');
    await scaffoldExample(dir, 'orders-crew');
    const text = synthesizerRequest(dir);
    for (const word of [...ONLY.crew, ...ONLY.wrappers]) expect(text).toContain(word);
    for (const word of [...ONLY.command, ...ONLY['tool-loop'], 'tool-loop']) expect(text).not.toContain(word);
    // Every key of the crew manifest is described.
    for (const key of ['orchestrator', 'members', 'maxTokens', 'temperature', 'description']) expect(text).toMatch(new RegExp(`- "${key}"(?: \\(required\\))?: \\S`));
    expect(text).toContain("The orchestrator's prompt (blueprints/orders-crew/system.hbs)");
    expect(text).toContain('lookup: blueprints/orders-crew/members/lookup.hbs');
    expect(text).toContain('every tool wrapper the orchestrator or a member lists is a file of the blueprint folder');
    expect(text).toContain('- member:lookup: blueprints/orders-crew/blueprint.json, blueprints/orders-crew/members/lookup.hbs');
    expect(text).toMatch(/<environment_api>\nWhat tool wrappers can call on ctx\.env/);

    // The check the request promises is made: a member that lists a wrapper the folder lacks is refused, naming it.
    const manifest = path.join(dir, 'blueprints/orders-crew/blueprint.json');
    const crew = JSON.parse(git(dir, 'show', 'HEAD:blueprints/orders-crew/blueprint.json')) as { members: Array<{ name: string; tools: string[] }> };
    crew.members[1]?.tools.push('tools/refund_card.ts');
    writeFileSync(manifest, JSON.stringify(crew));
    const run = cli(['run', '-C', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/blueprints\/orders-crew\/blueprint\.json: members\.1\.tools: member "refunds" lists "tools\/refund_card\.ts", which is not a file of the blueprint folder/);
  });
});
