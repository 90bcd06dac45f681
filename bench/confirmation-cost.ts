// Prints what confirming a gate decision costs, in agent runs (case-trials) counted from the
// store, against confirming every case. Run: npx tsx bench/confirmation-cost.ts
// It builds the bundled example (mock engine: a simulation) with one trial per case, the
// stochastic gate and 3 confirmation trials, runs one iteration, and reads the counts.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.ts';
import { systemClock } from '../src/domain/clock.ts';
import { scaffoldExample } from '../src/pipeline/example.ts';
import { openSql } from '../src/store/sqlite.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;

for (const temperature of [0, 0.4]) {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-')), 'ws');
  await scaffoldExample(dir);
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  config.gate = { ...config.gate, policy: 'stochastic', confirmTrials: 3 };
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const manifest = path.join(dir, 'blueprints/support-agent/blueprint.json');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"temperature": 0', `"temperature": ${temperature}`));
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-qam', 'bench settings'], { cwd: dir });

  const code = await main(['iterate', '--max-iterations', '1', '-C', dir], { stdout: quiet, stderr: quiet, env: {}, cwd: dir, clock: systemClock });
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  const counts = Object.fromEntries(
    sql.all<{ purpose: string; n: number }>(`SELECT runs.purpose AS purpose, COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id GROUP BY runs.purpose`).map((r) => [r.purpose, Number(r.n)]),
  );
  const flipped = Number(sql.get<{ n: number }>(`SELECT COUNT(DISTINCT case_id) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'confirm'`)?.n ?? 0);
  sql.close();
  const cases = counts.baseline ?? 0;
  const actual = (counts.baseline ?? 0) + (counts.candidate ?? 0) + (counts.confirm ?? 0);
  const bound = 2 * cases + 3 * flipped;
  const confirmAll = 2 * cases + 3 * cases;
  console.log(
    `temperature ${temperature}: exit ${code}; ${cases} cases; ${flipped} flipped; agent runs ${actual} ` +
      `(baseline ${counts.baseline}, candidate ${counts.candidate}, confirmation ${counts.confirm ?? 0}); ` +
      `bound 2N + 3F = ${bound}; confirming every case would take ${confirmAll}: ratio ${(actual / confirmAll).toFixed(3)}`,
  );
}
