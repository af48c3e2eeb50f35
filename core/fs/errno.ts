/** Telling system-call failures apart by their `code`. */

/** Whether `error` is a system-call error whose code is one of `codes` (e.g. `'ENOENT'`). */
export function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}
