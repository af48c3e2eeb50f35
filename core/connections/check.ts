/**
 * *Test connection*: opens a profile's store once with a short time budget and
 * names the cause of a failure (refused, DNS, TLS, credentials, permission,
 * wrong base URL, not an admin API, wrong deployment namespace, an unknown
 * Sentinel master group, another Redis topology, timeout), with
 * what a user can do about it. Saves nothing, creates nothing (a local folder
 * that does not exist yet is reported as created on the first write).
 *
 * Node-only: opens sockets and files.
 */
import { stat } from 'node:fs/promises';
import { WorkbenchError } from '../errors';
import type { ConnectionProfile, ConnectionTestCause, ConnectionTestResult } from './types';
import { redactConnection } from '../store/connect';
import type { SkillStore } from '../store/types';
import { openProfileStore, redisUrlOf, type OpenProfileOptions } from './open';
import type { ProfileSecrets } from './secrets';

/** Default time budget of one test. */
export const TEST_TIMEOUT_MS = 5_000;

/** Where a profile points, secret-free. */
export function describeTarget(profile: ConnectionProfile): string {
  const t = profile.target;
  if (t.kind === 'local') return `local:${t.dir}`;
  if (t.kind === 'redis') return `${redactConnection(redisUrlOf(profile, {})).replace(/\?.*$/, '')} (${t.deployment})`;
  return t.url;
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let i = 0; i < 4 && current; i++) {
    if (current instanceof Error) parts.push(current.message);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') parts.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' ');
}

/** The cause of a failed open, from the error's code and the adapter's words. */
export function causeOf(error: unknown): ConnectionTestCause {
  const code = error instanceof WorkbenchError ? error.code : undefined;
  const transport = error instanceof WorkbenchError ? String(error.details?.['transport'] ?? '') : '';
  const text = `${errorText(error)} ${transport}`;
  if (code === 'unauthorized') return 'auth';
  if (code === 'forbidden') return 'forbidden';
  if (code === 'timeout') return 'timeout';
  // A Standalone profile at a Cluster node: refused by the adapter, but the server is fine, only the topology is not.
  if (error instanceof WorkbenchError && error.details?.['reason'] === 'cluster_node') return 'wrong_topology';
  if (code === 'invalid_request' || code === 'secrets_locked') return 'invalid';
  if (code === 'not_found') return 'wrong_base_url';
  // Both come wrapped in ioredis's "All sentinels are unreachable" or "Failed to refresh slots cache", so they are read first.
  if (/No such master with that name/i.test(text)) return 'wrong_master';
  if (/cluster support disabled|unknown command '?sentinel'?/i.test(text)) return 'wrong_topology';
  if (/ECONNREFUSED|connection refused/i.test(text)) return 'refused';
  if (/ENOTFOUND|EAI_AGAIN|host name not found/i.test(text)) return 'dns';
  if (/TLS|SSL|certificate|CERT_|handshake|self[- ]signed|EPROTO/i.test(text)) return 'tls';
  if (/ETIMEDOUT|timed out|not ready within/i.test(text)) return 'timeout';
  if (/without a JSON body|is this a V1 admin API/i.test(text)) return 'not_admin_api';
  return 'unavailable';
}

const ADVICE: Record<ConnectionTestCause, string> = {
  refused: 'nothing listens there: check the host and port, and that the server runs',
  dns: 'the host name does not resolve: check its spelling',
  tls: "the TLS handshake failed: check the CA file, the server name, and that the server speaks TLS (or not) as the profile says",
  auth: 'the credentials were refused: check the user name and the saved password or token',
  forbidden: 'the credentials are valid but lack a permission the skill store needs',
  wrong_base_url: 'no V1 admin API answers at this URL: it must end with the mount path, e.g. /api/v1/skills',
  not_admin_api: 'something answers, but not a V1 admin API: check the URL',
  wrong_deployment: 'the deployment namespace holds no skills, but others on this server do',
  wrong_master: 'the Sentinels answer but monitor no master group of that name: check the master group name',
  wrong_topology: 'the server answers but runs another topology: pick Standalone, Sentinel or Cluster as the server runs, and list Sentinel processes (not the master) for Sentinel',
  timeout: 'no answer in time: check the address, a firewall, or raise the timeout',
  not_a_registry: 'the folder is not a Skillbench registry',
  invalid: 'the profile cannot be used as it is',
  unavailable: 'the store is not available',
};

async function openOrCause(profile: ConnectionProfile, secrets: ProfileSecrets, options: OpenProfileOptions): Promise<{ store: SkillStore } | { error: unknown }> {
  try {
    return { store: await openProfileStore(profile, secrets, options) };
  } catch (error) {
    return { error };
  }
}

/** The mount path of the admin API, appended to a URL that lacks it, when that answers. */
async function suggestUrl(profile: ConnectionProfile, secrets: ProfileSecrets, options: OpenProfileOptions): Promise<string | undefined> {
  if (profile.target.kind !== 'http') return undefined;
  const url = new URL(profile.target.url);
  if (url.pathname.replace(/\/+$/, '').endsWith('/api/v1/skills')) return undefined;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/skills`;
  const candidate = url.toString();
  const opened = await openOrCause({ ...profile, target: { ...profile.target, url: candidate } }, secrets, options);
  if (!('store' in opened)) return undefined;
  await opened.store.close();
  return candidate;
}

/** Tests `profile` with `secrets`; never throws for a failure of the store, and never carries a secret. */
export async function checkConnection(profile: ConnectionProfile, secrets: ProfileSecrets, options: OpenProfileOptions): Promise<ConnectionTestResult> {
  const description = describeTarget(profile);
  const t = profile.target;
  if (t.kind === 'local') {
    const info = await stat(t.dir).catch(() => undefined);
    if (!info) return { ok: true, description, message: `the folder does not exist yet: it is created on the first publish`, created_on_first_write: true, skills: 0 };
    if (!info.isDirectory()) return { ok: false, cause: 'invalid', description, message: `${t.dir} is not a folder` };
  }
  const own = t.kind === 'redis' ? t.connect_timeout_ms : t.kind === 'http' ? t.timeout_ms : undefined;
  const budget = { timeoutMs: Math.min(TEST_TIMEOUT_MS, own ?? TEST_TIMEOUT_MS), ...options, create: false };
  const opened = await openOrCause(profile, secrets, budget);
  if ('error' in opened && t.kind === 'local' && opened.error instanceof WorkbenchError && opened.error.code === 'not_found') {
    return { ok: true, description, message: 'the folder holds no registry yet: it is created on the first publish', created_on_first_write: true, skills: 0 };
  }
  if ('error' in opened) {
    let cause = causeOf(opened.error);
    if (t.kind === 'local' && cause === 'invalid') cause = 'not_a_registry';
    const detail = opened.error instanceof Error ? opened.error.message : String(opened.error);
    const result: ConnectionTestResult = { ok: false, cause, description, message: `${ADVICE[cause]} (${detail})` };
    if (cause === 'wrong_base_url' || cause === 'not_admin_api') {
      const suggested = await suggestUrl(profile, secrets, budget);
      if (suggested) {
        result.suggested_url = suggested;
        result.message = `no V1 admin API answers at this URL, but one answers at ${suggested}`;
      }
    }
    return result;
  }
  const { store } = opened;
  try {
    const skills = (await store.listMetadata()).length;
    const result: ConnectionTestResult = { ok: true, description: store.description, skills, message: `connected to ${store.description}: ${skills} skill${skills === 1 ? '' : 's'}` };
    if (t.kind === 'redis' && skills === 0) {
      const { redisDeployments } = await import('../store/redis');
      const others = ((await redisDeployments(store)) ?? []).filter((d) => d !== t.deployment);
      if (others.length > 0) {
        return {
          ok: false,
          cause: 'wrong_deployment',
          description: store.description,
          skills: 0,
          deployments: others,
          message: `deployment '${t.deployment}' holds no skills, but this server holds deployment${others.length === 1 ? '' : 's'} ${others.map((d) => `'${d}'`).join(', ')}: check the deployment namespace`,
        };
      }
      result.created_on_first_write = true;
      result.message = `connected to ${store.description}: the deployment is empty and is created on the first publish`;
    }
    return result;
  } catch (error) {
    const cause = causeOf(error);
    return { ok: false, cause, description: store.description, message: `${ADVICE[cause]} (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    await store.close();
  }
}
