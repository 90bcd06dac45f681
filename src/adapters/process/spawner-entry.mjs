// The spawner: a small, long-lived helper that starts `command` agents for agentdevel and
// streams their output back over IPC. Starting a process copies the page tables of the process
// that starts it: from agentdevel's large main process that costs several milliseconds of its
// one thread per case, from this small one a fraction, and here it runs beside the main
// thread instead of blocking it. The kill rules are runner.ts's, applied here to each child:
// - each child leads its own process group (its own session), so a signal it sends to "its
//   group" never reaches agentdevel, and stopping it stops everything it started;
// - the time limit kills the whole group; once the child itself has exited its leftovers are
//   killed and its output streams are closed after a short grace;
// - when agentdevel goes away (the IPC channel closes), every child still running is killed.
// Plain JavaScript with no imports beyond Node, so it starts in a few milliseconds.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';

/** How long a child's output may stay open after the child itself has exited (runner.ts). */
const OUTPUT_GRACE_MS = 1000;

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

function send(message) {
  if (process.connected) process.send(message);
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
    send({ id, type: 'exit', exitCode: null, signal: null, timedOut: false, stderr: '', spawnError: startError(error, cwd) });
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
    send({ id, type: 'exit', timedOut, stderr, ...message });
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
    if (complete.length > 0) send({ id, type: 'lines', lines: complete });
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
    if (rest.length > 0) send({ id, type: 'lines', lines: rest });
    finish({ exitCode: code, signal, spawnError: null });
  });
}

process.on('message', (message) => {
  if (message && message.op === 'run') run(message);
});
// The spawner serves agentdevel only: when the channel closes (agentdevel stopped or died), the
// children it started go with it.
process.on('disconnect', () => {
  for (const group of running.values()) killGroup(group);
  process.exit(0);
});
send({ type: 'ready' });
