import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablations, type Ablation } from '../../src/domain/ablation.ts';
import { systemClock } from '../../src/domain/ports/clock.ts';
import type { ModelPort } from '../../src/domain/ports/model.ts';
import { silentReporter } from '../../src/domain/ports/reporter.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { iterate } from '../../src/pipeline/loop/iterate.ts';
import { ensureScratchBranch, scratchConfig } from '../../src/pipeline/workspace/scratch-line.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import { cli, decisionLog, exampleWorkspace, git, lineState } from '../helpers/workspace.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../../src/adapters/template/report-templates.ts';
import { blueprintCheckRunner } from '../../src/adapters/process/blueprint-checks.ts';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';
import { localExecutor } from '../../src/adapters/runtimes/local-executor.ts';

describe('iterate --ablate', () => {
  it('is refused on the real line (exit 2, nothing written); on a scratch line it runs, records the ablation in every decision, and log marks them with RC refs of the scratch line', async () => {
    const dir = await exampleWorkspace();
    // One iteration on the real line first, so its iter-001 exists for a scratch RC to be mistaken for.
    expect(cli(['iterate', '--max-iterations', '1', '-C', dir]).code).toBe(0);
    const realRc = git(dir, 'rev-parse', 'refs/agentdevel/rc/support-agent/iter-001').trim();
    const before = lineState(dir);
    const refused = cli(['iterate', '--ablate', 'no-gate', '-C', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--ablate no-gate: refused on the real line/);
    expect(lineState(dir)).toBe(before);
    expect(cli(['iterate', '--ablate', 'no-such', '--line', 'x', '-C', dir]).code).toBe(2);

    const ran = cli(['iterate', '--ablate', 'no-gate', '--line', 'scratch', '--max-iterations', '2', '-C', dir]);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/ABLATED: no-gate/);
    // The real line, its tags and its audit refs did not move; the scratch line has its own.
    const after = lineState(dir).split('\n');
    for (const line of before.split('\n')) expect(after).toContain(line);
    expect(after.filter((l) => !before.includes(l)).every((l) => /refs\/(heads\/agentdevel\/scratch\/scratch|tags\/scratch\/scratch\/|agentdevel\/scratch\/scratch\/)/.test(l))).toBe(true);
    expect(git(dir, 'tag', '--list', 'support-agent/*')).toBe('');

    const entries = decisionLog(dir, { line: 'scratch' }) as Array<{ ablation: string; decision: string; rc: string; iteration: number; commit: string }>;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.ablation).toBe('no-gate');
    // Each RC ref names the scratch line's RC: git resolves it to the scratch audit ref, whose
    // commit sits on the scratch line on top of the RC, never to the real line's iter-001.
    for (const entry of entries) {
      const name = `iter-${String(entry.iteration).padStart(3, '0')}`;
      expect(entry.rc).toBe(`agentdevel/scratch/scratch/rc/support-agent/${name}`);
      const resolved = git(dir, 'rev-parse', '--verify', '--quiet', entry.rc).trim();
      expect(resolved).toBe(git(dir, 'rev-parse', `refs/agentdevel/scratch/scratch/rc/support-agent/${name}`).trim());
      expect(resolved).not.toBe(realRc);
      expect(git(dir, 'merge-base', '--is-ancestor', entry.commit, resolved)).toBe('');
      expect(git(dir, 'branch', '--contains', resolved, '--format=%(refname:short)').split('\n')).toContain('agentdevel/scratch/scratch');
    }
    // Ungated: every RC that ran was promoted.
    expect(entries.every((e) => e.decision === 'promoted')).toBe(true);
    const text = cli(['log', '--line', 'scratch', '-C', dir]).stdout;
    const rows = text.split('\n').filter((l) => l.startsWith('agentdevel/scratch/scratch/rc/'));
    expect(rows.length).toBe(entries.length);
    expect(rows.every((l) => l.includes('ABLATED: no-gate'))).toBe(true);
    expect(cli(['log', '-C', dir]).stdout).not.toMatch(/ABLATED/);
  }, 120_000);

  it('keeps the critic blind under every setting but critic-sees-blueprint (canary in the prompt)', async () => {
    const dir = await exampleWorkspace();
    const canary = 'CANARY-ablation-5b1e-not-for-the-critic';
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nHouse rule ${canary}.\n`);
    git(dir, 'commit', '-qam', 'canary');
    const seen = new Map<Ablation | 'none', { critic: number; withCanary: number }>();
    for (const ablation of [null, ...ablations]) {
      const opened = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: systemClock });
      const workspace = { ...opened, config: scratchConfig(opened.config, `canary-${ablation ?? 'none'}`) };
      try {
        await ensureScratchBranch(workspace, opened.config.line.branch);
        const mock = createMockEngine();
        const tally = { critic: 0, withCanary: 0 };
        const model: ModelPort = {
          ...mock,
          criticize: async (request) => {
            tally.critic += 1;
            if (JSON.stringify(request).includes(canary)) tally.withCanary += 1;
            return mock.criticize(request);
          },
        };
        await iterate({ workspace, model, reporter: silentReporter, redact: (t) => t, clock: systemClock, parentEnv: {}, checks: blueprintCheckRunner({}), sandbox: runSandboxed, scorerScripts: runScorerScript, localExecutor, textDiff: wordDiff, templates: renderReportTemplate }, { maxIterations: 1, ablation });
        seen.set(ablation ?? 'none', tally);
      } finally {
        await workspace.close();
      }
    }
    // The first setting asks the critic; the next two may be answered from the verdict cache,
    // which is keyed by the content judged, so a request they did not send was one already sent
    // without the canary.
    expect(seen.get('none')?.critic).toBeGreaterThan(0);
    for (const setting of ['none', 'no-gate', 'no-diagnosis'] as const) expect(seen.get(setting)?.withCanary).toBe(0);
    expect(seen.get('critic-sees-blueprint')?.withCanary).toBeGreaterThan(0);
  }, 180_000);
});
