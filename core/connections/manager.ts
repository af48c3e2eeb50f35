/**
 * The connections of a host: the saved profiles and their secrets behind one
 * object, the {@link ConnectionSource} the service's pool opens stores from,
 * plus save, remove, test, import and export. Stores opened here wear the
 * profile's guard (read-only, protected).
 *
 * Node-only.
 */
import { join } from 'node:path';
import type { ConnectionProfile, ConnectionTestResult, ImportReport, ProfilesExport, SecretProtection, SecretsPresence } from './types';
import type { ConnectionSource } from '../api/pool';
import type { SkillStore } from '../store/types';
import { checkConnection } from './check';
import { guardStore, openProfileStore } from './open';
import { DEFAULT_PROFILE, ProfileStore, parseProfile, parseSecretsPatch, secretNamesFor } from './profiles';
import { FileSecretStore, type ProfileSecrets, type SecretStore } from './secrets';

/** Options of {@link ConnectionManager}. */
export interface ConnectionManagerOptions {
  /** The app-data folder: profiles in `connections/profiles.json`, the default registry in `registry/`. */
  dataDir: string;
  env?: Record<string, string | undefined>;
  /** Where secrets are kept (default: the sealed file of the app-data folder). */
  secrets?: SecretStore;
}

/** Saved profiles with their secrets. */
export class ConnectionManager implements ConnectionSource {
  readonly profiles: ProfileStore;
  readonly secrets: SecretStore;
  private readonly env: Record<string, string | undefined>;

  constructor(private readonly options: ConnectionManagerOptions) {
    this.profiles = new ProfileStore(options.dataDir);
    this.secrets = options.secrets ?? new FileSecretStore(join(options.dataDir, 'connections'), { env: options.env ?? {} });
    this.env = options.env ?? {};
  }

  get secretProtection(): SecretProtection {
    return this.secrets.protection;
  }

  list(): Promise<ConnectionProfile[]> {
    return this.profiles.list();
  }

  get(name: string): Promise<ConnectionProfile> {
    return this.profiles.get(name);
  }

  private async secretsOf(profile: ConnectionProfile): Promise<ProfileSecrets> {
    if (profile.name === DEFAULT_PROFILE || secretNamesFor(profile.target).length === 0) return {};
    return this.secrets.get(profile.name);
  }

  /**
   * Opens the store of `profile`, guarded by its flags. Opening is a read and
   * creates nothing: a local registry that does not exist is `not_found`, its
   * missing folder `unavailable`; only `create: true` (a write) creates it.
   * `asHost` leaves the protected guard off: only for an approval-enforcing
   * host (`registry serve --require-approval`), which checks every write itself.
   */
  async open(profile: ConnectionProfile, options: { create?: boolean; asHost?: boolean } = {}): Promise<SkillStore> {
    const store = await openProfileStore(profile, await this.secretsOf(profile), { dataDir: this.options.dataDir, env: this.env, create: options.create === true });
    return guardStore(store, options.asHost === true ? { ...profile, protected: false, enforces_approvals: false } : profile);
  }

  /** Opens a profile by name (the CLI's `--to NAME`). */
  async openByName(name: string, options: { create?: boolean; asHost?: boolean } = {}): Promise<{ profile: ConnectionProfile; store: SkillStore }> {
    const profile = await this.get(name);
    return { profile, store: await this.open(profile, options) };
  }

  secretsPresence(name: string): Promise<SecretsPresence> {
    return name === DEFAULT_PROFILE ? Promise.resolve({}) : this.secrets.presence(name);
  }

  /**
   * Creates, updates or renames a profile (see `ProfileStore.save`) and
   * patches its secrets. Secrets a changed target no longer uses are dropped.
   * Switching `protected` or `enforces_approvals` off takes `confirm_unprotect`
   * equal to the saved profile's name (the workbench asks the user to type it).
   */
  async save(input: { profile: unknown; previous_name?: string | undefined; secrets?: unknown; confirm_unprotect?: string | undefined }): Promise<ConnectionProfile> {
    const profile = parseProfile(input.profile);
    const patch = parseSecretsPatch(input.secrets, profile);
    const lowerGuards = input.confirm_unprotect !== undefined && input.confirm_unprotect === (input.previous_name ?? profile.name);
    const stored = await this.profiles.save(profile, input.previous_name, { lowerGuards });
    if (input.previous_name !== undefined && input.previous_name !== profile.name) await this.secrets.rename(input.previous_name, profile.name);
    const used = new Set(secretNamesFor(profile.target));
    const present = await this.secrets.presence(profile.name);
    for (const name of Object.keys(present) as (keyof typeof present)[]) if (!used.has(name) && patch[name] === undefined) patch[name] = null;
    if (Object.keys(patch).length > 0) await this.secrets.update(profile.name, patch);
    return stored;
  }

  /** Removes a profile and its secrets. */
  async remove(name: string): Promise<boolean> {
    const removed = await this.profiles.remove(name);
    await this.secrets.remove(name);
    return removed;
  }

  /**
   * Tests a saved profile, or form values with the secrets typed (secrets not
   * typed are taken from the saved profile of the same name, if any).
   */
  async test(params: { name: string } | { profile: unknown; secrets?: unknown }): Promise<ConnectionTestResult> {
    let profile: ConnectionProfile;
    let secrets: ProfileSecrets;
    if ('name' in params) {
      profile = await this.get(params.name);
      secrets = await this.secretsOf(profile);
    } else {
      profile = parseProfile(params.profile);
      const patch = parseSecretsPatch(params.secrets, profile);
      const saved = await this.profiles.list();
      secrets = saved.some((p) => p.name === profile.name) && profile.name !== DEFAULT_PROFILE ? await this.secrets.get(profile.name).catch(() => ({})) : {};
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete secrets[k as keyof ProfileSecrets];
        else if (v !== undefined) secrets[k as keyof ProfileSecrets] = v;
      }
    }
    return checkConnection(profile, secrets, { dataDir: this.options.dataDir, env: this.env });
  }

  exportProfiles(names?: readonly string[]): Promise<ProfilesExport> {
    return this.profiles.exportProfiles(names);
  }

  /** Imports profiles (never secrets); a replaced profile loses its saved secrets, since its target may be another host now. */
  async importProfiles(document: unknown, onConflict: 'skip' | 'replace' | 'rename'): Promise<ImportReport> {
    const report = await this.profiles.importProfiles(document, onConflict);
    for (const name of report.replaced) await this.secrets.remove(name);
    return report;
  }

  /** Replaces every saved secret value in `text` with `***`. */
  redact(text: string): string {
    let out = text;
    for (const value of this.secrets.knownValues()) {
      if (value.length >= 4 && out.includes(value)) out = out.split(value).join('***');
    }
    return out;
  }
}

/** True when `value` names a profile rather than being a connection string. */
export function isProfileName(value: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(value) && value.length <= 64;
}
