/**
 * Secret redaction for every text that leaves the process: terminal output,
 * reports, run files, logs and error messages. Isomorphic (no Node built-ins), so
 * the CLI, `skillbench serve`, the desktop app, the admin host and the eval
 * engine use the same rules: each builds its filter with {@link createRedactor}
 * over {@link secretsFromEnv} of its environment (plus what else it knows: a
 * `--token`, saved connection secrets), and nothing else decides what is secret.
 *
 * Two kinds of secrets are removed:
 * - the user-info of any URL (`scheme://user:password@host` keeps the user and
 *   hides the password; a lone user-info, which Redis reads as a password, is
 *   hidden whole), and secret-looking query parameters;
 * - every known secret value (API keys, registry tokens, URL and Redis passwords)
 *   wherever it appears, also percent-encoded.
 *
 * Text written by a remote host (an error message a gateway reflected) also goes
 * through {@link redactAuthText}, which removes `Authorization`/`api-key` pairs and
 * bearer tokens by shape; that pass is kept off ordinary output because package
 * text may legitimately say "authorization: required".
 */
import { isDeeplyFrozen } from './frozen';

/** What a redacted secret is replaced with. */
export const REDACTED = '***';

/** Values shorter than this are not searched for as text: they would blank ordinary words. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Environment variables whose value is a secret, by name: ending in a word
 * that names one (`PGPASSWORD`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`), or,
 * for the short words that end ordinary words too (`KEY`, `PASS`, `PWD`,
 * `AUTH`: MONKEY, BYPASS), being or ending in that word after an underscore
 * (`REDIS_PASS`, `MYSQL_PWD`, `REDISCLI_AUTH`).
 */
const SECRET_ENV_NAME = /(?:(?:^|_)(?:KEY|PASS|PWD|AUTH)|API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;
/** Shell variables whose names look secret but hold the working directory. */
const NOT_SECRET_ENV = new Set(['PWD', 'OLDPWD']);

const SECRET_PARAM = /^(pass(word)?|pwd|token|secret|api[-_]?key|key|auth(orization)?|access[-_]?token|sentinel[-_]?password|sig(nature)?)$/i;

// scheme://userinfo@ — the user-info may hold any character but '/', '?', '#' and whitespace.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]*)@/gi;
const URL_SECRET_QUERY = /([?&])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g;
const KEY_VALUE = /\b((?:x-api-key|api[_-]?key|authorization|proxy-authorization)["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|Token)\s+)?(?!\*\*\*)[^\s"',;}]+/gi;
const BEARER = /\bBearer\s+(?!\*\*\*)[A-Za-z0-9\-._~+/]{6,}=*/g;
const KEY_SHAPED = /\b(?:sk-(?:ant-|proj-|svcacct-)?|gsk_|xai-)[A-Za-z0-9_*-]{6,}/g;

/**
 * Removes credentials by shape from text a remote host wrote: `Authorization:`,
 * `api-key=` and similar pairs, bearer tokens and strings shaped like provider keys.
 */
export function redactAuthText(text: string): string {
  return text.replace(KEY_VALUE, `$1${REDACTED}`).replace(BEARER, `Bearer ${REDACTED}`).replace(KEY_SHAPED, REDACTED);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** From just after a `://`: a user-info (any run of its characters) and the `@` that ends it. */
const USERINFO_END = /[^\s/?#@"'<>]*@/y;
/**
 * At a `?` or `&`: a parameter with a value. The name is cut at 64 characters:
 * a longer one cannot decode to a {@link SECRET_PARAM} name (17 characters at
 * most, 3 per character when percent-encoded), and the cut keeps a text of
 * many `?` before one `=` from being scanned again from each of them.
 */
const QUERY_PARAM_AT = /[?&]([^=&#\s"'<>]{1,64})=[^&#\s"'<>]/y;

function hasSecretParamAfter(text: string, separator: '?' | '&'): boolean {
  for (let at = text.indexOf(separator); at >= 0; at = text.indexOf(separator, at + 1)) {
    QUERY_PARAM_AT.lastIndex = at;
    const m = QUERY_PARAM_AT.exec(text);
    if (m !== null && SECRET_PARAM.test(safeDecode(m[1]!))) return true;
  }
  return false;
}

/**
 * Whether {@link redactUrls} could change `text`: only when a `://` is followed
 * by a user-info and its `@`, or a `?` or `&` starts a secret-looking
 * parameter with a value. Each place is tested on its own, so every place
 * either pattern matches is among them. Most texts (prompts, package text, a
 * model's endpoint URL) have none and skip both rewrites.
 */
function mayHoldUrlSecret(text: string): boolean {
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    USERINFO_END.lastIndex = at + 3;
    if (USERINFO_END.test(text)) return true;
  }
  return text.includes('=') && (hasSecretParamAfter(text, '?') || hasSecretParamAfter(text, '&'));
}

function redactUserinfo(scheme: string, userinfo: string): string {
  if (userinfo.length === 0) return `${scheme}@`;
  const colon = userinfo.indexOf(':');
  return colon < 0 ? `${scheme}${REDACTED}@` : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
}

/**
 * The URLs inside `text` without their secrets: user-info passwords (a lone
 * user-info whole) and the values of secret-looking query parameters become `***`.
 */
export function redactUrls(text: string): string {
  if (!mayHoldUrlSecret(text)) return text;
  return text.replace(URL_USERINFO, (_m, scheme: string, userinfo: string) => redactUserinfo(scheme, userinfo)).replace(
    URL_SECRET_QUERY,
    (m, sep: string, key: string, value: string) => (value.length > 0 && SECRET_PARAM.test(safeDecode(key)) ? `${sep}${key}=${REDACTED}` : m),
  );
}

/** One URL safe to record (see {@link redactUrls}); text that is not a URL passes through the same rules. */
export function redactUrl(url: string): string {
  return redactUrls(url);
}

/** The secret parts of a URL: its password, a lone user-info, secret query values (decoded and as written). */
export function secretsOfUrl(url: string): string[] {
  const out: string[] = [];
  for (const match of url.matchAll(URL_USERINFO)) {
    const userinfo = match[2] ?? '';
    const colon = userinfo.indexOf(':');
    const secret = colon < 0 ? userinfo : userinfo.slice(colon + 1);
    if (secret.length > 0) out.push(secret, safeDecode(secret));
  }
  for (const match of url.matchAll(URL_SECRET_QUERY)) {
    const [, , key = '', value = ''] = match;
    if (value.length > 0 && SECRET_PARAM.test(safeDecode(key))) out.push(value, safeDecode(value));
  }
  return out;
}

/**
 * The secret values of an environment: every variable named like a key, token,
 * secret or password (`OPENAI_API_KEY`, `SKILLBENCH_REGISTRY_TOKEN`, ...), the
 * variables named in `extraNames` (a `--token-env`), and the passwords of URLs in
 * any variable (`OPENAI_BASE_URL=http://u:pass@host/v1`, a Redis URL).
 */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>, extraNames: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length === 0) continue;
    if ((SECRET_ENV_NAME.test(name) && !NOT_SECRET_ENV.has(name.toUpperCase())) || extraNames.includes(name)) out.push(value);
    if (value.includes('://')) out.push(...secretsOfUrl(value));
  }
  return out;
}

/** Base64 of a UTF-8 string without Node's Buffer (for Basic credentials that embed a secret). */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** `encodeURIComponent(text)`, or undefined for a text it cannot encode (a lone surrogate). */
function percentEncoded(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The redactors {@link createRedactor} made: what they do to a text is known (see {@link mayRedactJson}). */
const standardRedactors = new WeakSet<object>();

/** A text filter that removes secrets; {@link add} teaches it more values as they become known. */
export interface Redactor {
  (text: string): string;
  /** Adds secret values (short ones are ignored as free text, see {@link MIN_SECRET_LENGTH}). */
  add(...secrets: readonly string[]): void;
  /** The values searched for, longest first. */
  readonly secrets: readonly string[];
}

/**
 * A redactor for `secrets`: each value (and its percent-encoded form) becomes
 * `***`, then the secrets of every URL (see {@link redactUrls}).
 */
export function createRedactor(secrets: Iterable<string> = []): Redactor {
  let values: string[] = [];
  const add = (...more: readonly string[]): void => {
    const set = new Set(values);
    for (const s of more) {
      if (typeof s !== 'string' || s.length < MIN_SECRET_LENGTH) continue;
      set.add(s);
      const encoded = percentEncoded(s);
      if (encoded !== undefined && encoded !== s) set.add(encoded);
    }
    values = [...set].sort((a, b) => b.length - a.length);
  };
  add(...secrets);
  const redactor = ((text: string): string => {
    let out = text;
    for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return redactUrls(out);
  }) as Redactor;
  redactor.add = add;
  Object.defineProperty(redactor, 'secrets', { get: () => values });
  standardRedactors.add(redactor);
  return redactor;
}

/**
 * A message that may quote text of unknown origin (an error crossing to a
 * client, a failure a provider or registry reported), made safe: `redact` (the
 * known secrets and URL credentials), then the shapes of credentials
 * ({@link redactAuthText}). Ordinary output takes `redact` alone, since package
 * text may legitimately say "authorization: required".
 */
export function redactMessage(text: string, redact: (text: string) => string = redactUrls): string {
  return redactAuthText(redact(text));
}

/** The Basic credential of `user:password`, to redact alongside the password when a host may echo it. */
export function basicCredential(user: string, password: string): string {
  return base64(`${user}:${password}`);
}

/**
 * Deeply frozen values known to come out of a redactor unchanged, each with the
 * secret list it was checked against. An evaluation's cells share frozen parts
 * (a variant's pinning, the offered candidates), so each is walked once per
 * redactor state instead of once per cell. Only a {@link Redactor} is memoised:
 * its `secrets` array is replaced whenever it learns a value, which retires the memo.
 */
const unchanged = new WeakMap<object, readonly string[]>();

/**
 * `value` with every string passed through `redact` (plain data only). Nothing
 * is copied that `redact` leaves unchanged: where no string changes, the
 * result is `value` itself (or shares its unchanged parts), so a frozen part
 * stays the frozen object it was.
 */
export function redactValue<T>(value: T, redact: (text: string) => string): T {
  const secrets = (redact as Partial<Redactor>).secrets;
  const memo = Array.isArray(secrets) ? secrets : undefined;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redact(v);
    if (v === null || typeof v !== 'object' || depth > 64) return v;
    // Only frozen values are remembered (see below), so a mutable one skips the lookup.
    if (memo !== undefined && Object.isFrozen(v) && unchanged.get(v) === memo) return v;
    let out: unknown;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        const y = walk(x, depth + 1);
        if (copy === undefined && !Object.is(x, y)) copy = v.slice(0, i);
        copy?.push(y);
      }
      out = copy ?? v;
    } else {
      let copy: Record<string, unknown> | undefined;
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const x = (v as Record<string, unknown>)[keys[i]!];
        const y = walk(x, depth + 1);
        if (copy === undefined && !Object.is(x, y)) {
          copy = {};
          for (let j = 0; j < i; j++) copy[keys[j]!] = (v as Record<string, unknown>)[keys[j]!];
        }
        if (copy !== undefined) copy[keys[i]!] = y;
      }
      out = copy ?? v;
    }
    if (out === v && memo !== undefined && isDeeplyFrozen(v)) unchanged.set(v, memo);
    return out;
  };
  return walk(value, 0) as T;
}

/** The JSON string escapes of a redactor's secrets, per secrets array (null: a secret has a surrogate, so no line check). */
const escapedSecrets = new WeakMap<readonly string[], readonly string[] | null>();

const SURROGATE = /[\ud800-\udfff]/;

function escapedSecretsOf(secrets: readonly string[]): readonly string[] | null {
  let escaped = escapedSecrets.get(secrets);
  if (escaped === undefined) {
    escaped = secrets.some((s) => SURROGATE.test(s)) ? null : secrets.map((s) => JSON.stringify(s).slice(1, -1));
    escapedSecrets.set(secrets, escaped);
  }
  return escaped;
}

/**
 * Whether {@link redactValue} with `redact` may change a plain value whose
 * JSON text (`JSON.stringify`) is `json`: false only when it certainly
 * leaves the value as it is, so a caller holding the text anyway (a cell
 * line) can skip the walk over every string in the value. The answer comes
 * from a few scans of the text:
 *
 * - JSON escapes each UTF-16 unit on its own, except that a surrogate pair
 *   stays whole, so a secret without surrogates that occurs in a string of the
 *   value occurs, escaped, in the text (a secret with one gives no answer);
 * - `:`, `/`, `=`, `?`, `&` and `@` are never escaped, and what JSON makes of
 *   any other unit (`\\`, `\n`, `\u0001`) is none of the characters that end
 *   a user-info or a parameter, so a URL secret in a string of the value leaves
 *   a user-info and its `@`, or a secret parameter name (which JSON does not
 *   change) with a value, in the text.
 *
 * Only a redactor {@link createRedactor} made is judged; for any other
 * function the answer is true (walk). Text the value does not hold (its keys,
 * its punctuation) can only make the answer true.
 */
export function mayRedactJson(json: string, redact: (text: string) => string): boolean {
  if (!standardRedactors.has(redact)) return true;
  const escaped = escapedSecretsOf((redact as Redactor).secrets);
  if (escaped === null) return true;
  for (const secret of escaped) if (json.includes(secret)) return true;
  return mayHoldUrlSecret(json);
}
