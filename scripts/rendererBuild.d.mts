/**
 * Builds the renderer into dist/renderer unless the last build is newer than
 * every input; parallel callers share one build through a lock. `onWait` is
 * told once when another build holds the lock, `onBuild` when this call builds.
 */
export function ensureRendererBuilt(options?: { lockLimitMs?: number; onWait?: () => void; onBuild?: () => void }): void;
