/**
 * The `app://workbench/` scheme of the desktop shell: the built renderer
 * (`dist/renderer`) served from disk with the workbench's strict CSP and the
 * same no-sniff / no-referrer headers the web host sends. Only files inside the
 * renderer folder are served; any other host of the scheme, any method but
 * GET/HEAD and any escape from the folder get an error response.
 *
 * A privileged standard scheme (rather than `file://`) gives the page a real
 * origin for `'self'` in the CSP, for module workers and for the IPC
 * sender-frame check.
 *
 * No Electron import: the handler takes and returns Fetch API objects, which
 * `protocol.handle` uses too.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { workbenchCsp } from '../core/api/csp';
import { mediaTypeOf } from '../core/api/mediaTypes';

/** The scheme of the workbench page. */
export const APP_SCHEME = 'app';
/** The host of the workbench page. */
export const APP_HOST = 'workbench';
/** The page's origin, as the IPC transport compares it. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The address the window loads. */
export const APP_ENTRY = `${APP_ORIGIN}/index.html`;

/** Largest file served (the renderer's biggest chunk is far smaller). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { ...HEADERS, 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** The file of `url` inside `root`, or undefined when the URL is not a file of the renderer. */
export function appFilePath(root: string, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
  if (rel.includes('\0') || rel.includes('\\')) return undefined;
  if (rel === '/' || rel === '') rel = '/index.html';
  const base = resolve(root);
  const file = resolve(join(base, rel));
  return file.startsWith(base + sep) ? file : undefined;
}

/** Answers one request of the scheme from the renderer folder `root`. */
export async function handleAppRequest(root: string, request: Pick<Request, 'url' | 'method'>): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method not allowed.\n');
  const file = appFilePath(root, request.url);
  if (!file) return text(404, 'Not found.\n');
  let info;
  try {
    info = await stat(file);
  } catch {
    info = undefined;
  }
  if (!info?.isFile() || info.size > MAX_FILE_BYTES) {
    return file.endsWith(`${sep}index.html`) ? text(503, 'The workbench UI is not built: run npm start (or npm run build), then reopen Skillbench.\n') : text(404, 'Not found.\n');
  }
  const type = mediaTypeOf(file);
  const headers: Record<string, string> = { ...HEADERS, 'Content-Type': type, 'Content-Length': String(info.size) };
  if (type.startsWith('text/html')) headers['Content-Security-Policy'] = workbenchCsp();
  const body = request.method === 'HEAD' ? null : new Uint8Array(await readFile(file));
  return new Response(body, { status: 200, headers });
}
