import { describe, expect, it } from 'vitest';
import { createOutput } from '../../src/cli/render.ts';
import { createReporter } from '../../src/adapters/terminal/progress.ts';
import { makeRedactor } from '../../src/domain/environment.ts';

function capture(): NodeJS.WriteStream & { text: string } {
  const sink = { text: '', write(chunk: string) { sink.text += chunk; return true; } };
  return sink as unknown as NodeJS.WriteStream & { text: string };
}

const redact = makeRedactor(['sk-ant-secret-value']);

describe('progress rendering', () => {
  const events = [
    { type: 'run.started', runId: 'r1', label: 'v1', total: 2 },
    { type: 'case.finished', runId: 'r1', caseId: 'a', trial: 0, status: 'ok', pass: true },
    { type: 'case.finished', runId: 'r1', caseId: 'b', trial: 0, status: 'ok', pass: false },
    { type: 'run.finished', runId: 'r1', label: 'v1', passRate: 0.5, reused: false, counts: { caseTrials: 2, graded: 2, passed: 1, infraErrors: 0 } },
    { type: 'warning', message: 'key sk-ant-secret-value leaked?' },
  ] as const;

  it('prints plain lines without a terminal (CI logs)', () => {
    const err = capture();
    const reporter = createReporter(err, redact, { tty: false });
    for (const event of events) reporter.emit(event);
    expect(err.text).toBe('  v1: running 2 case-trials (r1)\n  v1: pass rate 50.0%\nwarning: key [redacted] leaked?\n');
  });

  it('prints a line at least every heartbeat while a run goes on without a terminal, and stops after it', async () => {
    const err = capture();
    const reporter = createReporter(err, redact, { tty: false, heartbeatMs: 60 });
    reporter.emit(events[0]);
    reporter.emit(events[1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(err.text).toMatch(/ {2}v1: 1\/2 case-trials done, 1 passing\n/);
    reporter.emit(events[2]);
    reporter.emit(events[3]);
    const after = err.text;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(err.text).toBe(after);
  });

  it('draws a progress bar on a terminal and clears it before the next line', () => {
    const err = capture();
    const reporter = createReporter(err, redact, { tty: true });
    for (const event of events) reporter.emit(event);
    expect(err.text).toContain('\r\u001b[2K  v1 [############............] 1/2 passing 1');
    expect(err.text).toContain('2/2 passing 1');
    expect(err.text).toMatch(/\r\u001b\[2K  v1: pass rate 50\.0%\n/);
  });

  it('redraws the bar at most every 100 ms, and always at the last case-trial', () => {
    const err = capture();
    // The clock stands still: 1,000 case-trials finish within one redraw interval.
    const reporter = createReporter(err, redact, { tty: true, clock: { now: () => new Date('2026-01-01T00:00:00Z') } });
    reporter.emit({ type: 'run.started', runId: 'r3', label: 'v3', total: 1000 });
    for (let i = 0; i < 1000; i += 1) reporter.emit({ type: 'case.finished', runId: 'r3', caseId: `c${i}`, trial: 0, status: 'ok', pass: true });
    const draws = err.text.split('\r\u001b[2K  v3 [').length - 1;
    expect(draws).toBe(2);
    expect(err.text).toContain('1/1000 passing 1');
    expect(err.text).toContain('1000/1000 passing 1000');
  });

  it('shows infrastructure errors whenever there are any: on the bar, and beside the pass rate', () => {
    const outage = [
      { type: 'run.started', runId: 'r2', label: 'v2', total: 3 },
      { type: 'case.finished', runId: 'r2', caseId: 'a', trial: 0, status: 'ok', pass: true },
      { type: 'case.finished', runId: 'r2', caseId: 'b', trial: 0, status: 'infra_error', pass: null },
      { type: 'case.finished', runId: 'r2', caseId: 'c', trial: 0, status: 'infra_error', pass: null },
      { type: 'run.finished', runId: 'r2', label: 'v2', passRate: 1, reused: false, counts: { caseTrials: 3, graded: 1, passed: 1, infraErrors: 2 } },
    ] as const;
    for (const tty of [false, true]) {
      const err = capture();
      const reporter = createReporter(err, redact, { tty });
      for (const event of outage) reporter.emit(event);
      expect(err.text).toContain('  v2: pass rate 100.0% of 1 graded case-trials; 2 infrastructure errors not graded\n');
      if (tty) expect(err.text).toContain('3/3 passing 1, 2 infrastructure errors');
    }
  });

  it('keeps stdout for results, and JSON mode for JSON only', () => {
    const out = capture();
    const json = createOutput(true, redact, out);
    json.line('human text');
    json.result({ key: 'sk-ant-secret-value' });
    expect(out.text).toBe('{"key":"[redacted]"}\n');
  });
});
