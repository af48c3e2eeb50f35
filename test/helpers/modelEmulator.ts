/**
 * Local HTTP servers that replay the documented wire formats of the hosted
 * model APIs (OpenAI Responses, Anthropic Messages, OpenAI-style Chat
 * Completions as served by Groq and compatible servers). They are emulations:
 * each test scripts the replies, and every request is recorded for inspection.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** OpenAI Responses API: a completed response with one output_text part. */
export function openaiResponse(text: string, model: string, usage: Usage): Reply {
  return {
    json: {
      id: 'resp_emulated',
      object: 'response',
      created_at: 1_760_000_000,
      status: 'completed',
      model,
      output: [
        {
          type: 'message',
          id: 'msg_emulated',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      incomplete_details: null,
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  };
}

/** OpenAI (and Groq, and most compatible servers) error body. */
export function openaiError(status: number, message: string, type: string, code: string | null = null, headers?: Record<string, string>): Reply {
  return { status, json: { error: { message, type, param: null, code } }, ...(headers && { headers }) };
}

/** Anthropic Messages API: a message with one text block. */
export function anthropicMessage(text: string, model: string, usage: Usage): Reply {
  return {
    json: {
      id: 'msg_emulated',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    },
  };
}

/** Anthropic error body. */
export function anthropicError(status: number, type: string, message: string, headers?: Record<string, string>): Reply {
  return { status, json: { type: 'error', error: { type, message } }, ...(headers && { headers }) };
}

/** OpenAI-style Chat Completions answer (Groq, Ollama, vLLM, LM Studio, llama.cpp server). */
export function chatCompletion(text: string, model: string, usage: Usage): Reply {
  return {
    json: {
      id: 'chatcmpl-emulated',
      object: 'chat.completion',
      created: 1_760_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    },
  };
}
