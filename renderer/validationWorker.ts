/**
 * The editor's validation worker: runs the same deterministic validator as the
 * registry (core/package) off the UI thread, so typing never waits for it.
 * The page posts `{seq, text, id?, limits?}` on every edit; answers carry the
 * same `seq`, so the page drops answers to edits it has already superseded.
 */
import { ScanCache, validatePackage, type PackageCheck, type SkillAuthoringLimits, type SkillId } from '../core/package/index';

/** A validation request from the editor. */
export interface ValidationRequest {
  /** Monotonic edit number; the answer echoes it. */
  seq: number;
  text: string;
  id?: SkillId;
  limits?: Partial<SkillAuthoringLimits>;
}

/** The worker's answer: the verdict and how long it took. */
export interface ValidationResponse {
  seq: number;
  check: PackageCheck;
  elapsedMs: number;
}

/**
 * Validates one request. Successive edits of one document share `cache`, so a
 * keystroke rescans only the strings it changed (findings are identical).
 */
export function handleValidation(request: ValidationRequest, cache?: ScanCache): ValidationResponse {
  const started = performance.now();
  const check = validatePackage(request.text, {
    ...(request.id ? { id: request.id } : {}),
    ...(request.limits ? { limits: request.limits } : {}),
    ...(cache ? { cache } : {}),
  });
  return { seq: request.seq, check, elapsedMs: performance.now() - started };
}

interface WorkerScope {
  onmessage: ((event: MessageEvent<ValidationRequest>) => void) | null;
  postMessage(message: ValidationResponse): void;
}

// Only wire the message loop inside a dedicated worker (not when imported by tests or the page).
const scope = globalThis as unknown as Partial<WorkerScope> & { importScripts?: unknown };
if (typeof scope.importScripts === 'function') {
  // One worker serves one editor document, so one cache serves all its edits.
  const cache = new ScanCache();
  scope.onmessage = (event) => scope.postMessage?.(handleValidation(event.data, cache));
}
