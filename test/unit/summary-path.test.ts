// The pull request summary names the HTML report where its reader finds it: never the runner's
// absolute path (issue 34: "the summary embeds the runner's absolute path").
import { describe, expect, it } from 'vitest';
import { summaryPath } from '../../src/app/ci-outputs.ts';

describe('the report path a pull request summary shows', () => {
  it('is relative to the current folder, else to the workspace, else the report folder and file alone', () => {
    expect(summaryPath(['/home/runner/work/repo', '/home/runner/work/repo'], '/home/runner/work/repo/agentdevel-report/x-1a2b/report.html')).toBe('agentdevel-report/x-1a2b/report.html');
    expect(summaryPath(['/tmp/elsewhere', '/home/runner/ws'], '/home/runner/ws/.agentdevel/reports/x-1a2b/report.html')).toBe('.agentdevel/reports/x-1a2b/report.html');
    expect(summaryPath(['/tmp/a', '/tmp/b'], '/var/reports/x-1a2b/report.html')).toBe('x-1a2b/report.html');
  });
});
