/** Builds the renderer into dist/renderer unless the last build is newer than every input. */
export function ensureRendererBuilt(lockLimitMs?: number): void;
