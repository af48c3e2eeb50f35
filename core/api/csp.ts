/**
 * The Content-Security-Policy of the workbench page, shared by `skillbench
 * serve` and the Electron shell. Scripts, workers and fonts come only from the
 * app itself; nothing can be framed, embedded or posted elsewhere. Styles allow
 * inline `style` because Monaco sets positions through them (never scripts).
 *
 * Isomorphic: no `node:` imports.
 */

/** The policy; `connect` lists extra sources the page may connect to (the API's WebSocket URL). */
export function workbenchCsp(connect: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${connect.map((c) => ` ${c}`).join('')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "object-src 'none'",
  ].join('; ');
}
