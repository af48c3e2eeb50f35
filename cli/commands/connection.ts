/**
 * `skillbench connection add|list|test|remove`: the saved connections the
 * workbench's sidebar shows, from the command line, so `--to prod` works on a
 * machine that never ran the workbench. Profiles and their secrets live in the
 * app-data folder (docs/connections.md); a secret is read from an environment
 * variable, never from the command line.
 */
import { ConnectionManager, isProfileName } from '../../core/connections/manager';
import { describeTarget } from '../../core/connections/check';
import { connectionTarget } from '../../core/connections/fromString';
import type { ProfileSecrets } from '../../core/connections/secrets';
import { DEFAULT_PROFILE } from '../../core/connections/profiles';
import { appDataDir } from '../../core/store/connect';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { reportFailure } from '../store';

const json = { json: { type: 'boolean' } } as const;

function manager(io: CliIo): ConnectionManager {
  return new ConnectionManager({ dataDir: appDataDir(io.env), env: io.env });
}

async function guarded(io: CliIo, command: string, asJson: boolean, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (error) {
    return reportFailure(io, `connection ${command}`, error, { json: asJson });
  }
}

function nameArg(positionals: string[], what: string): string {
  const name = positionals[0];
  if (name === undefined) throw new UsageError(`missing the connection's NAME${what}`);
  if (!isProfileName(name)) throw new UsageError(`invalid connection name '${name}': lowercase letters, digits and inner hyphens, at most 64`);
  return name;
}

/** A secret from the variable a flag names: present and non-empty, or a usage error. */
function secretFromEnv(io: CliIo, flag: string, variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const value = io.env[variable];
  if (value === undefined || value === '') throw new UsageError(`${flag} ${variable}: the variable is not set`);
  return value;
}

export const addCommand: Command = {
  summary: 'save a connection under a name, for --from/--to NAME',
  usage: `Usage: skillbench connection add NAME CONNECTION [--label TEXT] [--read-only] [--protected]
                                [--token-env NAME] [--password-env NAME] [--json]

Saves CONNECTION (local:DIR, redis://..., rediss://..., redis+sentinel://...,
redis+cluster://..., http(s)://.../api/v1/skills) as NAME, the way the
workbench's Connections view does. A relative folder is made absolute.

  --label TEXT         the name the workbench shows (default: NAME)
  --read-only          refuse every write through this connection
  --protected          publish only approved review requests through it
  --token-env NAME     an admin API's bearer token, read from variable NAME
  --password-env NAME  a Redis password, read from variable NAME (a password in the
                       URL is taken too, but stays in your shell's history)
  --json               print the saved profile

Secrets are saved sealed beside the profiles, never in them. Exit status: 0
saved, 2 usage, 4 when NAME exists (remove it first).`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      ...json,
      label: { type: 'string' },
      'read-only': { type: 'boolean' },
      protected: { type: 'boolean' },
      'token-env': { type: 'string' },
      'password-env': { type: 'string' },
    });
    const name = nameArg(positionals, ' and the CONNECTION to save');
    const text = positionals[1];
    if (text === undefined) throw new UsageError('missing the CONNECTION to save');
    if (positionals.length > 2) throw new UsageError(`unexpected argument '${positionals[2]}'`);
    if (name === DEFAULT_PROFILE) throw new UsageError(`'${DEFAULT_PROFILE}' is the built-in registry and cannot be replaced`);
    const asJson = values.json === true;
    return guarded(io, 'add', asJson, async () => {
      const { target, secrets } = connectionTarget(text, io.cwd);
      const token = secretFromEnv(io, '--token-env', values['token-env']);
      const password = secretFromEnv(io, '--password-env', values['password-env']);
      if (token !== undefined && target.kind !== 'http') throw new UsageError('--token-env applies to an http(s) admin API connection');
      if (password !== undefined && target.kind !== 'redis') throw new UsageError('--password-env applies to a Redis connection');
      const saved: ProfileSecrets = { ...secrets, ...(password !== undefined && { password }), ...(token !== undefined && { token }) };
      const finalTarget = token !== undefined && target.kind === 'http' ? { ...target, auth: 'bearer' as const } : target;
      const profile = await manager(io).save({
        profile: {
          name,
          ...(values.label !== undefined && { label: values.label }),
          read_only: values['read-only'] === true,
          protected: values.protected === true,
          target: finalTarget,
        },
        secrets: saved,
      });
      say(io, `skillbench connection add: saved '${profile.name}' (${describeTarget(profile)})${Object.keys(saved).length > 0 ? ` with its ${Object.keys(saved).join(', ')}` : ''}`);
      if (asJson) printJsonDocument(io, 'connection', { profile });
      return EXIT.ok;
    });
  },
};

export const listCommand: Command = {
  summary: 'list the saved connections',
  usage: `Usage: skillbench connection list [--names] [--json]

Lists the saved connections (the built-in 'default' registry first) with where
each points and its guards. Secrets are never shown, only which are saved.

  --names  print only the names, one a line (for scripts and shell completion)
  --json   print {format, connections: [{profile, secrets}]}`,
  async run(args, io) {
    const { values, positionals } = parse(args, { ...json, names: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const asJson = values.json === true;
    return guarded(io, 'list', asJson, async () => {
      const m = manager(io);
      const profiles = await m.list();
      if (values.names === true) {
        for (const p of profiles) io.stdout.write(`${p.name}\n`);
        return EXIT.ok;
      }
      const rows = await Promise.all(profiles.map(async (profile) => ({ profile, secrets: await m.secretsPresence(profile.name) })));
      if (asJson) printJsonDocument(io, 'connections', { connections: rows });
      else {
        const width = Math.max(4, ...profiles.map((p) => p.name.length));
        for (const { profile, secrets } of rows) {
          const guards = [profile.read_only && 'read-only', profile.protected && 'protected', ...Object.keys(secrets).filter((k) => secrets[k as keyof typeof secrets]).map((k) => `${k} saved`)].filter(Boolean);
          io.stdout.write(`${profile.name.padEnd(width)}  ${describeTarget(profile)}${guards.length > 0 ? `  (${guards.join(', ')})` : ''}\n`);
        }
      }
      return EXIT.ok;
    });
  },
};

export const testCommand: Command = {
  summary: 'check that a saved connection answers, and say why not',
  usage: `Usage: skillbench connection test NAME [--json]

Opens the saved connection NAME with its secrets, reads its catalog and says
what it found or why it failed (refused, DNS, TLS, credentials, wrong URL, ...).
Nothing is created or written.

  --json  print {format, name, result: {ok, cause, message, description, skills}}

Exit status: 0 when it answers, 6 when it does not, 8 when the credentials are
refused, 5 when no connection has that name.`,
  async run(args, io) {
    const { values, positionals } = parse(args, json);
    const name = nameArg(positionals, ' to test');
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
    const asJson = values.json === true;
    return guarded(io, 'test', asJson, async () => {
      const result = await manager(io).test({ name });
      say(io, `skillbench connection test: ${name}: ${result.ok ? 'ok' : `failed (${result.cause ?? 'unavailable'})`}: ${result.message}`);
      if (asJson) printJsonDocument(io, 'connection-test', { name, result });
      if (result.ok) return EXIT.ok;
      return result.cause === 'auth' || result.cause === 'forbidden' ? EXIT.denied : EXIT.unavailable;
    });
  },
};

export const removeCommand: Command = {
  summary: 'remove a saved connection and its secrets',
  usage: `Usage: skillbench connection remove NAME [--json]

Removes the saved connection NAME and its saved secrets. The store it points
to is not touched.

  --json  print {format, name, removed}

Exit status: 0 removed, 5 when no connection has that name.`,
  async run(args, io) {
    const { values, positionals } = parse(args, json);
    const name = nameArg(positionals, ' to remove');
    if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
    if (name === DEFAULT_PROFILE) throw new UsageError(`'${DEFAULT_PROFILE}' is the built-in registry and cannot be removed`);
    const asJson = values.json === true;
    return guarded(io, 'remove', asJson, async () => {
      const removed = await manager(io).remove(name);
      say(io, removed ? `skillbench connection remove: removed '${name}'` : `skillbench connection remove: no connection named '${name}'`);
      if (asJson) printJsonDocument(io, 'connection-remove', { name, removed });
      return removed ? EXIT.ok : EXIT.notFound;
    });
  },
};
