// A fake Anthropic Messages API on 127.0.0.1 (port 0) for tests: scripted replies per request
// (JSON or server-sent events, as the request asks), every request body and header recorded,
// and faults on demand: 429 with retry-after, 529, connection resets, malformed bodies.
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

export interface FakeAnthropic {
  readonly url: string;
  readonly requests: FakeRequest[];
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

export async function startFakeAnthropic(respond: Responder): Promise<FakeAnthropic> {
  const requests: FakeRequest[] = [];
  const fake = { respond } as { respond: Responder };
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
            res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': `req_fake_${request.index}`, ...reply.headers });
            res.end(JSON.stringify({ type: 'error', error: { type: reply.type ?? (reply.status === 529 ? 'overloaded_error' : 'rate_limit_error'), message: `fake ${reply.status}` } }));
            return;
          case 'message': {
            const message = fullMessage(request, reply.message);
            if (body.stream === true) {
              res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_fake_${request.index}` });
              res.end(asEventStream(message));
            } else {
              res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${request.index}` });
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
