import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, decisionLog, exampleWorkspace, git } from '../helpers/workspace.ts';

describe('gate --candidate on a person\'s branch', () => {
  it('infers the edit types its diff shows, one per component it changes, and every report says they were inferred', async () => {
    const dir = await exampleWorkspace();
    // A person's fix: a new paragraph in the prompt and a budget raised in blueprint.json, typed by nobody.
    git(dir, 'checkout', '-q', '-b', 'human-fix');
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, readFileSync(prompt, 'utf8').replace('You can use these tools', 'Before you cancel an order or return items, ask the customer to confirm. Act only after a clear yes.\n\nYou can use these tools'));
    const manifest = path.join(dir, 'blueprints/support-agent/blueprint.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"maxSteps": 7', '"maxSteps": 8'));
    git(dir, 'commit', '-qam', 'ask before acting\n\nTargets: missing_required_step');
    git(dir, 'checkout', '-q', 'main');

    const gated = cli(['gate', '--candidate', 'human-fix', '--promote', '--json', '-C', dir]);
    expect(gated.stderr).not.toMatch(/internal error/);
    expect([0, 1]).toContain(gated.code);
    const audit = 'refs/agentdevel/rc/support-agent/iter-001';
    const files = git(dir, 'show', '--name-only', '--format=', audit).split('\n');
    const folder = files.find((f) => f.endsWith('/decision.json'))?.replace(/\/decision\.json$/, '') ?? '';
    const decision = JSON.parse(git(dir, 'show', `${audit}:${folder}/decision.json`)) as { intent: { edits: Array<{ type: string; component: string; paths: string[] }>; editsInferred: boolean } };
    expect(decision.intent.editsInferred).toBe(true);
    expect(decision.intent.edits).toEqual([
      { type: 'revise', component: 'agent', paths: ['blueprints/support-agent/blueprint.json'] },
      { type: 'add', component: 'section:before-you-cancel', paths: ['blueprints/support-agent/system.hbs'] },
    ]);
    expect(git(dir, 'show', `${audit}:${folder}/report.md`)).toContain('Edits by type (inferred from the diff: the change did not type its edits):');
    expect(git(dir, 'show', `${audit}:${folder}/report.html`)).toContain('Edits by type, inferred from the diff');
    expect(decisionLog(dir)[0]).toMatchObject({ editsInferred: true, editsByType: { remove: [], revise: ['agent'], add: ['section:before-you-cancel'] } });
    expect(cli(['log', '-C', dir]).stdout).toContain('    edits (inferred from the diff): revise agent; add section:before-you-cancel');
  }, 180_000);
});
