/**
 * Local HTTP servers that replay the documented wire formats of the hosted
 * model APIs (OpenAI Responses, Anthropic Messages, OpenAI-style Chat
 * Completions as served by Groq and compatible servers). They are emulations:
 * each test scripts the replies, and every request is recorded for inspection.
 * The reply bodies are recorded ones (see `providerFixtures.ts`): a test fills
 * in only the answer text, model id, token counts or error message it needs.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fill, recorded, type RecordedName } from './providerFixtures';

/** A request the emulator received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (or the raw text when it is not JSON). */
  body: Record<string, unknown>;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/** A scripted reply. */
export type Reply =
  | { status?: number; headers?: Record<string, string>; json?: unknown; raw?: string }
  | { hang: true }
  | { destroy: true };

/** Computes a reply for a request. */
export type Responder = (request: RecordedRequest) => Reply;

/** A running emulator. */
export interface Emulator {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  /** Queues replies for the next requests, in order; after the queue, `fallback` answers. */
  enqueue(...replies: Array<Reply | Responder>): void;
  fallback: Reply | Responder;
  close(): Promise<void>;
}

/** Starts an emulator on 127.0.0.1 with a free port. */
export async function startEmulator(fallback: Reply | Responder): Promise<Emulator> {
  const queue: Array<Reply | Responder> = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const emulator: Partial<Emulator> = { requests, fallback };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { raw: text };
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: performance.now() };
      requests.push(recorded);
      const next = queue.shift() ?? emulator.fallback!;
      const reply = typeof next === 'function' ? next(recorded) : next;
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      if ('destroy' in reply) {
        req.socket.destroy();
        return;
      }
      const payload = reply.raw ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  emulator.origin = `http://127.0.0.1:${port}`;
  emulator.enqueue = (...replies) => queue.push(...replies);
  emulator.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return emulator as Emulator;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Token counts of a scripted answer. */
export interface Usage {
  input: number;
  output: number;
}

/** The slots of a success body: the answer text, the model id and, when given, the token counts. */
function answerSlots(text: string, model: string | undefined, usage: Usage | undefined, withTotal: boolean) {
  return {
    text,
    ...(model !== undefined && { model }),
    ...(usage && { inputTokens: usage.input, outputTokens: usage.output }),
    ...(usage && withTotal && { totalTokens: usage.input + usage.output }),
  };
}

/**
 * A recorded body served as recorded: its status and its bytes (see
 * `test/fixtures/providers/sources.json` for where each comes from).
 */
export function recordedReply(name: RecordedName, headers?: Record<string, string>): Reply {
  const body = recorded(name);
  return { status: body.status, raw: body.raw, ...(headers && { headers }) };
}

/**
 * OpenAI Responses API: the API reference's published completed response, with
 * `text` as its output text, `model` as its model and, when given, `usage` as
 * its token counts (otherwise the recorded counts).
 */
export function openaiResponse(text: string, model?: string, usage?: Usage): Reply {
  return { json: fill('openai-responses.json', answerSlots(text, model, usage, true)) };
}

/**
 * An OpenAI error object (also Groq's and most compatible servers'): the
 * envelope recorded from api.openai.com with the message, type and code of the
 * case (as OpenAI's error-code guide lists them).
 */
export function openaiError(status: number, message: string, type: string, code: string | null = null, headers?: Record<string, string>): Reply {
  return { status, json: fill('openai-error-insufficient-quota.json', { message, type, code }), ...(headers && { headers }) };
}

/**
 * An OpenAI-style error for `status` with the type and code OpenAI gives that
 * case: 401 `invalid_request_error`/`invalid_api_key`, 429
 * `requests`/`rate_limit_exceeded`, 5xx `server_error`, other 4xx
 * `invalid_request_error`.
 */
export function openaiStatusError(status: number, message: string, headers?: Record<string, string>): Reply {
  if (status === 401) return openaiError(status, message, 'invalid_request_error', 'invalid_api_key', headers);
  if (status === 429) return openaiError(status, message, 'requests', 'rate_limit_exceeded', headers);
  if (status >= 500) return openaiError(status, message, 'server_error', null, headers);
  return openaiError(status, message, 'invalid_request_error', null, headers);
}

/**
 * Anthropic's error type for each status, as its API reference documents them
 * (other 4xx are `invalid_request_error`, other 5xx `api_error`).
 */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * An Anthropic error: the recorded 529 `overloaded_error` body for a 529, else
 * the published `invalid_request_error` body (with its request id) carrying the
 * documented type of `status`, and `message` in both.
 */
export function anthropicError(status: number, message: string, headers?: Record<string, string>): Reply {
  const json =
    status === 529
      ? fill('anthropic-error-overloaded.json', { message })
      : fill('anthropic-error-invalid-request.json', { message, type: ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error') });
  return { status, json, ...(headers && { headers }) };
}

/**
 * Anthropic Messages API: the message recorded from api.anthropic.com, with
 * `text` as its one text block, `model` as its model and, when given, `usage`
 * as its token counts.
 */
export function anthropicMessage(text: string, model?: string, usage?: Usage): Reply {
  return { json: fill('anthropic-message.json', answerSlots(text, model, usage, false)) };
}

/**
 * OpenAI-style Chat Completions answer (Ollama, vLLM, LM Studio, llama.cpp's
 * server): the API reference's published completion, with `text`, `model` and,
 * when given, `usage` in their places.
 */
export function chatCompletion(text: string, model?: string, usage?: Usage): Reply {
  return { json: fill('openai-chat-completion.json', answerSlots(text, model, usage, true)) };
}

/** Groq's Chat Completions answer: the completion recorded from api.groq.com, filled as {@link chatCompletion}. */
export function groqChatCompletion(text: string, model?: string, usage?: Usage): Reply {
  return { json: fill('groq-chat-completion.json', answerSlots(text, model, usage, true)) };
}
