/**
 * Where Electron's executable is, as the `electron` package itself says (its
 * index.js reads the path its installer wrote, or ELECTRON_OVERRIDE_DIST_PATH).
 * Shared by `npm start` and the binary installer.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The Electron executable of the package `electron` (the project's, or the
 * package folder at an absolute path), or undefined when the package or its
 * binary is absent.
 */
export function electronBinary(electron = 'electron') {
  try {
    const path = createRequire(import.meta.url)(electron);
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
