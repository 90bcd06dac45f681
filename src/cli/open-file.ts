import { spawn } from 'node:child_process';
import { AgentdevelError } from '../domain/errors.ts';

/** Opens a file with the desktop's default program (open, start or xdg-open), not waiting for it to close. */
export function openFile(file: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  const [command, ...args] = platform === 'darwin' ? ['open', file] : platform === 'win32' ? ['cmd', '/c', 'start', '""', file] : ['xdg-open', file];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args, { detached: true, stdio: 'ignore' });
    // Started or not is known at once; the viewer itself may run for hours, so it is not waited for.
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
    child.once('error', (error) => {
      reject(new AgentdevelError('USAGE', `cannot open ${file}: ${command} failed (${error.message})`, { hint: `Open ${file} in a browser yourself.`, cause: error }));
    });
  });
}
