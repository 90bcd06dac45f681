// Prints what a gate decision costs in the real pipeline, in agent runs (case-trials) counted
// from the store. Run: npx tsx bench/confirmation-cost.ts
// It builds the bundled example (mock engine: a simulation) with the default config (one trial
// per case, the statistical gate), runs one iteration at two agent temperatures, and reads the
// counts: the baseline's run, the candidate's run, and the confirmation's fresh trials.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.ts';
import { systemClock } from '../src/domain/ports/clock.ts';
import { scaffoldExample } from '../src/app/example.ts';
import { openSql } from '../src/adapters/store/sqlite.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;

for (const temperature of [0, 0.4]) {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-')), 'ws');
  await scaffoldExample(dir);
  const manifest = path.join(dir, 'blueprints/support-agent/blueprint.json');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"temperature": 0', `"temperature": ${temperature}`));
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--allow-empty', '-am', 'bench settings'], { cwd: dir });

  const code = await main(['iterate', '--max-iterations', '1', '-C', dir], { stdout: quiet, stderr: quiet, env: {}, cwd: dir, clock: systemClock });
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  const counts = Object.fromEntries(
    sql.all<{ purpose: string; n: number }>(`SELECT runs.purpose AS purpose, COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id GROUP BY runs.purpose`).map((r) => [r.purpose, Number(r.n)]),
  );
  const flipped = Number(sql.get<{ n: number }>(`SELECT COUNT(DISTINCT case_id) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'confirm'`)?.n ?? 0);
  const cases = Number(sql.get<{ n: number }>(`SELECT COUNT(DISTINCT case_id) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'baseline'`)?.n ?? 0);
  sql.close();
  const decision = (counts.candidate ?? 0) + (counts.confirm ?? 0);
  console.log(
    `temperature ${temperature}: exit ${code}; ${cases} cases; ${flipped} selected for confirmation; agent runs for the decision ${decision} ` +
      `(candidate ${counts.candidate}, confirmation ${counts.confirm ?? 0}; the release's ${counts.baseline} screening runs, three records a release, are reused by every gate against it): ${(decision / cases).toFixed(2)} × N`,
  );
}
