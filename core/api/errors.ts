/**
 * Errors as data: every failure that leaves the service becomes one
 * {@link WorkbenchErrorData}, whatever threw it. Store validation findings,
 * locations and a publish conflict are lifted out of `details` so the UI never
 * digs for them; anything that is not a `WorkbenchError` is a bug and crosses
 * as `internal` with a short, secret-free message.
 *
 * Isomorphic: no `node:` imports.
 */
import { WorkbenchError } from '../errors';
import type { Finding } from '../package/types';
import type { PublishConflict, WorkbenchErrorData } from './contract';
import { ERROR_STATUS } from './names';

/** Longest message that crosses; longer ones are cut (a message is a sentence, not a dump). */
const MAX_MESSAGE_CHARS = 2000;

/** Keys of `details` that never cross: they may hold bodies or internals. */
const PRIVATE_DETAILS = new Set(['stack', 'cause', 'body', 'headers', 'password', 'token', 'secret', 'secrets', 'authorization']);

function isFinding(value: unknown): value is Finding {
  const f = value as Partial<Finding> | null;
  return typeof f === 'object' && f !== null && typeof f.code === 'string' && typeof f.message === 'string' && typeof f.path === 'string';
}

function findingsOf(details: Record<string, unknown>): Finding[] | undefined {
  const errors = Array.isArray(details['errors']) ? details['errors'].filter(isFinding) : [];
  const warnings = Array.isArray(details['warnings']) ? details['warnings'].filter(isFinding) : [];
  return errors.length + warnings.length > 0 ? [...errors, ...warnings] : undefined;
}

/** A JSON-safe copy of `value` without private keys; functions, cycles and oversized parts are dropped. */
function plain(value: unknown, redact: (text: string) => string, depth = 0, seen = new Set<unknown>()): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return Number.isFinite(value as number) || typeof value !== 'number' ? value : null;
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || depth > 8 || seen.has(value)) return undefined;
  seen.add(value);
  if (Array.isArray(value)) return value.slice(0, 10_000).map((v) => plain(v, redact, depth + 1, seen) ?? null);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (PRIVATE_DETAILS.has(k.toLowerCase())) continue;
    const copy = plain(v, redact, depth + 1, seen);
    if (copy !== undefined) out[k] = copy;
  }
  return out;
}

/** Options of {@link toErrorData}. */
export interface ErrorDataOptions {
  /** Removes secrets from any text that crosses (messages and string details). */
  redact?: (text: string) => string;
}

/** The status of a code: the table's, or 400 for a code this build does not know (a caller's error, not a bug). */
export function statusOf(code: string): number {
  return (ERROR_STATUS as Record<string, number>)[code] ?? 400;
}

/**
 * Turns anything thrown into the data that crosses a transport. A
 * `WorkbenchError` keeps its code and message; `details.pointer`, `line`,
 * `column`, `file` and `conflict` and a 422's `errors`/`warnings` become typed
 * fields. Anything else is `internal`.
 */
export function toErrorData(error: unknown, options: ErrorDataOptions = {}): WorkbenchErrorData {
  const redact = options.redact ?? ((t: string) => t);
  if (error instanceof WorkbenchError) {
    const details = (error.details ?? {}) as Record<string, unknown>;
    const data: WorkbenchErrorData = { code: error.code, message: cut(redact(error.message)), status: statusOf(error.code) };
    const findings = findingsOf(details);
    if (findings) data.findings = plain(findings, redact) as Finding[];
    const first = findings?.find((f) => f.severity === 'error') ?? findings?.[0];
    const pointer = typeof details['pointer'] === 'string' ? details['pointer'] : Array.isArray(details['pointers']) && typeof details['pointers'][0] === 'string' ? details['pointers'][0] : first?.path;
    if (pointer !== undefined) data.pointer = pointer;
    const line = typeof details['line'] === 'number' ? details['line'] : first?.line;
    const column = typeof details['column'] === 'number' ? details['column'] : first?.column;
    if (line !== undefined) data.line = line;
    if (column !== undefined) data.column = column;
    if (typeof details['file'] === 'string') data.file = redact(details['file']);
    if (details['conflict'] !== undefined) data.conflict = plain(details['conflict'], redact) as PublishConflict;
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(details)) {
      if (['errors', 'warnings', 'conflict', 'pointer', 'line', 'column', 'file'].includes(k)) continue;
      rest[k] = v;
    }
    const extra = plain(rest, redact) as Record<string, unknown>;
    if (Object.keys(extra).length > 0) data.details = extra;
    return data;
  }
  const name = error instanceof Error ? error.name : typeof error;
  return {
    code: 'internal',
    message: `Skillbench hit an internal error (${name}). Please report it with the steps that led here; the host's log has the details.`,
    status: ERROR_STATUS.internal,
  };
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

/**
 * The error a client throws for a failed call: a `WorkbenchError` with the
 * whole {@link WorkbenchErrorData} on `data` (findings, conflict, locations).
 */
export class WorkbenchApiError extends WorkbenchError {
  /** The failure as it crossed the transport. */
  readonly data: WorkbenchErrorData;

  constructor(data: WorkbenchErrorData) {
    super(data.code, data.message, data.details === undefined ? undefined : { details: data.details });
    this.name = 'WorkbenchApiError';
    this.data = data;
  }

  /** HTTP-equivalent status. */
  get status(): number {
    return this.data.status;
  }

  /** Located findings of a 422 (empty otherwise). */
  get findings(): Finding[] {
    return this.data.findings ?? [];
  }

  /** What a three-way merge needs after a 412 on publish. */
  get conflict(): PublishConflict | undefined {
    return this.data.conflict;
  }
}
