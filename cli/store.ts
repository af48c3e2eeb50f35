/**
 * What the store commands (publish, get, versions, delete, list) share: opening the
 * `--from`/`--to` connection (the seeded default registry when absent), ETag input,
 * and error reporting with findings as `file:line:column`.
 */
import { WorkbenchError } from '../core/errors';
import type { Finding } from '../core/package/types';
import type { ConnectionProfile } from '../core/api/contract';
import { appDataDir, defaultConnection, redactConnection } from '../core/store/connect';
import { StoreError } from '../core/store/errors';
import { openSeededStore } from '../core/store/seed';
import type { SkillStore } from '../core/store/types';
import { UsageError, exitCodeFor, isExpected } from './exit';
import { type CliIo, printJsonDocument, say } from './io';

/**
 * The guarded saved profile (protected, read-only, or on a host that enforces
 * approvals) whose store `connection` names (the default registry when
 * absent): the same folder after resolving links, the same Redis deployment,
 * or the same base URL. Typing the store instead of the profile's name is no
 * way around its guard.
 */
export async function guardingProfileOf(connection: string | undefined, io: CliIo): Promise<ConnectionProfile | undefined> {
  const [{ ConnectionManager }, { guardingProfile }] = await Promise.all([import('../core/connections/manager'), import('../core/connections/identity')]);
  const manager = new ConnectionManager({ dataDir: appDataDir(io.env), env: io.env });
  return guardingProfile(connection ?? defaultConnection(io.env), io.cwd, await manager.list());
}

/** A write the profile refuses is refused before anything is opened (or created). */
async function refuseWrite(profile: ConnectionProfile, action: 'publish' | 'delete'): Promise<void> {
  const { protectedError, readOnlyError, requiresApproval } = await import('../core/connections/open');
  if (profile.read_only) throw readOnlyError(profile, action);
  if (requiresApproval(profile)) throw protectedError(profile, action);
}

/**
 * Opens the connection a command names: a saved profile by name (with its saved
 * secrets, read-only and protected flags), a connection string, or (absent) the
 * default local registry, seeded with the examples the first time it is found
 * empty. A connection string that names the store of a guarded profile wears
 * that profile's guard. A named `local:` registry is created only for a write
 * (`create`); a read of one that does not exist fails with `not_found` (exit 5)
 * and creates nothing. A write (`create` for a publish, `delete`) the guard
 * refuses is refused before anything is opened. `asHost` is for an approval-enforcing host only: it
 * checks every write itself, so the protected guard stays off (read-only stays).
 */
export async function openCliStore(connection: string | undefined, io: CliIo, options: { create?: boolean; delete?: boolean; asHost?: boolean } = {}): Promise<SkillStore> {
  const write = options.asHost === true ? undefined : options.create === true ? 'publish' : options.delete === true ? 'delete' : undefined;
  // Saved profiles load on demand: a read of the default registry needs none of their machinery (zod, the API contract).
  // A write anywhere, a host, or a named connection looks for the profile that guards its store.
  if (connection === undefined && write === undefined && options.asHost !== true) return openSeeded(connection, io, options);
  const profiles = await import('../core/connections/manager');
  if (connection !== undefined && profiles.isProfileName(connection.trim())) {
    const manager = new profiles.ConnectionManager({ dataDir: appDataDir(io.env), env: io.env });
    const profile = await manager.get(connection.trim());
    if (write) await refuseWrite(profile, write);
    return manager.open(profile, { create: options.create === true, asHost: options.asHost === true });
  }
  const guard = await guardingProfileOf(connection, io);
  if (guard && write) await refuseWrite(guard, write);
  const store = await openSeeded(connection, io, options);
  if (!guard) return store;
  const { guardStore } = await import('../core/connections/open');
  return guardStore(store, options.asHost === true ? { ...guard, protected: false, enforces_approvals: false } : guard);
}

/** A connection string (or the default registry, seeded with the examples the first time it is found empty). */
async function openSeeded(connection: string | undefined, io: CliIo, options: { create?: boolean }): Promise<SkillStore> {
  const { store, seed } = await openSeededStore(connection, { cwd: io.cwd, env: io.env, create: options.create === true });
  if (seed && seed.published.length > 0) {
    say(io, `skillbench: seeded ${store.description} with ${seed.published.length} example skill${seed.published.length === 1 ? '' : 's'}`);
  }
  for (const skip of seed?.skipped ?? []) say(io, `skillbench: example ${skip.file} not seeded: ${skip.message}`);
  return store;
}

/** A secret-free name of the connection, for messages. */
export function connectionLabel(connection: string | undefined, io: CliIo): string {
  return redactConnection(connection ?? defaultConnection(io.env));
}

/**
 * An ETag as typed on a command line: shells strip the quotes of `"v3-…"`, so a
 * bare tag gets its quotes back; `W/"…"` and quoted tags pass through.
 */
export function etagArg(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v.length === 0) throw new UsageError('--if-match needs an ETag');
  if (v.startsWith('"') || v.startsWith('W/"')) return v;
  return `"${v}"`;
}

/** One finding the way `skillbench validate` prints it: `file:line:column: severity code: message`. */
export function formatFinding(file: string, finding: Finding): string {
  const where = finding.line !== undefined ? `${file}:${finding.line}:${finding.column ?? 1}` : file;
  return `${where}: ${finding.severity} ${finding.code}: ${finding.message}`;
}

/**
 * Reports a failed store command and returns its exit code: the message (and any
 * validation findings) on stderr, and with `--json` the error as data on stdout.
 * Usage errors are rethrown so the command's usage text is shown.
 */
export function reportFailure(io: CliIo, command: string, error: unknown, options: { json: boolean; file?: string }): number {
  if (error instanceof UsageError) throw error;
  if (!isExpected(error)) {
    // A bug, not a store answer: main prints it as an internal error (exit 7).
    if (options.json) printJsonDocument(io, 'error', { error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } });
    throw error;
  }
  if (error instanceof WorkbenchError) {
    say(io, `skillbench ${command}: ${error.message}`);
    if (error instanceof StoreError) {
      const details = error.details ?? {};
      const errors = Array.isArray(details['errors']) ? (details['errors'] as Finding[]) : [];
      const warnings = Array.isArray(details['warnings']) ? (details['warnings'] as Finding[]) : [];
      for (const f of [...errors, ...warnings]) say(io, formatFinding(options.file ?? '<package>', f));
    }
    if (options.json) printJsonDocument(io, 'error', { error: error.toJSON() });
    return exitCodeFor(error);
  }
  const message = error instanceof Error ? error.message : String(error);
  say(io, `skillbench ${command}: ${message}`);
  if (options.json) printJsonDocument(io, 'error', { error: { code: 'unavailable', message } });
  return exitCodeFor(error);
}

/**
 * Opens the store, runs `fn` with it, closes it, and turns any store failure into
 * a reported exit code (see {@link reportFailure}).
 */
export async function withStore(
  io: CliIo,
  connection: string | undefined,
  context: { command: string; json: boolean; file?: string; create?: boolean; delete?: boolean },
  fn: (store: SkillStore) => Promise<number>,
): Promise<number> {
  let store: SkillStore | undefined;
  try {
    store = await openCliStore(connection, io, { create: context.create === true, delete: context.delete === true });
    return await fn(store);
  } catch (error) {
    return reportFailure(io, context.command, error, context);
  } finally {
    await store?.close();
  }
}

/** Parses `namespace/name` from a positional argument, or throws a usage error. */
export function skillArg(value: string | undefined): { namespace: string; name: string } {
  if (value === undefined) throw new UsageError('missing skill identity <namespace>/<name>');
  const parts = value.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new UsageError(`invalid skill identity '${value}': expected <namespace>/<name>`);
  }
  return { namespace: parts[0], name: parts[1] };
}
