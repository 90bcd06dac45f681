// The spawner: a small, long-lived helper that starts `command` agents for agentdevel and
// streams their output back. Starting a process copies the page tables of the process that
// starts it: from agentdevel's large main process that costs several milliseconds of its one
// thread per case, from this small one a fraction, and here it runs beside the main thread
// instead of blocking it. The kill rules are runner.ts's, applied here to each child:
// - each child leads its own process group (its own session), so a signal it sends to "its
//   group" never reaches agentdevel, and stopping it stops everything it started;
// - the time limit kills the whole group; once the child itself has exited its leftovers are
//   killed and its output streams are closed after a short grace;
// - when agentdevel goes away (this process's stdin ends), every child still running is killed.
// The channel is newline-delimited JSON over stdin (requests) and stdout (answers), written at
// most once per turn of the event loop in each direction: every message of a turn in one write.
// A child's output lines are held up to LINES_HOLD_MS, so a short agent's lines and its exit
// travel as one message (spawner.ts reads the lines of an exit before the exit).
// Plain JavaScript with no imports beyond Node, so it starts in a few milliseconds.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';

/** How long a child's output may stay open after the child itself has exited (runner.ts). */
const OUTPUT_GRACE_MS = 1000;
/** How long a child's output lines may wait to travel with more lines, or with its exit. */
const LINES_HOLD_MS = 20;

/** Children running now: id → process group. */
const running = new Map();

function killGroup(group) {
  try {
    process.kill(-group, 'SIGKILL');
  } catch (error) {
    // ESRCH: the group has no process left. EPERM: its last member is a zombie being reaped.
    if (error.code !== 'ESRCH' && error.code !== 'EPERM') throw error;
  }
}

/** Answers of this turn of the event loop, sent together. */
let outgoing = [];
function flush() {
  const text = outgoing.join('');
  outgoing = [];
  // stdout is a pipe: Node writes it synchronously on Linux, so nothing is left behind at exit.
  if (text) process.stdout.write(text);
}
function send(message) {
  if (outgoing.length === 0) setImmediate(flush);
  outgoing.push(`${JSON.stringify(message)}\n`);
}

/** Lines held per child id, sent when the hold ends or with the child's exit. */
const heldLines = new Map();
let holdTimer = null;
function sendHeldLines() {
  holdTimer = null;
  for (const [id, lines] of heldLines) send({ id, type: 'lines', lines });
  heldLines.clear();
}
function holdLines(id, lines) {
  heldLines.set(id, [...(heldLines.get(id) ?? []), ...lines]);
  holdTimer ??= setTimeout(sendHeldLines, LINES_HOLD_MS);
}
function takeHeldLines(id) {
  const lines = heldLines.get(id) ?? [];
  heldLines.delete(id);
  return lines;
}

function startError(error, cwd) {
  if (error.code === 'ENOENT' && cwd) {
    try {
      statSync(cwd);
    } catch {
      return `the working folder ${cwd} does not exist`;
    }
  }
  return error.message;
}

/** Splits text into lines as execa does: "\n" or "\r\n" ends a line; the rest waits for more. */
function lineSplitter() {
  let partial = '';
  return {
    push(chunk) {
      const text = partial + chunk;
      const parts = text.split('\n');
      partial = parts.pop();
      return parts.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    },
    end() {
      const rest = partial;
      partial = '';
      return rest.length > 0 ? [rest] : [];
    },
  };
}

function run({ id, command, args, cwd, env, input, timeoutMs, maxStderrBytes }) {
  let child;
  try {
    child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    send({ id, type: 'exit', lines: [], exitCode: null, signal: null, timedOut: false, stderr: '', spawnError: startError(error, cwd) });
    return;
  }
  let settled = false;
  let timedOut = false;
  let stderr = '';
  let timer = null;
  let grace = null;
  const finish = (message) => {
    if (settled) return;
    settled = true;
    running.delete(id);
    clearTimeout(timer);
    clearTimeout(grace);
    send({ id, type: 'exit', lines: takeHeldLines(id), timedOut, stderr, ...message });
  };
  child.on('error', (error) => {
    // No process was started (a missing executable, a missing folder).
    if (child.pid === undefined) finish({ exitCode: null, signal: null, spawnError: startError(error, cwd) });
  });
  if (child.pid === undefined) return;
  const group = child.pid;
  running.set(id, group);
  send({ id, type: 'started', pid: group });
  if (timeoutMs !== undefined && timeoutMs !== null) {
    timer = setTimeout(() => {
      timedOut = true;
      killGroup(group);
    }, timeoutMs);
  }

  // A child that exits without reading its input is not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');

  const lines = lineSplitter();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const complete = lines.push(chunk);
    if (complete.length > 0) holdLines(id, complete);
  });
  // A stream cut at the grace bound ends in an error; the exit says how the process ended.
  child.stdout.on('error', () => undefined);
  child.stderr.on('error', () => undefined);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > maxStderrBytes) {
      // As execa's maxBuffer: keep the start, stop reading (the child then fails writing to it).
      stderr = stderr.slice(0, maxStderrBytes);
      child.stderr.destroy();
    }
  });

  child.on('exit', () => {
    clearTimeout(timer);
    // Whatever the child started dies with it: a case's process tree ends with the case.
    killGroup(group);
    grace = setTimeout(() => {
      // A process that left the group (setsid) may still hold the pipes: stop reading them.
      child.stdout.destroy();
      child.stderr.destroy();
    }, OUTPUT_GRACE_MS);
  });
  child.on('close', (code, signal) => {
    const rest = lines.end();
    if (rest.length > 0) holdLines(id, rest);
    finish({ exitCode: code, signal, spawnError: null });
  });
}

/** Reads newline-delimited requests from stdin. */
let partialInput = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const parts = (partialInput + chunk).split('\n');
  partialInput = parts.pop();
  for (const part of parts) {
    if (part === '') continue;
    const message = JSON.parse(part);
    if (message && message.op === 'run') run(message);
  }
});
// The spawner serves agentdevel only: when its input ends (agentdevel closed it, stopped or
// died), the children it started go with it.
function stopAll() {
  for (const group of running.values()) killGroup(group);
  process.exit(0);
}
process.stdin.on('end', () => {
  flush();
  stopAll();
});
// agentdevel no longer reads the answers (it died): the same.
process.stdout.on('error', stopAll);
send({ type: 'ready' });
