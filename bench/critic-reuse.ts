// Prints how many critic calls judge once spares on the bundled demo: the traces judged (records
// with a critic verdict), the calls made, and how many of those were on a trace the critic had
// already judged. Run: npx tsx bench/critic-reuse.ts [iterations]
// It builds the bundled example (mock engine: a simulation, offline) and runs `iterate` over the
// given iterations (default 7) in one command, as `agentdevel demo` does, then reads the store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.ts';
import { systemClock } from '../src/domain/ports/clock.ts';
import { scaffoldExample } from '../src/app/example.ts';
import { openSql } from '../src/adapters/store/sqlite.ts';

const iterations = Number(process.argv[2] ?? 7);
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;
const dir = path.join(mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-')), 'ws');
await scaffoldExample(dir);
const started = Date.now();
const code = await main(['iterate', '--max-iterations', String(iterations), '-C', dir], { stdout: quiet, stderr: quiet, env: {}, cwd: dir, clock: systemClock });
const seconds = (Date.now() - started) / 1000;

const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
const count = (query: string) => Number(sql.get<{ n: number }>(query)?.n ?? 0);
const judged = count(`SELECT COUNT(*) AS n FROM records WHERE critic IS NOT NULL`);
const reused = count(`SELECT COALESCE(SUM(count), 0) AS n FROM spared_calls WHERE role = 'critic' AND reason = 'reused'`);
const made = judged - reused;
// Distinct traces as the critic sees them (the judge-once key), where the store knows it.
const hasKey = sql.all<{ name: string }>(`PRAGMA table_info(records)`).some((c) => c.name === 'verdict_key');
const distinct = hasKey ? count(`SELECT COUNT(DISTINCT verdict_key) AS n FROM records WHERE verdict_key IS NOT NULL`) : null;
const ran = count(`SELECT COUNT(DISTINCT iteration) AS n FROM decisions WHERE iteration IS NOT NULL`);
sql.close();
console.log(`demo, mock engine, iterate --max-iterations ${iterations} (exit ${code}, ${ran} iterations decided, ${seconds.toFixed(0)} s)`);
console.log(`traces judged (records with a critic verdict): ${judged}`);
console.log(`critic calls made: ${made}; verdicts reused: ${reused}`);
if (distinct !== null) console.log(`distinct traces judged: ${distinct}; calls on a trace already judged: ${made - distinct} (${((100 * (made - distinct)) / Math.max(1, made)).toFixed(0)}% of calls made)`);
