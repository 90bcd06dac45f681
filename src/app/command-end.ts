// How a command ends, where that needs the adapters: the helper processes they started are
// ended, and a failure is named by its catalogue code. The CLI and the library (src/api.ts) both
// ask `catalogueErrorOf`, so a program calling `gate()` gets the code and hint the CLI prints.
//
// Failures of the machine rather than of agentdevel, turned into catalogue errors at the edge:
// a full disk, a read-only or missing folder, a file where a folder should be, a damaged store.
// They get one line and a fix; they are not bugs, so they never print a stack. Here, in app/,
// because telling them apart needs the adapters that raise them (the SQLite driver's errors).
import { AgentdevelError, isAgentdevelError } from '../domain/errors.ts';
import { BudgetReached } from '../domain/budget.ts';
import { InfraError, invalidOutputHint, StructuredOutputError } from '../domain/ports/model.ts';
import { stopBundler } from '../adapters/blueprint/bundle.ts';

/** What each file-system error means for the user (Node's system errors, by errno code). */
const FILE_SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an input/output error of the device',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on this system',
  ENOTDIR: 'a file stands where a folder should be',
  EISDIR: 'a folder stands where a file should be',
  ENAMETOOLONG: 'the file name is too long',
};

/** System calls of the file system (an EPERM from `kill` is not the disk's doing). */
const FILE_SYSTEM_CALLS = new Set(['open', 'write', 'read', 'close', 'fsync', 'mkdir', 'mkdtemp', 'rename', 'link', 'symlink', 'unlink', 'rmdir', 'rm', 'scandir', 'opendir', 'stat', 'lstat', 'fstat', 'readlink', 'realpath', 'access', 'copyfile', 'chmod', 'utime', 'ftruncate']);

const SQLITE_FILE_SYSTEM = new Set(['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM']);

/** The catalogue error a failure of the machine stands for, or null when it is something else (a bug). */
export async function machineFailure(error: unknown): Promise<AgentdevelError | null> {
  // Imported here, on the way out, so that a command that never opened the store (`--help`)
  // never loads the SQLite driver.
  const { sqliteFailure } = await import('../adapters/store/sqlite.ts');
  const sqlite = sqliteFailure(error);
  if (sqlite) {
    const family = sqlite.code.replace(/^(SQLITE_[A-Z]+).*$/, '$1');
    if (SQLITE_FILE_SYSTEM.has(family)) return new AgentdevelError('FILE_SYSTEM', `the store (.agentdevel/state.db) cannot be written: ${sqlite.message} (${sqlite.code})`, { cause: error });
    if (family === 'SQLITE_CORRUPT' || family === 'SQLITE_NOTADB') return new AgentdevelError('STORE_DAMAGED', `the store (.agentdevel/state.db) is damaged: ${sqlite.message} (${sqlite.code})`, { cause: error });
    return null;
  }
  const system = error as NodeJS.ErrnoException & { dest?: string };
  if (!(error instanceof Error) || typeof system.code !== 'string' || !FILE_SYSTEM_CALLS.has(system.syscall ?? '')) return null;
  const meaning = FILE_SYSTEM_ERRORS[system.code];
  if (meaning === undefined && !(system.code === 'EEXIST' && system.syscall === 'mkdir')) return null;
  const what = meaning ?? 'a file stands where a folder should be';
  // A write names no file (the file descriptor was opened earlier); the others do.
  const where = system.path ? ` ${system.path}${system.dest ? ` -> ${system.dest}` : ''}` : '';
  return new AgentdevelError('FILE_SYSTEM', `${system.syscall}${where}: ${what} (${system.code})`, { cause: error });
}

/**
 * The catalogue error a thrown error stands for: itself when it is one, the failure of a model
 * role, of the budget or of the machine named with its code; null for anything else (a bug).
 */
export async function catalogueErrorOf(error: unknown): Promise<AgentdevelError | null> {
  if (isAgentdevelError(error)) return error;
  if (error instanceof BudgetReached) {
    // The budget stopped the work before a request: nothing was decided, and nothing is a regression.
    return new AgentdevelError('BUDGET_REACHED', `undecided: ${error.message}; work stopped before the ${error.role}'s next request, and nothing was decided`, { cause: error });
  }
  // The API answered, wrongly: not an outage.
  if (error instanceof StructuredOutputError) return new AgentdevelError('MODEL_OUTPUT_INVALID', `the ${error.role}: ${error.message}`, { cause: error, hint: invalidOutputHint(error) });
  // An outage of a role outside a run (reviewer, diagnostician, synthesizer): an infrastructure failure.
  if (error instanceof InfraError) return new AgentdevelError('MODEL_UNAVAILABLE', `the ${error.role}: ${error.message}`, { cause: error });
  return await machineFailure(error);
}

/** Ends the helper processes the adapters started (esbuild's service), so a finished command leaves nothing running behind it. */
export async function stopHelperProcesses(): Promise<void> {
  await stopBundler();
}
