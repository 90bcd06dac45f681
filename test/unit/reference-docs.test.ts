// The CLI, config and error reference pages are generated from the source; a committed page that
// differs from what the source renders now is stale (run `npx tsx scripts/write-reference.ts`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { referencePages } from '../../scripts/reference-docs.ts';
import { catalogueEntries } from '../../src/domain/errors.ts';
import { repoRoot } from '../helpers/workspace.ts';

const pages = referencePages();

describe('the generated reference pages', () => {
  it.each(Object.keys(pages))('%s is as the source renders it (run scripts/write-reference.ts)', (file) => {
    expect(readFileSync(path.join(repoRoot, file), 'utf8')).toBe(pages[file]);
  });

  it('cover every command, config key and error code', () => {
    const cli = pages['docs/reference/cli.md'] as string;
    for (const command of ['run', 'iterate', 'gate', 'labels merge', 'worker', 'evaluate-test']) expect(cli).toContain(`## agentdevel ${command}\n`);
    expect(cli).toContain('--reseal-test');
    const config = pages['docs/reference/config.md'] as string;
    for (const key of ['gate.alpha', 'sandbox.memoryMb', 'stop.maxIterations', 'secrets']) expect(config).toContain(`| \`${key}\``);
    const errors = pages['docs/reference/errors.md'] as string;
    for (const { code } of catalogueEntries()) expect(errors).toContain(`| \`${code}\` |`);
  });
});
