/**
 * Open connections of a session, keyed by profile name: several stores stay
 * open at once, each opened once (concurrent openers share one attempt), and
 * every use goes through {@link ConnectionPool.use}, which keeps the live state
 * honest: a store that cannot be reached (a host that does not answer, a
 * local folder that is gone) or stops answering turns `offline` with the
 * reason, and `open` again as soon as it answers. Reads never create a store;
 * only a use marked as a write (`create`) may create a local registry. Idle
 * stores are closed after a while and reopened on the next use, as
 * RedisInsight sweeps idle clients.
 *
 * Node-only: stores hold sockets and files.
 */
import { WorkbenchError } from '../errors';
import { notAnswering } from '../store/errors';
import type { SkillStore } from '../store/types';
import type { ConnectionProfile, ConnectionState, SecretProtection, SecretsPresence } from './contract';
import { toErrorData } from './errors';

/**
 * Where profiles come from and how a profile's store is opened: the built-in
 * default registry alone, or the saved profiles with their secrets.
 */
export interface ConnectionSource {
  /** Every profile, the built-in `default` first. */
  list(): Promise<ConnectionProfile[]>;
  /** The profile named `name`; 404 `not_found` otherwise. */
  get(name: string): Promise<ConnectionProfile>;
  /**
   * Opens the store of `profile` (with its secrets, guarded by its read-only
   * flag). Opening is a read and creates nothing; only `create: true`, passed
   * for a write, may create a local profile's registry.
   */
  open(profile: ConnectionProfile, options?: { create?: boolean }): Promise<SkillStore>;
  /** Which secrets a profile has saved (names only). */
  secretsPresence(name: string): Promise<SecretsPresence>;
  /** How saved secrets are protected at rest. */
  readonly secretProtection: SecretProtection;
}

/** Failures that mean "the store is not answering", as opposed to a refused request. */
const OFFLINE_CODES = new Set(['unavailable', 'timeout']);

/** Whether `error` says the store does not answer (a host down, a local folder gone) rather than refusing a request. */
function isOffline(error: unknown): boolean {
  if (!(error instanceof WorkbenchError)) return false;
  // A local folder that is gone is "not found" (exit 5), but the connection is offline: the folder may come back.
  return OFFLINE_CODES.has(error.code) || error.details?.['transport'] === 'folder_missing';
}

interface Entry {
  profile: ConnectionProfile;
  store?: SkillStore;
  opening?: Promise<SkillStore>;
  state: ConnectionState;
  lastUsed: number;
  busy: number;
}

/** How {@link ConnectionPool.open} opens a store that is not open yet. */
export interface OpenOptions {
  /**
   * Whether a local profile's registry may be created: only for a write, and
   * only when the profile lets that write through (a function decides from
   * the profile). Reads leave it unset and create nothing.
   */
  create?: boolean | ((profile: ConnectionProfile) => boolean);
}

/** Options of {@link ConnectionPool}. */
export interface ConnectionPoolOptions {
  /** Told about every change of a connection's live state. */
  onState?: (name: string, state: ConnectionState) => void;
  /** Close stores unused for this long (default 10 minutes; 0 never). */
  idleMs?: number;
  clock?: () => number;
}

/** The open stores of a session. */
export class ConnectionPool {
  private readonly entries = new Map<string, Entry>();
  /** Attempts under way, by name: one per name however many callers wait on it. */
  private readonly starting = new Map<string, Promise<SkillStore>>();
  private readonly sweeper: ReturnType<typeof setInterval> | undefined;
  private readonly clock: () => number;
  private closed = false;

  constructor(
    private readonly source: ConnectionSource,
    private readonly options: ConnectionPoolOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    const idle = options.idleMs ?? 10 * 60_000;
    if (idle > 0) {
      this.sweeper = setInterval(() => void this.sweep(idle), Math.min(idle, 60_000));
      this.sweeper.unref?.();
    }
  }

  /** The live state of `name` (`closed` when it was never opened). */
  state(name: string): ConnectionState {
    return this.entries.get(name)?.state ?? { status: 'closed', since: new Date(0).toISOString() };
  }

  /** The profile named `name`: the one an open connection was opened with, else the saved one (404 `not_found` when there is none). */
  async profileOf(name: string): Promise<ConnectionProfile> {
    return this.entries.get(name)?.profile ?? this.source.get(name);
  }

  /** The profile of an open or opening connection, if any. */
  profile(name: string): ConnectionProfile | undefined {
    return this.entries.get(name)?.profile;
  }

  private setState(name: string, entry: Entry, state: Omit<ConnectionState, 'since'>): void {
    const same = entry.state.status === state.status && entry.state.description === state.description && entry.state.error?.message === state.error?.message;
    if (same) return;
    entry.state = { ...state, since: new Date(this.clock()).toISOString() };
    this.options.onState?.(name, entry.state);
  }

  /**
   * Opens (or returns the open) store of profile `name`. A read (the default)
   * creates nothing; `create` is for a write that may create a local
   * profile's registry when it does not exist yet.
   */
  async open(name: string, options: OpenOptions = {}): Promise<SkillStore> {
    if (this.closed) throw new WorkbenchError('unavailable', 'the workbench is shutting down');
    const existing = this.entries.get(name);
    if (existing?.store) {
      existing.lastUsed = this.clock();
      return existing.store;
    }
    // Set before the first await of an attempt, so every caller arriving meanwhile shares it.
    const inFlight = this.starting.get(name) ?? existing?.opening;
    if (inFlight) {
      if (options.create === undefined || options.create === false) return inFlight;
      // A write waits for a read's attempt, and opens again (creating) only when it failed.
      const store = await inFlight.catch(() => undefined);
      if (store) return store;
      return this.open(name, options);
    }
    const attempt = this.start(name, options);
    this.starting.set(name, attempt);
    const settle = () => {
      if (this.starting.get(name) === attempt) this.starting.delete(name);
    };
    attempt.then(settle, settle);
    return attempt;
  }

  /** One attempt to open `name`: reads its profile, then opens its store. */
  private async start(name: string, options: OpenOptions): Promise<SkillStore> {
    const profile = await this.source.get(name);
    const create = typeof options.create === 'function' ? options.create(profile) : options.create === true;
    const entry: Entry = this.entries.get(name) ?? { profile, state: { status: 'closed', since: new Date(this.clock()).toISOString() }, lastUsed: this.clock(), busy: 0 };
    entry.profile = profile;
    this.entries.set(name, entry);
    this.setState(name, entry, { status: 'opening' });
    entry.opening = this.source.open(profile, create ? { create: true } : {}).then(
      (store) => {
        entry.opening = undefined;
        if (this.closed || this.entries.get(name) !== entry) {
          void store.close();
          throw new WorkbenchError('unavailable', `connection '${name}' was closed while it was opening`);
        }
        entry.store = store;
        entry.lastUsed = this.clock();
        this.setState(name, entry, { status: 'open', description: store.description });
        return store;
      },
      (error: unknown) => {
        entry.opening = undefined;
        // A host that does not answer (or a folder that is gone) is offline; anything else cannot be opened as it is.
        this.setState(name, entry, { status: isOffline(error) ? 'offline' : 'error', error: toErrorData(error) });
        throw error;
      },
    );
    return entry.opening;
  }

  /**
   * Runs `fn` with the store of `name`, opening it first (`create: true` only
   * for a write, see {@link ConnectionPool.open}). A failure that means the
   * store stopped answering marks it `offline`; any answer marks it `open`.
   */
  async use<T>(name: string, fn: (store: SkillStore, profile: ConnectionProfile) => Promise<T>, options: OpenOptions = {}): Promise<T> {
    const store = await this.open(name, options);
    const entry = this.entries.get(name)!;
    entry.busy++;
    try {
      const result = await fn(store, entry.profile);
      this.setState(name, entry, { status: 'open', description: store.description });
      return result;
    } catch (error) {
      if (isOffline(error)) {
        // The state is said of the store, as the reachability probe says it; the caller still gets its request's error.
        this.setState(name, entry, { status: 'offline', description: store.description, error: toErrorData(notAnswering(store.description, error)) });
      } else if (error instanceof WorkbenchError) {
        this.setState(name, entry, { status: 'open', description: store.description });
      }
      throw error;
    } finally {
      entry.busy--;
      entry.lastUsed = this.clock();
    }
  }

  /** Closes the store of `name`; false when it was not open. */
  async close(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    const store = entry.store ?? (await entry.opening?.catch(() => undefined));
    await store?.close();
    if (entry.state.status !== 'closed') {
      entry.state = { status: 'closed', since: new Date(this.clock()).toISOString() };
      this.options.onState?.(name, entry.state);
    }
    return store !== undefined;
  }

  /** Closes a connection whose profile changed, so the next use opens it with the new settings. */
  async forget(name: string): Promise<void> {
    await this.close(name);
  }

  private async sweep(idleMs: number): Promise<void> {
    const now = this.clock();
    for (const [name, entry] of [...this.entries]) {
      if (entry.store && entry.busy === 0 && now - entry.lastUsed >= idleMs) await this.close(name).catch(() => undefined);
    }
  }

  /** Closes every store. Idempotent. */
  async closeAll(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.allSettled([...this.entries.keys()].map((name) => this.close(name)));
  }
}
