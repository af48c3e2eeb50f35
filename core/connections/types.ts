/**
 * The connection domain's types: the profile schema (what a saved connection
 * may hold, checked at the API boundary and again by the profile store), the
 * types derived from it, and the secret-free shapes connections report.
 *
 * Isomorphic: no `node:` imports (the API contract, the renderer and the
 * preload import it).
 */
import { z } from 'zod';
import { noControlCharacters, slug } from '../textRules';

/** The name of a saved connection profile (`default` is the embedded registry). */
export const connectionNameSchema = slug('a connection name');

type PathText = (what: string) => z.ZodType<string, string>;

/** An absolute path on POSIX (`/srv/r`) or Windows (`C:\\r`, `\\\\host\\share`): the API cannot know the engine's platform. */
export function isPortableAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

/** Fields a profile must never hold: their values are secrets. */
export const SECRET_FIELDS = /^(password|pass|pwd|token|secret|api_?key|authorization|headers|sentinel_password|proxy_password|credentials)$/i;

/** Names a secret found among a profile's fields, so the refusal says where it belongs (and never echoes its value). */
const secretRefusal = {
  error: (issue: { code?: string; keys?: readonly string[] }) => {
    const key = issue.code === 'unrecognized_keys' ? issue.keys?.find((k) => SECRET_FIELDS.test(k)) : undefined;
    return key ? `'${key}' is a secret: pass it in the secrets, never in the profile` : undefined;
  },
};

const HOST = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

const timeout = z.number().int().min(100).max(600_000);

/** An http(s) URL without credentials, query or fragment (credentials go into secrets). */
const httpUrl = (what: string) =>
  z
    .string()
    .max(2048)
    .superRefine((text, ctx) => {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${what} is not a URL` });
        return;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: `${what} must start with http:// or https://` });
      if (url.username || url.password) ctx.addIssue({ code: 'custom', message: `${what} must not carry a user name or password: save them as the connection's secrets` });
      if (url.search || url.hash) ctx.addIssue({ code: 'custom', message: `${what} must not carry a query or fragment` });
    });

const hostPort = z.strictObject({
  host: z.string().max(253).regex(HOST, 'a host name or IP address'),
  port: z.number().int().min(1).max(65535),
});

const localTarget = (pathText: PathText) => z.strictObject({ kind: z.literal('local'), dir: pathText('the registry folder') }, secretRefusal);

const redisTarget = (pathText: PathText) =>
  z
  .strictObject(
    {
      kind: z.literal('redis'),
      topology: z.enum(['standalone', 'sentinel', 'cluster']).default('standalone'),
      hosts: z.array(hostPort).min(1).max(64),
      master_name: z.string().min(1).max(200).regex(/^[A-Za-z0-9._-]+$/, 'a Sentinel master name').optional(),
      username: z.string().min(1).max(200).optional(),
      deployment: slug('a deployment').default('default'),
      tls: z.strictObject({ ca_file: pathText('the CA file').optional(), servername: z.string().min(1).max(253).regex(HOST, 'a server name').optional() }).optional(),
      sentinel_username: z.string().min(1).max(200).optional(),
      connect_timeout_ms: timeout.optional(),
      command_timeout_ms: timeout.optional(),
    },
    secretRefusal,
  )
  .superRefine((t, ctx) => {
    if (t.topology === 'sentinel' && !t.master_name) ctx.addIssue({ code: 'custom', path: ['master_name'], message: 'a Sentinel profile needs the master group name' });
    if (t.topology !== 'sentinel' && t.master_name) ctx.addIssue({ code: 'custom', path: ['master_name'], message: 'only a Sentinel profile has a master name' });
    if (t.topology !== 'sentinel' && t.sentinel_username) ctx.addIssue({ code: 'custom', path: ['sentinel_username'], message: 'only a Sentinel profile has Sentinel credentials' });
    if (t.topology === 'standalone' && t.hosts.length > 1) ctx.addIssue({ code: 'custom', path: ['hosts'], message: 'a standalone profile has one host' });
  });

const httpTarget = (pathText: PathText) =>
  z
  .strictObject(
    {
      kind: z.literal('http'),
      url: httpUrl('the admin API URL'),
      auth: z.enum(['none', 'bearer', 'basic', 'headers']).default('none'),
      username: z.string().min(1).max(200).regex(/^[^:]*$/, 'a Basic user name has no colon').optional(),
      header_names: z.array(z.string().regex(HEADER_NAME, 'an HTTP header name')).max(32).optional(),
      ca_file: pathText('the CA file').optional(),
      proxy: httpUrl('the proxy URL').optional(),
      proxy_username: z.string().min(1).max(200).optional(),
      timeout_ms: timeout.optional(),
    },
    secretRefusal,
  )
  .superRefine((t, ctx) => {
    if (t.auth === 'basic' && !t.username) ctx.addIssue({ code: 'custom', path: ['username'], message: 'Basic authentication needs a user name' });
    if (t.auth !== 'basic' && t.username) ctx.addIssue({ code: 'custom', path: ['username'], message: 'a user name is only used with Basic authentication' });
    if (t.proxy_username && !t.proxy) ctx.addIssue({ code: 'custom', path: ['proxy_username'], message: 'a proxy user name needs a proxy URL' });
  });

/**
 * The schema of a profile as the form or an import gives it (timestamps are
 * the store's), with `isAbsolute` deciding which paths are absolute: the API
 * boundary accepts a POSIX or a Windows absolute path
 * ({@link profileInputSchema}); the profile store checks with the platform's
 * own rule.
 */
export function profileSchemaFor(isAbsolute: (path: string) => boolean) {
  const pathText: PathText = (what) =>
    z
      .string()
      .min(1)
      .max(4096)
      .refine(...noControlCharacters(what))
      .refine((p) => isAbsolute(p), `${what} must be an absolute path`);
  return z.strictObject(
    {
  name: connectionNameSchema,
  label: z.string().trim().min(1).max(100).optional(),
  environment: z
    .strictObject({
      label: z.string().trim().min(1).max(40),
      colour: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb').transform((c) => c.toLowerCase()),
    })
    .nullable()
    .default(null),
  read_only: z.boolean().default(false),
  protected: z.boolean().default(false),
  enforces_approvals: z.boolean().default(false),
  target: z.discriminatedUnion('kind', [localTarget(pathText), redisTarget(pathText), httpTarget(pathText)]),
  created_at: z.string().max(40).optional(),
  updated_at: z.string().max(40).optional(),
    },
    secretRefusal,
  );
}

/** Secret values as a form sends them: strings (headers as an object), null to remove. */
export const secretsInputSchema = z.strictObject({
  password: z.string().min(1).max(4096).nullable().optional(),
  sentinel_password: z.string().min(1).max(4096).nullable().optional(),
  token: z.string().min(1).max(16_384).nullable().optional(),
  headers: z.record(z.string().regex(HEADER_NAME, 'an HTTP header name'), z.string().max(16_384)).nullable().optional(),
  proxy_password: z.string().min(1).max(4096).nullable().optional(),
});

/** A profile as the form or an import gives it; {@link profileInputSchema} checks it. */
export const profileInputSchema = profileSchemaFor(isPortableAbsolutePath);

/** A profile as a caller may give it (defaults may be omitted). */
export type ProfileInput = z.input<typeof profileInputSchema>;

/**
 * Where a profile points. Paths are absolute; URLs carry no credentials
 * (secrets are saved separately and never cross the API).
 */
export type ConnectionTarget = z.output<typeof profileInputSchema>['target'];

/** How a profile is shown: an environment label (e.g. `production`) and its colour (`#rrggbb`). */
export interface ProfileEnvironment {
  label: string;
  colour: string;
}

/** A saved connection profile: never a secret in it. */
export interface ConnectionProfile {
  name: string;
  label: string;
  environment: ProfileEnvironment | null;
  /** Every write through this profile is refused. */
  read_only: boolean;
  /** Publishes and deletes only through approved review requests (a rail of this client). */
  protected: boolean;
  /**
   * The host behind this profile enforces approvals itself (`skillbench registry
   * serve --require-approval`): writes go only through approved review requests,
   * which carry their signed attestation. Absent means false.
   */
  enforces_approvals?: boolean;
  target: ConnectionTarget;
  created_at: string;
  updated_at: string;
}

/** Names of the secret kinds a profile can have. */
export type SecretName = 'password' | 'sentinel_password' | 'token' | 'headers' | 'proxy_password';

/** Which secrets a profile has saved: names only, never values. */
export type SecretsPresence = Partial<Record<SecretName, boolean>>;

/** How saved secrets are protected at rest. */
export type SecretProtection = 'os-keychain' | 'key' | 'file-permissions';

/** Why a connection test failed. */
export type ConnectionTestCause =
  | 'refused'
  | 'dns'
  | 'tls'
  | 'auth'
  | 'forbidden'
  | 'wrong_base_url'
  | 'not_admin_api'
  | 'wrong_deployment'
  | 'wrong_master'
  | 'wrong_topology'
  | 'timeout'
  | 'not_a_registry'
  | 'invalid'
  | 'unavailable';

/** The outcome of a connection test; never a secret in it. */
export interface ConnectionTestResult {
  ok: boolean;
  cause?: ConnectionTestCause;
  /** One sentence a user can act on. */
  message: string;
  description: string;
  skills?: number;
  deployments?: string[];
  suggested_url?: string;
  created_on_first_write?: boolean;
}

/** An exported set of profiles: no secrets, portable between machines. */
export interface ProfilesExport {
  format: 'skillbench.connections/v1';
  exported_at?: string;
  profiles: (Omit<ConnectionProfile, 'created_at' | 'updated_at' | 'label'> & { label?: string; created_at?: string; updated_at?: string })[];
}

/** What an import did, profile by profile. */
export interface ImportReport {
  imported: string[];
  replaced: string[];
  skipped: string[];
  renamed: { from: string; to: string }[];
}

