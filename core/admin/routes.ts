/**
 * Request targets of the admin API: the route table (path templates, methods),
 * the strict query parser, and the host names a target or a Host header carries.
 */
import type { SkillId } from '../package/types';
import { StoreError } from '../store/errors';

export type RouteName = 'list' | 'schema' | 'skill' | 'validate' | 'analyze' | 'versions' | 'version';

export interface Route {
  name: RouteName;
  /** The route template for logs, without method. */
  template: string;
  methods: readonly string[];
  id?: SkillId;
  /** The raw `{version}` segment. */
  version?: string;
}

const POSITIVE_INT = /^[1-9][0-9]{0,15}$/;

/** The path and the raw query of a request target (origin-form or absolute-form). */
export function splitTarget(target: string): { path: string; query: string } {
  let raw = target;
  // Absolute-form targets (sent to proxies) still name our path.
  if (/^https?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      raw = `${url.pathname}${url.search}`;
    } catch {
      raw = '/';
    }
  }
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Left encoded: identity validation then rejects it with 400.
    return segment;
  }
}

/** The route a path names under `base`, or undefined; `analyze` exists only with an advisor. */
export function matchRoute(path: string, base: string, hasAdvisor: boolean): Route | undefined {
  if (path === base) return { name: 'list', template: base, methods: ['GET', 'HEAD'] };
  if (!path.startsWith(`${base}/`)) return undefined;
  const parts = path.slice(base.length + 1).split('/');
  if (parts.some((p) => p.length === 0)) return undefined;
  if (parts.length === 1) {
    return parts[0] === 'schema' ? { name: 'schema', template: `${base}/schema`, methods: ['GET', 'HEAD'] } : undefined;
  }
  const [ns, name, action, version] = parts.map(decodeSegment);
  const id = { namespace: ns ?? '', name: name ?? '' };
  const skill = `${base}/{namespace}/{name}`;
  if (parts.length === 2) return { name: 'skill', template: skill, methods: ['GET', 'HEAD', 'PUT'], id };
  if (parts.length === 3 && action === 'validate') return { name: 'validate', template: `${skill}/validate`, methods: ['POST'], id };
  if (parts.length === 3 && action === 'analyze' && hasAdvisor) {
    return { name: 'analyze', template: `${skill}/analyze`, methods: ['POST'], id };
  }
  if (parts.length === 3 && action === 'versions') {
    return { name: 'versions', template: `${skill}/versions`, methods: ['GET', 'HEAD', 'DELETE'], id };
  }
  if (parts.length === 4 && action === 'versions') {
    return { name: 'version', template: `${skill}/versions/{version}`, methods: ['GET', 'HEAD', 'DELETE'], id, version: version ?? '' };
  }
  return undefined;
}

/**
 * Strict query parsing (guide section 11): only `allowed` names, each at most once,
 * never empty. Anything else is 400.
 */
export function parseQuery(raw: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (raw.length === 0) return out;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (!allowed.includes(key)) {
      const hint = allowed.length === 0 ? 'this route takes no query parameters' : `allowed: ${allowed.join(', ')}`;
      throw new StoreError('invalid_request', `unknown query parameter ${JSON.stringify(key)} (${hint})`, { details: { parameter: key } });
    }
    if (out.has(key)) {
      throw new StoreError('invalid_request', `query parameter ${JSON.stringify(key)} is repeated`, { details: { parameter: key } });
    }
    if (value.length === 0) {
      throw new StoreError('invalid_request', `query parameter ${JSON.stringify(key)} is empty`, { details: { parameter: key } });
    }
    out.set(key, value);
  }
  return out;
}

/** A positive integer query value or path segment; 400 naming `what` otherwise. */
export function positiveInt(value: string, what: string): number {
  const n = Number(value);
  if (!POSITIVE_INT.test(value) || !Number.isSafeInteger(n)) {
    throw new StoreError('invalid_request', `${what} must be a positive integer, got ${JSON.stringify(value)}`, { details: { parameter: what } });
  }
  return n;
}

/** `host[:port]` or `[v6]:port` exactly; anything after the name but a numeric port makes it no host at all. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/;

/** The host name of a Host header (or of an absolute-form target's authority), or undefined when it is malformed. */
export function hostName(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined) return undefined;
  const match = HOST_HEADER.exec(hostHeader.trim().toLowerCase());
  if (!match) return undefined;
  return match[1] ?? match[2];
}

/** The authority of an absolute-form request target (`GET http://host/...`), undefined for origin-form, null when malformed. */
export function absoluteFormHost(target: string): string | null | undefined {
  if (target.startsWith('/') || target === '*') return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target);
  if (!match) return null;
  const authority = match[1] ?? '';
  // User-info has no place in a request target.
  if (authority.includes('@')) return null;
  return hostName(authority) ?? null;
}
