// A fake OpenAI-compatible Chat Completions server on 127.0.0.1 (port 0) for tests. It answers
// with the same scripted brains as the fake Messages API (fake-brain.ts): each request is read
// as the Messages request it stands for (system text, blocks, tools with input_schema), the
// brain answers it, and the answer goes back as a chat completion, plain or streamed (SSE
// chunks, tool arguments split across deltas, usage in the last chunk). Faults on demand: 429
// with retry-after, 500, a connection reset, a malformed body, tool arguments that are not
// JSON (`garble`), and a refused key (any key but `key` is answered 401).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeMessage, FakeReply, FakeRequest, Responder } from './fake-anthropic.ts';

export interface FakeOpenAI {
  readonly url: string;
  /** Every request as it came (`chat`: the Chat Completions body) and as the brain read it (`body`). */
  readonly requests: Array<FakeRequest & { readonly chat: Record<string, unknown> }>;
  respond: Responder;
  /** Roles whose tool-call arguments are sent broken (not JSON). */
  garble: Set<string>;
  close(): Promise<void>;
}

type ChatMessage = { role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string };

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => String((p as { text?: string }).text ?? '')).join('\n') : '';

/** Arguments sent back as the model gave them (broken ones included, as a repair turn sends them). */
function parsedOrRaw(text: string): unknown {
  try {
    return JSON.parse(text || '{}') as unknown;
  } catch {
    return { unparsed: text };
  }
}

/** The Messages request a chat request stands for, so the brains of fake-brain.ts can answer it. */
export function asMessagesBody(chat: Record<string, unknown>): Record<string, unknown> {
  const all = (chat.messages as ChatMessage[] | undefined) ?? [];
  const system = all.filter((m) => m.role === 'system').map((m) => text(m.content)).join('\n');
  const messages: Array<{ role: string; content: Array<Record<string, unknown>> }> = [];
  const push = (role: string, block: Record<string, unknown>) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const m of all) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      if (text(m.content)) push('assistant', { type: 'text', text: text(m.content) });
      for (const call of m.tool_calls ?? []) push('assistant', { type: 'tool_use', id: call.id, name: call.function.name, input: parsedOrRaw(call.function.arguments) });
    } else if (m.role === 'tool') {
      const content = text(m.content);
      const isError = content.startsWith('Error: ');
      push('user', { type: 'tool_result', tool_use_id: m.tool_call_id, content: isError ? content.slice('Error: '.length) : content, is_error: isError });
    } else push('user', { type: 'text', text: text(m.content) });
  }
  const tools = ((chat.tools as Array<{ function: { name: string; description?: string; parameters?: unknown } }> | undefined) ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    input_schema: t.function.parameters ?? {},
  }));
  return { model: chat.model, max_tokens: chat.max_completion_tokens ?? chat.max_tokens, system, messages, ...(tools.length > 0 ? { tools } : {}) };
}

let completions = 0;

function completionOf(chat: Record<string, unknown>, message: FakeMessage, garbled: boolean) {
  completions += 1;
  const content = message.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n');
  const calls = message.content
    .filter((b) => b.type === 'tool_use')
    .map((b, i) => ({ id: String(b.id ?? `call_${completions}_${i}`), type: 'function', function: { name: String(b.name), arguments: garbled ? '{"pass": tru' : JSON.stringify(b.input) } }));
  const cached = message.usage.cache_read_input_tokens ?? 0;
  return {
    id: `chatcmpl_fake_${completions}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: String(chat.model ?? 'gpt-fake'),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: content || null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        finish_reason: calls.length > 0 ? 'tool_calls' : message.stop_reason === 'max_tokens' ? 'length' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: message.usage.input_tokens + cached, completion_tokens: message.usage.output_tokens, total_tokens: message.usage.input_tokens + cached + message.usage.output_tokens, prompt_tokens_details: { cached_tokens: cached } },
  };
}

/** The same completion as Chat Completions server-sent events. */
function asChunks(completion: ReturnType<typeof completionOf>): string {
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
  const choice = completion.choices[0] as (typeof completion.choices)[number];
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  let out = data({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  if (choice.message.content) out += data({ ...base, choices: [{ index: 0, delta: { content: choice.message.content }, finish_reason: null }] });
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    const cut = Math.floor(call.function.arguments.length / 2);
    out += data({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments.slice(0, cut) } }] }, finish_reason: null }] });
    out += data({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.function.arguments.slice(cut) } }] }, finish_reason: null }] });
  });
  out += data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  out += data({ ...base, choices: [], usage: completion.usage });
  return `${out}data: [DONE]\n\n`;
}

export async function startFakeOpenAI(respond: Responder, key: string): Promise<FakeOpenAI> {
  const requests: FakeOpenAI['requests'] = [];
  const fake = { respond, garble: new Set<string>() };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        let chat: Record<string, unknown> = {};
        try {
          chat = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          // Recorded as is.
        }
        const request = { index: requests.length, path: req.url ?? '', headers, role: headers['x-agentdevel-role'] ?? null, raw, body: asMessagesBody(chat), chat };
        requests.push(request);
        const fail = (status: number, message: string, type: string, extra: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${request.index}`, ...extra });
          res.end(JSON.stringify({ error: { message, type, code: null } }));
        };
        if (headers.authorization !== `Bearer ${key}`) return fail(401, 'Incorrect API key provided.', 'invalid_request_error');
        if (!request.path.endsWith('/chat/completions')) return fail(404, `no route ${request.path}`, 'not_found');
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
            res.end('{"id": "chatcmpl_broken", "choices": [');
            return;
          case 'error':
            return fail(reply.status, `fake ${reply.status}`, reply.type ?? (reply.status === 429 ? 'rate_limit_exceeded' : 'server_error'), reply.headers);
          case 'message': {
            const completion = completionOf(chat, reply.message, request.role !== null && fake.garble.has(request.role));
            if (chat.stream === true) {
              res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_fake_${request.index}` });
              res.end(asChunks(completion));
            } else {
              res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake_${request.index}` });
              res.end(JSON.stringify(completion));
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
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get respond() {
      return fake.respond;
    },
    set respond(next: Responder) {
      fake.respond = next;
    },
    get garble() {
      return fake.garble;
    },
    set garble(next: Set<string>) {
      fake.garble = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
