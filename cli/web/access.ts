/**
 * Who may use the web host of `skillbench serve`: one-time sign-in codes,
 * traded for sessions.
 *
 * - A sign-in code rides in the address `serve` prints (`/?token=<code>`). It
 *   signs in once: the first page load (or a script's `POST /auth/session`)
 *   spends it, so the copy the browser keeps in its history, or one left on a
 *   shared screen, opens nothing. The launch's code lasts until it is used;
 *   codes minted later (`POST /auth/code`, for another browser or a test's
 *   fresh browser context) expire after a few minutes.
 * - A session is presented as the HttpOnly cookie the page load set, or as
 *   `Authorization: Bearer <session>`. It lasts until it has been idle for the
 *   idle limit, or until the server stops (sessions live in memory). Sessions
 *   are never evicted to make room: with the maximum live, a new sign-in is
 *   refused until one expires.
 * - Codes and sessions are 32 random bytes, kept only as SHA-256 digests and
 *   looked up by digest, so a lookup's timing says nothing about a secret and
 *   a memory dump holds no usable one.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Options of {@link AccessControl}. */
export interface AccessOptions {
  /** A session unused for this long ends (default 12 hours). */
  sessionIdleMs?: number;
  /** How long a minted code stays valid (default 5 minutes; the launch's code lasts until used). */
  codeTtlMs?: number;
  /** Live sessions at most (default 4,096). */
  maxSessions?: number;
  /** Unspent codes at most (default 256). */
  maxCodes?: number;
  /** The clock (tests move it instead of waiting). */
  now?: () => number;
}

/** Why a code did not sign in. */
export type RedeemRefusal = 'unknown' | 'full';

const DEFAULTS = { sessionIdleMs: 12 * 60 * 60 * 1000, codeTtlMs: 5 * 60 * 1000, maxSessions: 4096, maxCodes: 256 };

function secret(): string {
  return randomBytes(32).toString('base64url');
}

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/** The sign-in codes and sessions of one web host. */
export class AccessControl {
  /** Session digest → the time it expires unless used again. */
  private readonly sessions = new Map<string, number>();
  /** Code digest → the time it expires (Infinity: until used). */
  private readonly codes = new Map<string, number>();
  private readonly options: Required<AccessOptions>;

  constructor(options: AccessOptions = {}) {
    this.options = { ...DEFAULTS, now: () => Date.now(), ...options };
  }

  /** How long an unused session lasts, in milliseconds. */
  get sessionIdleMs(): number {
    return this.options.sessionIdleMs;
  }

  /**
   * A new one-time sign-in code; `lasting` keeps it until it is used (the
   * launch's code). Undefined when `maxCodes` unspent codes exist.
   */
  mintCode(lasting = false): string | undefined {
    const now = this.options.now();
    if (this.codes.size >= this.options.maxCodes) this.sweep(this.codes, now);
    if (this.codes.size >= this.options.maxCodes) return undefined;
    const code = secret();
    this.codes.set(digest(code), lasting ? Infinity : now + this.options.codeTtlMs);
    return code;
  }

  /** Spends `code` for a new session; a code signs in once, even when the sign-in is refused for room. */
  redeem(code: string): { session: string } | { refused: RedeemRefusal } {
    const key = digest(code);
    const expires = this.codes.get(key);
    const now = this.options.now();
    if (expires === undefined || expires <= now) {
      this.codes.delete(key);
      return { refused: 'unknown' };
    }
    this.codes.delete(key);
    const session = this.createSession();
    return session === undefined ? { refused: 'full' } : { session };
  }

  /** A new session (for a code spent here, or an in-process caller); undefined when `maxSessions` are live. */
  createSession(): string | undefined {
    const now = this.options.now();
    if (this.sessions.size >= this.options.maxSessions) this.sweep(this.sessions, now);
    if (this.sessions.size >= this.options.maxSessions) return undefined;
    const session = secret();
    this.sessions.set(digest(session), now + this.options.sessionIdleMs);
    return session;
  }

  /** Whether `session` is live; using it restarts its idle time. */
  check(session: string): boolean {
    const key = digest(session);
    const expires = this.sessions.get(key);
    const now = this.options.now();
    if (expires === undefined) return false;
    if (expires <= now) {
      this.sessions.delete(key);
      return false;
    }
    this.sessions.set(key, now + this.options.sessionIdleMs);
    return true;
  }

  private sweep(entries: Map<string, number>, now: number): void {
    for (const [key, expires] of entries) if (expires <= now) entries.delete(key);
  }
}
