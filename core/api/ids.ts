/**
 * Random identifiers for cursors, sessions and requests, from Web Crypto so
 * the module runs in Node and in a browser alike.
 *
 * Isomorphic: no `node:` imports.
 */

/** `bytes` random bytes as base64url text (no padding). */
export function randomToken(bytes = 32): string {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  let binary = '';
  for (const b of buf) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
