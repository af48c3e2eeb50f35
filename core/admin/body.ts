/**
 * Request headers and bodies of the HTTP hosts (the admin API and the
 * workbench's web host): the media type check, and the one bounded body reader
 * that refuses a declared or streamed body above the limit without reading
 * past it (and answers `Expect: 100-continue` only when it reads).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreError } from '../store/errors';

/** Requests whose `Expect: 100-continue` has not been answered yet (see `server.ts`). */
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Marks a request that arrived through the server's `checkContinue` event: the
 * handler sends `100 Continue` only once it has decided to read the body, so a
 * client announcing an oversized body is refused before it sends a byte of it.
 */
export function markAwaitingContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/** The client went away while we were reading its body: nothing to answer. */
export class ClientGone extends Error {}

/** One request whose body may be read; `bodyConsumed` turns true once it was read to the end. */
export interface BodySource {
  req: IncomingMessage;
  res: ServerResponse;
  bodyConsumed: boolean;
}

/** A request header as one string (repeated headers joined with `, `). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (Array.isArray(value)) return value.join(', ');
  return value;
}

/** `application/json`, optionally with `charset=utf-8` and nothing else; 415 otherwise. */
export function requireJson(req: IncomingMessage): void {
  const raw = header(req, 'content-type');
  const [type, ...params] = (raw ?? '').split(';').map((p) => p.trim().toLowerCase());
  const paramsOk = params.every((p) => p.replace(/\s+/g, '') === 'charset=utf-8' || p.replace(/\s+/g, '') === 'charset="utf-8"');
  if (type !== 'application/json' || !paramsOk || params.length > 1) {
    throw new StoreError(
      'unsupported_media_type',
      `Content-Type must be application/json (optionally with charset=utf-8), got ${raw === undefined ? 'none' : JSON.stringify(raw)}`,
    );
  }
}

/** Whether the request announces a body (chunked, or a non-zero length). */
export function hasBody(req: IncomingMessage): boolean {
  const length = header(req, 'content-length');
  return header(req, 'transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
}

/**
 * Reads the body up to `max` bytes. A declared length above `max` is refused before
 * reading anything; a streamed body is cut off as soon as it passes `max`. Either
 * refusal is a `payload_too_large` StoreError naming `limit` (what `max` is); a
 * client that goes away mid-body is {@link ClientGone}. A caller answering a
 * refusal sends `Connection: close` while `bodyConsumed` is false.
 */
export function readBody(source: BodySource, max: number, limit = 'the limit'): Promise<Buffer> {
  const { req, res } = source;
  const tooLarge = (bytes: string) =>
    new StoreError('payload_too_large', `the request body is ${bytes}, above ${limit} of ${max} bytes`, {
      details: { limit: max },
    });
  const declared = header(req, 'content-length');
  if (declared !== undefined && Number(declared) > max) return Promise.reject(tooLarge(`${declared} bytes`));
  if (awaitingContinue.has(req)) {
    awaitingContinue.delete(req);
    res.writeContinue();
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        cleanup();
        // Stop pulling bytes; the reply closes the connection instead of draining it.
        req.pause();
        reject(tooLarge(`more than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      source.bodyConsumed = true;
      resolve(Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGone());
    };
    const onClose = () => {
      if (!req.complete) onGone();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onClose);
  });
}

/**
 * The package body as received. Bytes, not text: decoding (UTF-8 errors, a byte
 * order mark) is part of validation and reported as findings with positions.
 */
export async function readPackageBytes(source: BodySource, max: number): Promise<Uint8Array> {
  const bytes = await readBody(source, max, 'the package limit');
  if (bytes.length === 0) throw new StoreError('invalid_request', 'the request body is empty: send the complete JSON package');
  return bytes;
}
