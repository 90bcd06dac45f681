// A kept critic verdict is reused while its key matches (stages/critic/judge-once.ts). The key
// holds the request's fields, and KEY_VERSION for the prompt around them, which no field shows:
// a verdict given under an older prompt must not be reused under a new one. This test pins the
// critic's templates to the version that stands for them, so a change to the prompt cannot land
// without bumping KEY_VERSION (and then this digest).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_VERSION } from '../../src/stages/critic/judge-once.ts';

const PROMPTS = path.resolve(__dirname, '../../src/adapters/engines/anthropic/prompts');
/** The templates of the critic's request, partials included (both engines send these). */
const CRITIC_TEMPLATES = ['critic-system.hbs', 'critic-user.hbs', '_environment.hbs', '_crew.hbs', '_taxonomy.hbs'];

const PINNED = { keyVersion: 2, digest: 'a311b8690a0f5bfad62ce38258a6ac045b6f258e113f1daeefbb51cc2f63f126' };

describe("the critic verdict key's version", () => {
  it('stands for the critic prompt as it is: a changed template needs KEY_VERSION bumped', () => {
    const digest = createHash('sha256');
    for (const file of CRITIC_TEMPLATES) digest.update(readFileSync(path.join(PROMPTS, file)));
    const now = { keyVersion: KEY_VERSION, digest: digest.digest('hex') };
    // On a mismatch: bump KEY_VERSION in src/stages/critic/judge-once.ts, then pin both here.
    expect(now).toEqual(PINNED);
  });
});
