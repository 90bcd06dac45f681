// The Reporter port (domain/ports/reporter.ts) on a stream: progress for a person, on a terminal
// or in a log. The CLI's commands and the library's calls show progress through it (app/compose
// wires it to their stderr, or to the library's \`progress\` stream).
import type { ProgressEvent, Reporter } from '../../domain/ports/reporter.ts';
import type { Redactor } from '../../domain/environment.ts';
import { systemClock, type Clock } from '../../domain/ports/clock.ts';
import { terminalText } from '../../domain/terminal-text.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const infraText = (n: number): string => `${n} infrastructure error${n === 1 ? '' : 's'}`;

/**
 * Progress on stderr: a live bar on a terminal, plain lines otherwise (CI logs, pipes). Stages
 * only emit events; this is the one place that decides how they look.
 */
/** Least time between two redraws of the progress bar. */
const BAR_MS = 100;

export function createReporter(stderr: NodeJS.WriteStream, redact: Redactor, options: { tty: boolean; heartbeatMs?: number; clock?: Clock }): Reporter {
  const clock = options.clock ?? systemClock;
  const runs = new Map<string, { label: string; total: number; done: number; passed: number; infra: number }>();
  let lastWrite = clock.now().getTime();
  const write = (text: string) => {
    lastWrite = clock.now().getTime();
    stderr.write(redact(text));
  };
  // Without a terminal there is no bar: a line at least every heartbeatMs while a run is under
  // way tells a CI log (or a person reading a pipe) that work goes on.
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  let heartbeat: NodeJS.Timeout | null = null;
  const beat = () => {
    if (clock.now().getTime() - lastWrite < heartbeatMs) return;
    for (const run of runs.values()) write(`  ${run.label}: ${run.done}/${run.total} case-trials done, ${run.passed} passing${run.infra > 0 ? `, ${infraText(run.infra)}` : ''}\n`);
  };
  const watch = () => {
    if (options.tty) return;
    if (runs.size > 0 && heartbeat === null) {
      heartbeat = setInterval(beat, Math.max(10, Math.floor(heartbeatMs / 4)));
      heartbeat.unref();
    } else if (runs.size === 0 && heartbeat !== null) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
  };
  let barShown = false;
  /** When the bar was last drawn: a terminal gets a redraw every BAR_MS, not one per case-trial (100,000 writes). */
  let barAt = Number.NEGATIVE_INFINITY;
  const clearBar = () => {
    if (barShown) write('\r\u001b[2K');
    barShown = false;
  };
  return {
    emit(event: ProgressEvent) {
      switch (event.type) {
        case 'stage':
          clearBar();
          write(`${terminalText(event.message)}\n`);
          return;
        case 'warning':
          clearBar();
          write(`warning: ${terminalText(event.message)}\n`);
          return;
        case 'run.started':
          runs.set(event.runId, { label: event.label, total: event.total, done: 0, passed: 0, infra: 0 });
          if (!options.tty) write(`  ${event.label}: running ${event.total} case-trials (${event.runId})\n`);
          watch();
          return;
        case 'case.finished': {
          const run = runs.get(event.runId);
          if (!run) return;
          run.done += 1;
          if (event.pass) run.passed += 1;
          if (event.status === 'infra_error') run.infra += 1;
          if (options.tty) {
            const now = clock.now().getTime();
            if (now - barAt < BAR_MS && run.done < run.total) return;
            barAt = now;
            const width = 24;
            const filled = Math.round((run.done / Math.max(1, run.total)) * width);
            const infra = run.infra > 0 ? `, ${infraText(run.infra)}` : '';
            write(`\r\u001b[2K  ${run.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${run.done}/${run.total} passing ${run.passed}${infra}`);
            barShown = true;
          }
          return;
        }
        case 'run.finished': {
          clearBar();
          runs.delete(event.runId);
          watch();
          // A pass rate over fewer case-trials than ran says so: infrastructure errors are never hidden.
          const { infraErrors, graded } = event.counts;
          const infra = infraErrors > 0 ? ` of ${graded} graded case-trials; ${infraText(infraErrors)} not graded` : '';
          write(`  ${event.label}: pass rate ${pct(event.passRate)}${infra}${event.reused ? (event.reusedFrom === 'git' ? ' (records reused from git: recorded with an earlier decision under the same blueprint, task, cases, models and trials)' : ' (records reused: this version already ran)') : ''}\n`);
          return;
        }
        default: {
          const exhaustive: never = event;
          return exhaustive;
        }
      }
    },
  };
}
