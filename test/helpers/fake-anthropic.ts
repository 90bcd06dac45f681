// A fake Anthropic Messages API on 127.0.0.1 (port 0) for tests: scripted replies per request
// (JSON or server-sent events, as the request asks), every request body and header recorded,
// and faults on demand: 429 with retry-after, 529, connection resets, malformed bodies. With
// `limits`, it enforces a request rate as the real API does: a token bucket refilled at
// requestsPerMinute, rate-limit headers on every answer, 429 with a whole-second retry-after
// when the bucket is empty, and a latency before each accepted answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  readonly index: number;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly role: string | null;
  readonly raw: string;
  readonly body: Record<string, unknown>;
}

export interface FakeMessage {
  readonly content: ReadonlyArray<Record<string, unknown>>;
  readonly stop_reason: string;
  readonly usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
}

export type FakeReply =
  | { readonly kind: 'message'; readonly message: FakeMessage }
  | { readonly kind: 'error'; readonly status: number; readonly headers?: Record<string, string>; readonly type?: string }
  | { readonly kind: 'reset' }
  | { readonly kind: 'malformed' };

export type Responder = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeLimits {
  readonly requestsPerMinute: number;
  /** The bucket's size: requests accepted at once after a pause (default: one second's worth). */
  readonly burst?: number;
  /** Time to answer an accepted request. */
  readonly latencyMs?: number;
  /** False: no `anthropic-ratelimit-*` headers at all, only a 429 with retry-after (as some gateways answer). */
  readonly headers?: boolean;
}

export interface FakeAnthropic {
  readonly url: string;
  readonly requests: FakeRequest[];
  /**
   * Requests accepted and refused with 429 by `limits`, when the first and the last were
   * accepted, and when each request arrived and whether it was accepted (in arrival order).
   */
  readonly limited: { accepted: number; refused: number; firstAt: number | null; lastAt: number | null; arrivals: Array<{ at: number; accepted: boolean }> };
  respond: Responder;
  close(): Promise<void>;
}

let messageCounter = 0;

function fullMessage(request: FakeRequest, message: FakeMessage) {
  messageCounter += 1;
  return {
    id: `msg_fake_${messageCounter}`,
    type: 'message',
    role: 'assistant',
    model: String(request.body.model ?? 'claude-fake'),
    content: message.content,
    stop_reason: message.stop_reason,
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...message.usage },
  };
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The same message as a Messages API event stream. */
function asEventStream(message: ReturnType<typeof fullMessage>): string {
  let out = sse('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
      }
    } else {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    }
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  });
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

/** The token bucket of `limits`: take one request, or say how long until one fits. */
function requestBucket(limits: FakeLimits) {
  const perMs = limits.requestsPerMinute / 60_000;
  const size = limits.burst ?? Math.max(1, Math.ceil(limits.requestsPerMinute / 60));
  let level = size;
  let at = Date.now();
  return (): { accepted: boolean; headers: Record<string, string> } => {
    const now = Date.now();
    level = Math.min(size, level + perMs * (now - at));
    at = now;
    const accepted = level >= 1;
    if (accepted) level -= 1;
    const headers: Record<string, string> =
      limits.headers === false
        ? {}
        : {
            'anthropic-ratelimit-requests-limit': String(size),
            'anthropic-ratelimit-requests-remaining': String(Math.floor(level)),
            'anthropic-ratelimit-requests-reset': new Date(now + (size - level) / perMs).toISOString(),
          };
    if (!accepted) headers['retry-after'] = String(Math.ceil((1 - level) / perMs / 1000));
    return { accepted, headers };
  };
}

export async function startFakeAnthropic(respond: Responder, limits?: FakeLimits): Promise<FakeAnthropic> {
  const requests: FakeRequest[] = [];
  const fake = { respond } as { respond: Responder };
  const limited = { accepted: 0, refused: 0, firstAt: null as number | null, lastAt: null as number | null, arrivals: [] as Array<{ at: number; accepted: boolean }> };
  const take = limits ? requestBucket(limits) : null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          // Recorded as is.
        }
        const request: FakeRequest = { index: requests.length, path: req.url ?? '', headers, role: headers['x-agentdevel-role'] ?? null, raw, body };
        requests.push(request);
        let reply: FakeReply;
        let limitHeaders: Record<string, string> = {};
        const turn = take?.() ?? null;
        if (turn) limited.arrivals.push({ at: Date.now(), accepted: turn.accepted });
        if (turn && !turn.accepted) {
          limited.refused += 1;
          res.writeHead(429, { 'content-type': 'application/json', 'request-id': `req_fake_${request.index}`, ...turn.headers });
          res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'fake 429: over the request rate' } }));
          return;
        }
        if (turn) {
          limited.accepted += 1;
          limited.firstAt ??= Date.now();
          limited.lastAt = Date.now();
          limitHeaders = turn.headers;
          await new Promise((resolve) => setTimeout(resolve, limits?.latencyMs ?? 0));
        }
        try {
          reply = await fake.respond(request);
        } catch (error) {
          reply = { kind: 'error', status: 500, type: `responder failed: ${(error as Error).message}` };
        }
        switch (reply.kind) {
          case 'reset':
            req.socket.destroy();
            return;
          case 'malformed':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"id": "msg_broken", "content": [');
            return;
          case 'error':
            res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': `req_fake_${request.index}`, ...limitHeaders, ...reply.headers });
            res.end(JSON.stringify({ type: 'error', error: { type: reply.type ?? (reply.status === 529 ? 'overloaded_error' : 'rate_limit_error'), message: `fake ${reply.status}` } }));
            return;
          case 'message': {
            const message = fullMessage(request, reply.message);
            if (body.stream === true) {
              res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_fake_${request.index}`, ...limitHeaders });
              res.end(asEventStream(message));
            } else {
              res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${request.index}`, ...limitHeaders });
              res.end(JSON.stringify(message));
            }
            return;
          }
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    limited,
    get respond() {
      return fake.respond;
    },
    set respond(next: Responder) {
      fake.respond = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tool_use answer, as the adapter's forced tool calls expect. */
export function toolAnswer(name: string, input: unknown, usage = { input_tokens: 1200, output_tokens: 300 }): FakeReply {
  return { kind: 'message', message: { content: [{ type: 'tool_use', id: `toolu_fake_${name}`, name, input }], stop_reason: 'tool_use', usage } };
}
