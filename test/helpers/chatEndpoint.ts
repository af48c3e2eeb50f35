/**
 * An emulated OpenAI-compatible Chat Completions endpoint for evaluation tests
 * and benches: a local HTTP server speaking the documented wire format
 * (`POST /v1/chat/completions`), whose answers a test computes from the
 * selector prompt it receives. Answers and errors are the recorded bodies of
 * `modelEmulator.ts` with the computed text filled in. Replies can be
 * delayed, fail with an HTTP status, or hang. Every request is counted and its
 * body kept when asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletion, openaiStatusError } from './modelEmulator';

/** What the selector asked, read back from its prompt. */
export interface SelectorPrompt {
  kind: 'activation' | 'resource';
  /** The request text (prompt-encoded: `&`, `<`, `>` as entities). */
  request: string;
  /** Offered identities: `namespace/name`, or `namespace/name#resource` for resources. */
  candidates: string[];
  /** The catalog line of each offered identity, as sent (descriptions, taxonomy or load_when). */
  entries: Record<string, Record<string, unknown>>;
  seed: number | undefined;
  model: string;
}

/** How to answer one request. */
export type EndpointReply =
  | { text: string; delayMs?: number; usage?: { input: number; output: number } }
  | { status: number; message?: string; headers?: Record<string, string>; delayMs?: number }
  | { hang: true };

/** A running endpoint. */
export interface ChatEndpoint {
  /** `http://127.0.0.1:<port>/v1`: the base URL of an `openai-compatible:` spec. */
  baseUrl: string;
  /** Requests received so far. */
  readonly count: number;
  /** Bodies of the requests received (only when started with `keepBodies`). */
  bodies: Record<string, unknown>[];
  /** Requests being answered right now, and the most seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

function between(text: string, open: string, close: string): string {
  const start = text.indexOf(open);
  if (start < 0) return '';
  const end = text.indexOf(close, start + open.length);
  return text.slice(start + open.length, end < 0 ? undefined : end).trim();
}

/** Reads a selector prompt out of a Chat Completions request body. */
export function readSelectorPrompt(body: Record<string, unknown>): SelectorPrompt {
  const messages = (body['messages'] as { role: string; content: string }[] | undefined) ?? [];
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const kind = user.includes('<resource_catalog>') ? 'resource' : 'activation';
  const catalog = between(user, kind === 'resource' ? '<resource_catalog>' : '<skill_catalog>', kind === 'resource' ? '</resource_catalog>' : '</skill_catalog>');
  const lines = catalog
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as { skill: string; name?: string } & Record<string, unknown>);
  const id = (e: { skill: string; name?: string }) => (kind === 'resource' ? `${e.skill}#${e.name}` : e.skill);
  const candidates = lines.map(id);
  const entries = Object.fromEntries(lines.map((e) => [id(e), e]));
  return { kind, request: between(user, '<request>', '</request>'), candidates, entries, seed: body['seed'] as number | undefined, model: String(body['model'] ?? '') };
}

/** The selector answer text choosing `ids` (activation identities or `skill#resource`). */
export function selectorAnswer(kind: SelectorPrompt['kind'], ids: string[]): string {
  if (kind === 'activation') return JSON.stringify({ activate: ids });
  return JSON.stringify({ resources: ids.map((id) => ({ skill: id.slice(0, id.indexOf('#')), name: id.slice(id.indexOf('#') + 1) })) });
}

/** Starts an endpoint on 127.0.0.1 that answers with `answer(prompt)`. */
export async function startChatEndpoint(answer: (prompt: SelectorPrompt) => EndpointReply, options: { keepBodies?: boolean } = {}): Promise<ChatEndpoint> {
  let count = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const bodies: Record<string, unknown>[] = [];
  const hanging = new Set<ServerResponse>();
  const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    inFlight--;
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(payload));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // An unreadable body still gets an answer: the test sees it in `bodies`.
      }
      if (options.keepBodies) bodies.push(body);
      const reply = answer(readSelectorPrompt(body));
      if ('hang' in reply) {
        hanging.add(res);
        res.on('close', () => {
          if (hanging.delete(res)) inFlight--;
        });
        return;
      }
      const respond = () => {
        if ('text' in reply) {
          const r = chatCompletion(reply.text, String(body['model'] ?? 'emulated'), reply.usage ?? { input: 120, output: 12 }) as { json: unknown };
          send(res, 200, r.json);
        } else {
          const r = openaiStatusError(reply.status, reply.message ?? `emulated HTTP ${reply.status}`) as { json: unknown };
          send(res, reply.status, r.json, reply.headers);
        }
      };
      if (reply.delayMs) setTimeout(respond, reply.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get count() {
      return count;
    },
    bodies,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
