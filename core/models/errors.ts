/**
 * Model failures as one typed error. Every library, HTTP and network failure of a
 * model call is mapped here, at the boundary, into a {@link ModelError} whose
 * `kind` drives retry and failover (guide 9.4 error policy). Messages are
 * redacted: an API key or an Authorization header never survives into them.
 */
import { WorkbenchError } from '../errors';
import { createRedactor, redactMessage } from '../redact';
import { parseRetryAfter } from '../retry';
import type { ModelAttempt, ModelErrorKind } from './types';

/** The WorkbenchError code of each kind; the CLI maps codes to exit codes. */
const CODE_BY_KIND: Record<ModelErrorKind, string> = {
  outage: 'model_unavailable',
  auth: 'model_unavailable',
  rate_limit: 'model_unavailable',
  server: 'model_unavailable',
  quota: 'model_unavailable',
  timeout: 'timeout',
  deadline: 'timeout',
  cancelled: 'cancelled',
  malformed_input: 'invalid_request',
};

/** Data of a {@link ModelError} besides its kind and message. */
export interface ModelErrorOptions {
  /** Provider id (`openai`, `llama-cpp`, `baseline`, ...). */
  provider: string;
  /** Resolved model id, when known. */
  model?: string;
  /** HTTP status, when the failure was an HTTP answer. */
  status?: number;
  /** Delay the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
  /** Attempts made before the failure (set by the failover chain). */
  attempts?: ModelAttempt[];
  /**
   * The WorkbenchError code when it is not the kind's usual one (a missing model
   * file is `not_found`, a call on a closed client `internal`); the kind still
   * decides failover.
   */
  code?: string;
  cause?: unknown;
}

/** A failed model call, classified so the chain knows whether to retry, fail over or stop. */
export class ModelError extends WorkbenchError {
  /** What went wrong, in the terms of the failover policy. */
  readonly kind: ModelErrorKind;
  /** HTTP status of the provider's answer, if there was one. */
  readonly status: number | undefined;
  /** Server-requested wait before retrying, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The provider that failed. */
  readonly provider: string;
  /** The resolved model id, when known. */
  readonly model: string | undefined;
  /** Every attempt made before giving up (empty outside a chain). */
  readonly attempts: ModelAttempt[];

  constructor(kind: ModelErrorKind, message: string, options: ModelErrorOptions) {
    const details: Record<string, unknown> = { kind, provider: options.provider };
    if (options.model !== undefined) details['model'] = options.model;
    if (options.status !== undefined) details['status'] = options.status;
    if (options.retryAfterMs !== undefined) details['retryAfterMs'] = options.retryAfterMs;
    if (options.attempts !== undefined && options.attempts.length > 0) details['attempts'] = options.attempts;
    super(options.code ?? CODE_BY_KIND[kind], message, { cause: options.cause, details });
    this.name = 'ModelError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.provider = options.provider;
    this.model = options.model;
    this.attempts = options.attempts ?? [];
  }

  /** A copy carrying the attempts of a chain (errors are otherwise immutable). */
  withAttempts(attempts: ModelAttempt[], message: string = this.message): ModelError {
    return new ModelError(this.kind, message, {
      provider: this.provider,
      ...(this.model !== undefined && { model: this.model }),
      ...(this.status !== undefined && { status: this.status }),
      ...(this.retryAfterMs !== undefined && { retryAfterMs: this.retryAfterMs }),
      attempts,
      code: this.code,
      cause: this.cause,
    });
  }
}

/** True when `value` is a {@link ModelError}, optionally of one of `kinds`. */
export function isModelError(value: unknown, ...kinds: ModelErrorKind[]): value is ModelError {
  return value instanceof ModelError && (kinds.length === 0 || kinds.includes(value.kind));
}

/** A model spec that does not parse; `position` is the 0-based offset of the offending character. */
export class ModelSpecError extends WorkbenchError {
  /** The spec as given. */
  readonly spec: string;
  /** 0-based offset of the offending character in `spec`. */
  readonly position: number;

  constructor(spec: string, position: number, reason: string) {
    super('invalid_request', `invalid model spec '${printable(spec)}' at column ${position + 1}: ${reason}`, {
      details: { spec: printable(spec), position },
    });
    this.name = 'ModelSpecError';
    this.spec = spec;
    this.position = position;
  }
}

/** Specs go into messages; keep them one line and short. */
function printable(spec: string): string {
  // eslint-disable-next-line no-control-regex
  const oneLine = spec.replace(/[\u0000-\u001f\u007f]/g, '?');
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}...` : oneLine;
}

/** Who ended a call early, when the caller of {@link classifyError} knows it. */
export type AbortOrigin = 'cancelled' | 'timeout' | 'deadline';

/** What {@link classifyError} knows about the call besides the error. */
export interface ClassifyContext {
  provider?: string;
  model?: string;
  /** Values that must never appear in a message (the API key in use). */
  secrets?: readonly string[];
  /** Set when our own code aborted the call: decides between cancelled, timeout and deadline. */
  abortedBy?: AbortOrigin;
  /** The per-attempt timeout, for the message of a `timeout`. */
  timeoutMs?: number;
  /** Appended to an `auth` message, e.g. which variable holds the key. */
  authHint?: string;
}

const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ECONNRESET',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);
const TRANSPORT_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Billing and quota exhaustion; OpenAI reports it as a 429, Anthropic as a 400. */
const QUOTA_PATTERN =
  /insufficient[_ ](?:quota|funds|credits|balance)|billing[_ ](?:details|hard[_ ]limit|not[_ ]active)|credit balance|quota (?:exceeded|exhausted)|exceeded your (?:current )?quota|payment required|out of credits/i;

const MALFORMED_SDK_ERRORS = new Set([
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_UnsupportedFunctionalityError',
  'AI_InvalidMessageRoleError',
  'AI_MessageConversionError',
  'AI_NoSuchModelError',
]);
const SERVER_SDK_ERRORS = new Set([
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
  'AI_NoOutputGeneratedError',
]);

/**
 * Maps any failure of a model call to a {@link ModelError}:
 * HTTP 401/403 → auth, 402 or a billing/quota answer → quota, 429 → rate_limit
 * (with its Retry-After), 408 → timeout, other 4xx → malformed_input, 5xx and
 * unreadable answers → server, refused/unresolved/reset connections → outage,
 * an abort → cancelled, timeout or deadline per `context.abortedBy`.
 */
export function classifyError(error: unknown, context: ClassifyContext = {}): ModelError {
  const provider = context.provider ?? (error instanceof ModelError ? error.provider : 'unknown');
  const base = { provider, ...(context.model !== undefined && { model: context.model }) };
  const prefix = context.model === undefined ? provider : `${provider} (${context.model})`;
  const secrets = createRedactor(context.secrets ?? []);
  const clean = (text: string): string => truncate(redactMessage(text, secrets), 300);

  if (context.abortedBy !== undefined) {
    return abortError(context.abortedBy, prefix, base, context.timeoutMs);
  }
  if (error instanceof ModelError) return error;

  const unwrapped = unwrapRetryError(error);
  if (isApiCallError(unwrapped)) {
    return fromApiCallError(unwrapped, prefix, base, clean, context);
  }
  const name = errorName(unwrapped);
  if (name === 'AbortError') return abortError('cancelled', prefix, base);
  if (name === 'TimeoutError') return abortError('timeout', prefix, base, context.timeoutMs);
  if (name === 'AI_LoadAPIKeyError') {
    return new ModelError('auth', `${prefix}: no API key is configured${hint(context)}`, base);
  }
  if (name !== undefined && MALFORMED_SDK_ERRORS.has(name)) {
    return new ModelError('malformed_input', `${prefix}: the request was rejected before sending: ${clean(messageOf(unwrapped))}`, {
      ...base,
      cause: sanitizedCause(unwrapped, clean),
    });
  }
  if (name !== undefined && SERVER_SDK_ERRORS.has(name)) {
    return new ModelError('server', `${prefix}: the provider's answer could not be read: ${clean(messageOf(unwrapped))}`, {
      ...base,
      cause: sanitizedCause(unwrapped, clean),
    });
  }
  const code = networkCode(unwrapped);
  if (code !== undefined && TRANSPORT_TIMEOUT_CODES.has(code)) {
    return new ModelError('timeout', `${prefix}: the connection timed out waiting for the provider (${code})`, base);
  }
  if (code !== undefined && OUTAGE_CODES.has(code)) {
    return new ModelError('outage', `${prefix}: cannot reach the provider (${code})`, { ...base, cause: sanitizedCause(unwrapped, clean) });
  }
  return new ModelError('server', `${prefix}: unexpected failure: ${clean(messageOf(unwrapped))}`, {
    ...base,
    cause: sanitizedCause(unwrapped, clean),
  });
}

/** The fields of the AI SDK's APICallError we read (matched by name so this module does not load the SDK). */
interface ApiCallErrorLike extends Error {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

function isApiCallError(error: unknown): error is ApiCallErrorLike {
  return error instanceof Error && error.name === 'AI_APICallError';
}

function fromApiCallError(
  error: ApiCallErrorLike,
  prefix: string,
  base: { provider: string; model?: string },
  clean: (text: string) => string,
  context: ClassifyContext,
): ModelError {
  const status = error.statusCode;
  const detail = clean(error.message);
  const cause = sanitizedCause(error, clean);
  if (status === undefined) {
    const code = networkCode(error);
    if (code !== undefined && TRANSPORT_TIMEOUT_CODES.has(code)) {
      return new ModelError('timeout', `${prefix}: the connection timed out waiting for the provider (${code})`, { ...base, cause });
    }
    return new ModelError('outage', `${prefix}: cannot reach the provider${code === undefined ? '' : ` (${code})`}: ${detail}`, { ...base, cause });
  }
  const withStatus = { ...base, status, cause };
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  const retry = retryAfterMs === undefined ? {} : { retryAfterMs };
  const quotaText = `${error.message} ${error.responseBody ?? ''}`;
  if (status === 401 || status === 403) {
    return new ModelError('auth', `${prefix}: authentication failed (HTTP ${status}): ${detail}${hint(context)}`, withStatus);
  }
  if (status === 402 || (status >= 400 && status < 500 && QUOTA_PATTERN.test(quotaText))) {
    return new ModelError('quota', `${prefix}: billing or quota exhausted (HTTP ${status}): ${detail}`, withStatus);
  }
  if (status === 429) {
    return new ModelError('rate_limit', `${prefix}: rate limited (HTTP 429): ${detail}`, { ...withStatus, ...retry });
  }
  if (status === 408) {
    return new ModelError('timeout', `${prefix}: the provider timed out (HTTP 408): ${detail}`, withStatus);
  }
  if (status >= 400 && status < 500) {
    return new ModelError('malformed_input', `${prefix}: the provider rejected the request (HTTP ${status}): ${detail}`, withStatus);
  }
  if (status >= 500) {
    return new ModelError('server', `${prefix}: server error (HTTP ${status}): ${detail}`, { ...withStatus, ...retry });
  }
  // A 2xx whose body could not be decoded: the provider (or something in between) answered garbage.
  return new ModelError('server', `${prefix}: the provider's answer could not be read (HTTP ${status}): ${detail}`, withStatus);
}

function abortError(
  origin: AbortOrigin,
  prefix: string,
  base: { provider: string; model?: string },
  timeoutMs?: number,
): ModelError {
  switch (origin) {
    case 'cancelled':
      return new ModelError('cancelled', `${prefix}: the call was cancelled`, base);
    case 'deadline':
      return new ModelError('deadline', `${prefix}: the request deadline was exhausted`, base);
    case 'timeout':
      return new ModelError(
        'timeout',
        `${prefix}: no answer within ${timeoutMs === undefined ? 'the attempt timeout' : `${timeoutMs} ms`}`,
        base,
      );
  }
}

function hint(context: ClassifyContext): string {
  return context.authHint === undefined ? '' : ` (${context.authHint})`;
}

function unwrapRetryError(error: unknown): unknown {
  if (errorName(error) === 'AI_RetryError') {
    const last = (error as { lastError?: unknown }).lastError;
    if (last !== undefined) return last;
  }
  return error;
}

function errorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'unknown error';
}

/** The first system error code (`ECONNREFUSED`, `UND_ERR_…`) along the cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (OUTAGE_CODES.has(code) || TRANSPORT_TIMEOUT_CODES.has(code) || /^E[A-Z]+$/.test(code))) {
      return code;
    }
    // AggregateError (happy eyeballs) keeps the per-address failures in `errors`.
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = networkCode(errors[0]);
      if (inner !== undefined) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The original error may hold an echoed key in its message or body, so only a
 * redacted copy of its name and message is kept as the cause.
 */
function sanitizedCause(error: unknown, clean: (text: string) => string): Error {
  const copy = new Error(clean(messageOf(error)));
  copy.name = errorName(error) ?? 'Error';
  const code = networkCode(error);
  if (code !== undefined) (copy as Error & { code?: string }).code = code;
  return copy;
}

function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}...` : oneLine;
}
