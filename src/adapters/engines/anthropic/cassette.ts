// Record and replay of model calls, on the wire: a fetch that sits under the SDK. Each request
// is keyed by a hash of its method, path and body; its responses (in order, errors included)
// are stored as one JSON file per key. Replaying serves them without any network, so any
// iteration can be run again from its cassette to audit the decision.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AgentdevelError } from '../../../domain/errors.ts';
import { parseJsonDocument } from '../../../domain/json-document.ts';
import { roleFactsSchema, type RoleFacts } from '../../../domain/role-facts.ts';

interface RecordedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface CassetteEntry {
  readonly request: { readonly method: string; readonly path: string; readonly role: string | null; readonly body: unknown };
  readonly responses: RecordedResponse[];
}

/** Beside the responses: the role facts of the recording (see writeCassetteFacts). */
const FACTS_FILE = 'facts.json';

export const REPLAY_MISS_HEADER = 'x-agentdevel-replay-miss';

/** The REPLAY_MISS error a replayed response stands for, if it stands for one. */
export function replayMiss(headers: Headers | undefined): AgentdevelError | null {
  const message = headers?.get(REPLAY_MISS_HEADER);
  return message ? new AgentdevelError('REPLAY_MISS', decodeURIComponent(message)) : null;
}

const KEPT_HEADERS = ['content-type', 'request-id', 'retry-after', 'retry-after-ms', 'x-should-retry'];

type FetchInput = Parameters<typeof fetch>[0];
type FetchInit = Parameters<typeof fetch>[1];

function describe(input: FetchInput, init: FetchInit): { method: string; path: string; body: string; role: string | null } {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  return {
    method: (init?.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    body: typeof init?.body === 'string' ? init.body : '',
    role: headers.get('x-agentdevel-role'),
  };
}

export function requestKey(method: string, pathname: string, body: string): string {
  return createHash('sha256').update(`${method} ${pathname}\n${body}`).digest('hex').slice(0, 32);
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** A fetch that passes every call through to `inner` and writes what it saw into `dir`. */
export function recordingFetch(dir: string, inner: typeof fetch = fetch): typeof fetch {
  mkdirSync(dir, { recursive: true });
  const entries = new Map<string, CassetteEntry>();
  return async (input, init) => {
    const request = describe(input, init);
    const response = await inner(input, init);
    const body = await response.text();
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const key = requestKey(request.method, request.path, request.body);
    const entry = entries.get(key) ?? { request: { method: request.method, path: request.path, role: request.role, body: parseBody(request.body) }, responses: [] };
    entry.responses.push({ status: response.status, headers, body });
    entries.set(key, entry);
    writeFileSync(path.join(dir, `${key}.json`), `${JSON.stringify(entry, null, 1)}\n`);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A fetch that answers only from a cassette and fails clearly on a request it has not seen. */
export function replayingFetch(dir: string): typeof fetch {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== FACTS_FILE);
  } catch (cause) {
    throw new AgentdevelError('USAGE', `--replay: cannot read the cassette folder ${dir}`, { cause });
  }
  const entries = new Map<string, CassetteEntry>();
  for (const file of files) entries.set(file.slice(0, -'.json'.length), JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CassetteEntry);
  const served = new Map<string, number>();
  return async (input, init) => {
    const request = describe(input, init);
    const key = requestKey(request.method, request.path, request.body);
    const entry = entries.get(key);
    const index = served.get(key) ?? 0;
    const recorded = entry?.responses[index];
    if (!recorded) {
      // Answered as an HTTP error the SDK does not retry; the client turns it into REPLAY_MISS.
      const message = `--replay: the cassette in ${dir} has no ${entry ? `response number ${index + 1}` : 'response'} for this ${request.role ?? 'model'} request (key ${key})`;
      return new Response(JSON.stringify({ type: 'error', error: { type: 'replay_miss', message } }), {
        status: 400,
        headers: { 'content-type': 'application/json', 'x-should-retry': 'false', [REPLAY_MISS_HEADER]: encodeURIComponent(message) },
      });
    }
    served.set(key, index + 1);
    return new Response(recorded.body, { status: recorded.status, headers: recorded.headers });
  };
}

/**
 * The date and runtime the roles were told when the cassette was recorded. Replaying tells
 * them the same, so the requests (and their keys) match on another day and another Node.
 */
export function writeCassetteFacts(dir: string, facts: RoleFacts): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, FACTS_FILE), `${JSON.stringify(facts, null, 1)}\n`);
}

/** The recorded facts, or null for a cassette recorded before agentdevel kept them. */
export function readCassetteFacts(dir: string): RoleFacts | null {
  const file = path.join(dir, FACTS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AgentdevelError('USAGE', `--replay: cannot read ${file}`, { cause: error });
  }
  return parseJsonDocument(text, file, roleFactsSchema, 'USAGE');
}
