// Where the queue is, as `--queue URL` (or `queue` of the config) names it: redis://[user:password@]host[:port][/db]
// or rediss:// for TLS. Parsing it is pure; connecting is adapters/queue's (redis.ts, bullmq.ts).
import { AgentdevelError } from './errors.ts';
import { redactUrlPasswords } from './environment.ts';

/** Where the queue is: a Redis server, reached in the clear (redis://) or over TLS (rediss://). */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  readonly username: string | null;
  readonly password: string | null;
  readonly db: number;
  readonly tls: boolean;
  /** The URL as it may be shown: any password replaced by [redacted]. */
  readonly shown: string;
}

/**
 * Parses `--queue URL` (or `queue` of the config): redis://[user:password@]host[:port][/db]
 * or rediss:// for TLS. Bad input names the option it came from (exit 2), and never echoes
 * the password.
 */
export function parseQueueUrl(text: string, from: string): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // No cause: URL's TypeError carries the input, password and all, and this error is shown.
    throw new AgentdevelError('USAGE', `${from}: expected a URL such as redis://127.0.0.1:6379, got "${redactUrlPasswords(text)}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new AgentdevelError('USAGE', `${from}: expected a redis:// or rediss:// URL, got "${url.protocol}//…"`);
  }
  if (url.hostname === '') throw new AgentdevelError('USAGE', `${from}: the URL names no host`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbPath = url.pathname.replace(/^\//, '');
  const db = dbPath === '' ? 0 : Number(dbPath);
  if (!Number.isInteger(db) || db < 0) throw new AgentdevelError('USAGE', `${from}: expected a database number after the host, got "/${dbPath}"`);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  const username = url.username === '' ? null : decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    username,
    password,
    db,
    tls: url.protocol === 'rediss:',
    shown: redactUrlPasswords(text),
  };
}

/** The password of a queue URL, for the redactor (also when the URL is malformed: it is never echoed). */
export function queueSecrets(text: string | undefined): string[] {
  if (text === undefined) return [];
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:([^\s/@]+)@/i.exec(text);
  if (!match?.[1]) return [];
  let password = match[1];
  try {
    password = decodeURIComponent(password);
  } catch {
    // A password that is not valid percent-encoding is redacted as written.
  }
  return [...new Set([match[1], password])].filter((p) => p.length >= 4);
}
