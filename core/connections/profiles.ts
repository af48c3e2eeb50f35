/**
 * Saved connection profiles: where a store is (local folder, Redis in any
 * topology, an admin API), how it is shown (label, environment label and
 * colour) and what it allows (read-only, protected). Profiles never hold a
 * secret: the schema refuses secret fields, and secrets live in a
 * {@link SecretStore} beside them.
 *
 * The file is `connections/profiles.json` under the app-data folder, replaced
 * atomically on every change, each change a read-modify-write under the
 * folder's lock, so processes sharing the folder never lose one another's. The built-in `default` profile (the embedded
 * registry of the app-data folder) is not in the file and cannot be changed.
 *
 * Node-only: uses node:fs.
 */
import { isAbsolute } from 'node:path';
import { join } from 'node:path';
import type { z } from 'zod';
import { WorkbenchError } from '../errors';
import type { ConnectionProfile, ConnectionTarget, ImportReport, ProfilesExport, SecretName } from './types';
import { profileSchemaFor, secretsInputSchema } from './types';
import { writeFileAtomic } from '../fs/atomic';
import { PRIVATE_FILE, SharedFileQueue, readSmallFile } from './files';
import { SECRET_NAMES, type SecretsPatch } from './secrets';

/** Name of the built-in profile of the embedded registry. */
export const DEFAULT_PROFILE = 'default';

/** The format name of an export document. */
export const EXPORT_FORMAT = 'skillbench.connections/v1';

const FILE_FORMAT = 'skillbench.profiles/v1';
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_PROFILES = 1000;

function pointerOf(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function invalid(what: string, error: z.ZodError, prefix: string): WorkbenchError {
  // The schema words a secret among a profile's fields itself, naming the field and never its value.
  const issues = error.issues.slice(0, 5).map((i) => `${prefix}${pointerOf(i.path)}: ${i.message}`);
  const first = error.issues[0];
  return new WorkbenchError('invalid_request', `${what}: ${issues.join('; ')}`, { details: { pointer: `${prefix}${first ? pointerOf(first.path) : ''}` } });
}

/** The profile schema with this platform's rule for absolute paths (the API boundary accepts either platform's). */
const profileSchema = profileSchemaFor(isAbsolute);

/** Parses a profile (form values or an imported entry); 400 naming each problem's JSON Pointer. */
export function parseProfile(input: unknown, options: { pointer?: string; now?: string } = {}): ConnectionProfile {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) throw invalid('invalid connection profile', parsed.error, options.pointer ?? '/profile');
  const p = parsed.data;
  const now = options.now ?? new Date().toISOString();
  return {
    name: p.name,
    label: p.label ?? p.name,
    environment: p.environment,
    read_only: p.read_only,
    protected: p.protected,
    ...(p.enforces_approvals && { enforces_approvals: true }),
    target: compactTarget(p.target),
    created_at: p.created_at ?? now,
    updated_at: p.updated_at ?? now,
  };
}

/** The target without keys set to undefined (a direct caller may pass them), as the file will hold it. */
function compactTarget(target: ConnectionTarget): ConnectionTarget {
  const compact: ConnectionTarget = JSON.parse(JSON.stringify(target));
  return compact;
}

/** The secret names a profile's target can use. */
export function secretNamesFor(target: ConnectionTarget): SecretName[] {
  switch (target.kind) {
    case 'local':
      return [];
    case 'redis':
      return target.topology === 'sentinel' ? ['password', 'sentinel_password'] : ['password'];
    case 'http':
      return [
        ...(target.auth === 'bearer' ? (['token'] as const) : []),
        ...(target.auth === 'basic' ? (['password'] as const) : []),
        ...(target.auth === 'headers' ? (['headers'] as const) : []),
        ...(target.proxy ? (['proxy_password'] as const) : []),
      ];
  }
}

/** Parses a secrets patch for `profile`: only the secret names its target uses. */
export function parseSecretsPatch(input: unknown, profile: ConnectionProfile): SecretsPatch {
  if (input === undefined) return {};
  const parsed = secretsInputSchema.safeParse(input);
  if (!parsed.success) {
    // Never echo a value: the messages name fields only.
    const first = parsed.error.issues[0];
    const where = `/secrets${first ? pointerOf(first.path) : ''}`;
    throw new WorkbenchError('invalid_request', `invalid secrets at ${where}: ${first?.code === 'unrecognized_keys' ? `unknown secret name (known: ${SECRET_NAMES.join(', ')})` : 'not a value this secret takes'}`, {
      details: { pointer: where },
    });
  }
  const allowed = new Set(secretNamesFor(profile.target));
  const patch: SecretsPatch = {};
  for (const [name, value] of Object.entries(parsed.data) as [SecretName, unknown][]) {
    if (value === undefined) continue;
    if (value !== null && !allowed.has(name)) {
      throw new WorkbenchError('invalid_request', `connection '${profile.name}' (${profile.target.kind}${profile.target.kind === 'http' ? `, auth ${profile.target.auth}` : ''}) does not use the secret '${name}'`, {
        details: { pointer: `/secrets/${name}` },
      });
    }
    patch[name] = value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return patch;
}

/** The built-in profile of the embedded registry of `dataDir`. */
export function defaultProfile(dataDir: string): ConnectionProfile {
  return {
    name: DEFAULT_PROFILE,
    label: 'Local registry',
    environment: null,
    read_only: false,
    protected: false,
    target: { kind: 'local', dir: join(dataDir, 'registry') },
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
  };
}

/**
 * Refuses an update that switches a guard off (`protected`, `enforces_approvals`):
 * a guard is lowered only on purpose, with the confirmation the caller asks for.
 */
function checkGuardsKept(existing: ConnectionProfile, next: ConnectionProfile): void {
  const lowered = [
    ...(existing.protected && !next.protected ? ['protected'] : []),
    ...(existing.enforces_approvals === true && next.enforces_approvals !== true ? ['enforces_approvals'] : []),
  ];
  if (lowered.length === 0) return;
  throw new WorkbenchError('forbidden', `connection '${existing.name}' is ${lowered.includes('protected') ? 'protected' : 'marked as enforcing approvals'}: switching ${lowered.join(' and ')} off needs a confirmation (confirm_unprotect: '${existing.name}')`, {
    details: { reason: 'protected_flag', pointer: `/profile/${lowered[0]}`, expected: existing.name },
  });
}

/** The saved profiles of an app-data folder. */
export class ProfileStore {
  readonly path: string;
  /** Every change reads the file, changes it and writes it back under the folder's lock: no process loses another's change. */
  private readonly queue: SharedFileQueue;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, 'connections', 'profiles.json');
    this.queue = new SharedFileQueue(join(dataDir, 'connections'), 'the saved connections');
  }

  private async readSaved(): Promise<ConnectionProfile[]> {
    const text = await readSmallFile(this.path, MAX_FILE_BYTES, 'the saved connections');
    if (text === undefined) return [];
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new WorkbenchError('invalid_request', `the saved connections file is not JSON (${(error as Error).message}): fix or remove connections/profiles.json in the app-data folder`, {
        details: { file: 'connections/profiles.json' },
      });
    }
    const doc = json as { format?: unknown; profiles?: unknown };
    if (!doc || doc.format !== FILE_FORMAT || !Array.isArray(doc.profiles)) {
      throw new WorkbenchError('invalid_request', `the saved connections file is not a ${FILE_FORMAT} document`, { details: { file: 'connections/profiles.json' } });
    }
    return doc.profiles.map((p, i) => parseProfile(p, { pointer: `/profiles/${i}` }));
  }

  private async writeSaved(profiles: ConnectionProfile[]): Promise<void> {
    const sorted = [...profiles].sort((a, b) => a.name.localeCompare(b.name));
    await writeFileAtomic(this.path, `${JSON.stringify({ format: FILE_FORMAT, profiles: sorted }, null, 2)}\n`, PRIVATE_FILE);
  }

  /** Every profile, the built-in `default` first, then by name. */
  async list(): Promise<ConnectionProfile[]> {
    const saved = await this.readSaved();
    return [defaultProfile(this.dataDir), ...saved.sort((a, b) => a.name.localeCompare(b.name))];
  }

  /** The profile named `name`; 404 naming the saved ones otherwise. */
  async get(name: string): Promise<ConnectionProfile> {
    const all = await this.list();
    const found = all.find((p) => p.name === name);
    if (found) return found;
    const names = all.map((p) => p.name);
    throw new WorkbenchError('not_found', `no connection named '${name}' (saved: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''})`, {
      details: { pointer: '/connection' },
    });
  }

  /**
   * Saves `profile`: a create when `previousName` is absent (409 when the name
   * is taken), an update when it equals the name, a rename otherwise (409 when
   * the new name is taken). Returns the stored profile.
   *
   * An update never lowers a guard silently: switching `protected` or
   * `enforces_approvals` off is 403 (`reason: protected_flag`) unless
   * `lowerGuards` says the user confirmed it.
   */
  save(profile: ConnectionProfile, previousName?: string, options: { lowerGuards?: boolean } = {}): Promise<ConnectionProfile> {
    return this.queue.run(async () => {
      if (profile.name === DEFAULT_PROFILE || previousName === DEFAULT_PROFILE) {
        throw new WorkbenchError('invalid_request', `'${DEFAULT_PROFILE}' is the built-in registry of the app-data folder and cannot be changed; save the profile under another name`, {
          details: { pointer: '/profile/name' },
        });
      }
      const saved = await this.readSaved();
      const now = new Date().toISOString();
      const existing = previousName === undefined ? undefined : saved.find((p) => p.name === previousName);
      if (previousName !== undefined && !existing) throw new WorkbenchError('not_found', `no saved connection named '${previousName}'`, { details: { pointer: '/previous_name' } });
      if (previousName !== profile.name && saved.some((p) => p.name === profile.name)) {
        throw new WorkbenchError('conflict', `a connection named '${profile.name}' exists already`, { details: { pointer: '/profile/name' } });
      }
      if (!existing && saved.length >= MAX_PROFILES) throw new WorkbenchError('payload_too_large', `at most ${MAX_PROFILES} connections can be saved`);
      if (existing && options.lowerGuards !== true) checkGuardsKept(existing, profile);
      const stored: ConnectionProfile = { ...profile, created_at: existing?.created_at ?? now, updated_at: now };
      await this.writeSaved([...saved.filter((p) => p.name !== previousName && p.name !== profile.name), stored]);
      return stored;
    });
  }

  /** Removes a saved profile; false when there was none. */
  remove(name: string): Promise<boolean> {
    return this.queue.run(async () => {
      if (name === DEFAULT_PROFILE) throw new WorkbenchError('invalid_request', `'${DEFAULT_PROFILE}' is built in and cannot be removed`);
      const saved = await this.readSaved();
      if (!saved.some((p) => p.name === name)) return false;
      await this.writeSaved(saved.filter((p) => p.name !== name));
      return true;
    });
  }

  /** The saved profiles named (all when `names` is absent) as a portable document: never a secret. */
  async exportProfiles(names?: readonly string[]): Promise<ProfilesExport> {
    const saved = await this.readSaved();
    if (names) for (const n of names) if (!saved.some((p) => p.name === n)) throw new WorkbenchError('not_found', `no saved connection named '${n}'`, { details: { pointer: '/names' } });
    const chosen = names ? saved.filter((p) => names.includes(p.name)) : saved;
    return {
      format: EXPORT_FORMAT,
      exported_at: new Date().toISOString(),
      profiles: chosen.map((p) => ({ name: p.name, label: p.label, environment: p.environment, read_only: p.read_only, protected: p.protected, ...(p.enforces_approvals && { enforces_approvals: true }), target: p.target })),
    };
  }

  /**
   * Imports an export document. Secrets are never taken from it: a secret
   * field anywhere refuses the document. Names taken already are skipped,
   * replaced, or imported under `NAME-2`, `NAME-3`… as `onConflict` says.
   */
  async importProfiles(document: unknown, onConflict: 'skip' | 'replace' | 'rename'): Promise<ImportReport> {
    const doc = document as { format?: unknown; profiles?: unknown } | null;
    if (!doc || typeof doc !== 'object' || doc.format !== EXPORT_FORMAT || !Array.isArray(doc.profiles)) {
      throw new WorkbenchError('invalid_request', `not a connections export: expected {"format": "${EXPORT_FORMAT}", "profiles": [...]}`, { details: { pointer: '/document' } });
    }
    if (doc.profiles.length > MAX_PROFILES) throw new WorkbenchError('payload_too_large', `an import holds at most ${MAX_PROFILES} profiles`);
    const incoming = doc.profiles.map((p, i) => parseProfile(p, { pointer: `/document/profiles/${i}` }));
    const seenNames = new Set<string>();
    for (const [i, p] of incoming.entries()) {
      if (seenNames.has(p.name)) throw new WorkbenchError('invalid_request', `the import names '${p.name}' twice`, { details: { pointer: `/document/profiles/${i}/name` } });
      seenNames.add(p.name);
    }
    return this.queue.run(async () => {
      const saved = await this.readSaved();
      const taken = new Set([DEFAULT_PROFILE, ...saved.map((p) => p.name)]);
      const report: ImportReport = { imported: [], replaced: [], skipped: [], renamed: [] };
      const now = new Date().toISOString();
      let next = [...saved];
      for (const p of incoming) {
        const stamped = { ...p, created_at: now, updated_at: now };
        if (!taken.has(p.name)) {
          next.push(stamped);
          taken.add(p.name);
          report.imported.push(p.name);
        } else if (onConflict === 'skip' || p.name === DEFAULT_PROFILE) {
          report.skipped.push(p.name);
        } else if (onConflict === 'replace') {
          const old = next.find((q) => q.name === p.name);
          next = next.filter((q) => q.name !== p.name);
          // An import never lowers a guard: the replaced profile's protection stays.
          const kept = { protected: stamped.protected || old?.protected === true, ...((stamped.enforces_approvals || old?.enforces_approvals) && { enforces_approvals: true }) };
          next.push({ ...stamped, ...kept, created_at: old?.created_at ?? now });
          report.replaced.push(p.name);
        } else {
          let n = 2;
          let candidate = `${p.name.slice(0, 60)}-${n}`;
          while (taken.has(candidate)) candidate = `${p.name.slice(0, 60)}-${++n}`;
          next.push({ ...stamped, name: candidate });
          taken.add(candidate);
          report.renamed.push({ from: p.name, to: candidate });
        }
      }
      if (report.imported.length + report.replaced.length + report.renamed.length > 0) await this.writeSaved(next);
      return report;
    });
  }
}
