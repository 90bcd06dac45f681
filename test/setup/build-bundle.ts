// Builds dist/ from the sources before the suite (see vitest.config.ts); a failed build fails it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const script = fileURLToPath(new URL('../../scripts/build-bundle.mjs', import.meta.url));
  const built = spawnSync(process.execPath, [script, '--strict'], { encoding: 'utf8', timeout: 120_000 });
  if (built.status !== 0) throw new Error(`the prebuilt bundle does not build:\n${built.stderr}`);
}
