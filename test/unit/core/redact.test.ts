import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../core/frozen';
import { createRedactor, mayRedactJson, redactAuthText, redactUrls, redactValue, secretsFromEnv, secretsOfUrl } from '../../../core/redact';

describe('core/redact', () => {
  it('hides URL passwords (a lone user-info whole) and secret query values, keeping users and hosts', () => {
    expect(redactUrls('GET http://alice:s3cr%40t@host:8080/v1 failed')).toBe('GET http://alice:***@host:8080/v1 failed');
    expect(redactUrls('redis://onlypassword@127.0.0.1:6379/0')).toBe('redis://***@127.0.0.1:6379/0');
    expect(redactUrls('see https://x.example/a?token=abc&page=2&api_key=zz')).toBe('see https://x.example/a?token=***&page=2&api_key=***');
    expect(redactUrls('plain text, http://host/path and mail@example.com')).toBe('plain text, http://host/path and mail@example.com');
  });

  it('finds the secrets of URLs and of an environment by variable name', () => {
    expect(secretsOfUrl('http://u:p%40ss@h/')).toEqual(['p%40ss', 'p@ss']);
    const env = { OPENAI_API_KEY: 'key-one-123', SKILLBENCH_REGISTRY_TOKEN: 'tok-two-456', MY_VAR: 'visible', CUSTOM: 'named-789', OPENAI_BASE_URL: 'http://u:urlpass1@h/v1', HOME: '/home/x' };
    expect(secretsFromEnv(env, ['CUSTOM']).sort()).toEqual(['key-one-123', 'named-789', 'tok-two-456', 'urlpass1', 'urlpass1'].sort());
  });

  it('takes names ending in a secret word (PGPASSWORD, GITHUB_TOKEN) and, after an underscore, the short words (REDIS_PASS, REDISCLI_AUTH), not words that merely end alike', () => {
    const env = { PGPASSWORD: 'pg-secret-1', GITHUBTOKEN: 'gh-secret-2', REDIS_PASS: 'redis-secret-3', REDISCLI_AUTH: 'auth-secret-4', AWS_SECRET_ACCESS_KEY: 'aws-secret-5', COMPASS: 'north-west', MONKEY: 'capuchin', BYPASS: 'enabled-yes', OAUTH: 'provider-x' };
    expect(secretsFromEnv(env).sort()).toEqual(['auth-secret-4', 'aws-secret-5', 'gh-secret-2', 'pg-secret-1', 'redis-secret-3']);
  });

  it('does not take the shell\'s working directory (PWD, OLDPWD) for a password', () => {
    expect(secretsFromEnv({ PWD: '/home/x/project', OLDPWD: '/home/x', DB_PWD: 'db-password-1' })).toEqual(['db-password-1']);
  });

  it('replaces every known value, also percent-encoded, longest first; short values are left as words', () => {
    const redact = createRedactor(['abc', 'pa ss/word!', 'pa ss/word!-longer']);
    expect(redact('x pa ss/word!-longer y pa%20ss%2Fword!z abc')).toBe('x *** y ***z abc');
    redact.add('late-secret');
    expect(redact('a late-secret b')).toBe('a *** b');
  });

  it('removes credentials by shape from a host-written text, and walks plain values', () => {
    expect(redactAuthText('refused Authorization: Bearer abcdef123456 and api_key=xyz987654')).toBe('refused Authorization: *** and api_key=***');
    expect(redactValue({ a: ['http://u:pw@h'], n: 1 }, redactUrls)).toEqual({ a: ['http://u:***@h'], n: 1 });
  });

  it('hides every URL password and secret query value wherever it sits in a text (property)', () => {
    const filler = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', ':', '/', '?', '&', '=', '@', '#', '"', '%') , maxLength: 40 });
    const secret = fc.stringMatching(/^[A-Za-z0-9]{8,16}$/).map((s) => `Z${s}`);
    fc.assert(
      fc.property(filler, filler, secret, fc.constantFrom('url', 'query'), (before, after, value, shape) => {
        const embedded = shape === 'url' ? `https://user:${value}@host.example/p` : `/p?page=2&token=${value}`;
        // Filler may run into the URL and change where it ends, but never reveals the secret.
        expect(redactUrls(`${before} ${embedded} ${after}`)).not.toContain(value);
      }),
    );
  });

  it('returns a text with nothing to hide as it is, so prompts and package text cost no rewrite', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        fc.pre(!text.includes('://') && !text.includes('='));
        expect(redactUrls(text)).toBe(text);
      }),
    );
  });

  it('copies only what changes: an untouched value is returned itself, a changed one shares its untouched parts', () => {
    const redact = createRedactor(['s3cret-value']);
    const clean = { a: 'plain', list: [1, 'two', { deep: true }] };
    expect(redactValue(clean, redact)).toBe(clean);
    const shared = { note: 'nothing here' };
    const dirty = { shared, list: ['ok', 'has s3cret-value inside'], n: 3 };
    const out = redactValue(dirty, redact);
    expect(out).toEqual({ shared: { note: 'nothing here' }, list: ['ok', 'has *** inside'], n: 3 });
    expect(out).not.toBe(dirty);
    expect(out.shared).toBe(shared);
    expect(dirty.list[1]).toBe('has s3cret-value inside');
  });

  it('walks a frozen value once per redactor state: a secret learned later is still removed from it', () => {
    const redact = createRedactor(['first-secret']);
    const frozen = deepFreeze({ pinning: [{ id: 'bench/s01', text: 'later-secret appears here' }] });
    expect(redactValue(frozen, redact)).toBe(frozen);
    expect(redactValue({ trace: frozen }, redact).trace).toBe(frozen);
    redact.add('later-secret');
    expect(redactValue({ trace: frozen }, redact).trace.pinning[0]!.text).toBe('*** appears here');
  });

  it('judges from a value\'s JSON text when redaction has nothing to change in it, and is never wrong to say so (property)', () => {
    // Units JSON escapes ("\\", "\"", control characters, both halves of a surrogate pair) and the characters of URL secrets.
    const unit = fc.constantFrom('a', 'b', 'key', 'token', '1', ' ', '"', '\\', '\n', '\u0001', ':', '/', '=', '?', '&', '@', '\ud83d', '\ude00', 'é');
    const text = fc.string({ unit, maxLength: 12 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 4 })),
    })).node;
    const secrets = fc.array(fc.string({ unit, minLength: 6, maxLength: 8 }), { maxLength: 3 });
    let judgedClean = 0;
    fc.assert(
      fc.property(value, secrets, (v, known) => {
        const redact = createRedactor(known);
        if (mayRedactJson(JSON.stringify(v), redact)) return;
        judgedClean++;
        expect(redactValue(v, redact)).toBe(v);
      }),
      { numRuns: 2000 },
    );
    // The property says something: many values are judged clean without a walk.
    expect(judgedClean).toBeGreaterThan(200);
  });

  it('judges URLs and query strings one place at a time, and is never wrong to call a value clean (property)', () => {
    // Pieces of URLs and parameters, with the units JSON escapes between them.
    const unit = fc.constantFrom('http', '://', 'u', ':', 'pw', '@', '/', '?', '&', '#', '=', 'token', 'page', '%74', 'x', ' ', '"', '\\', '\n', '\u0001');
    const text = fc.string({ unit, maxLength: 16 });
    const value = fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.dictionary(text, text, { maxKeys: 3 }));
    const redact = createRedactor([]);
    let judgedClean = 0;
    let cleanWithUrlCharacters = 0;
    fc.assert(
      fc.property(value, (v) => {
        const json = JSON.stringify(v);
        if (mayRedactJson(json, redact)) return;
        judgedClean++;
        if (json.includes('://') || (json.includes('=') && /[?&]/.test(json))) cleanWithUrlCharacters++;
        expect(redactValue(v, redact)).toBe(v);
      }),
      { numRuns: 3000 },
    );
    // Texts with URL characters but no secret are judged clean too, not sent to the walk.
    expect(cleanWithUrlCharacters).toBeGreaterThan(100);
    expect(judgedClean).toBeGreaterThan(cleanWithUrlCharacters);
  });

  it('tells a cell with nothing to redact from one with a secret, a URL password or an escaped secret, and leaves other functions to the walk', () => {
    const redact = createRedactor(['sk-live-"quoted"\\key']);
    const cell = { key: 'm|draft|c1|0', request: 'Is the trip on next week?', trace: { calls: [{ raw: '{"activate":[]}' }] } };
    expect(mayRedactJson(JSON.stringify(cell), redact)).toBe(false);
    // A model's endpoint and a question with an equation hold no URL secret.
    const endpoint = { ...cell, model: 'openai-compatible:http://127.0.0.1:8080/v1#m', request: 'Is x=2 & y=3 right?' };
    expect(mayRedactJson(JSON.stringify(endpoint), redact)).toBe(false);
    expect(mayRedactJson(JSON.stringify({ ...endpoint, request: 'see /v1?q=1&api%5Fkey=zz' }), redact)).toBe(true);
    expect(mayRedactJson(JSON.stringify({ ...cell, model: 'redis://onlypassword@127.0.0.1:6379' }), redact)).toBe(true);
    expect(mayRedactJson(JSON.stringify({ ...cell, error: 'GET http://u:pw@host/ failed' }), redact)).toBe(true);
    expect(mayRedactJson(JSON.stringify({ ...cell, error: 'GET /v1?page=2&token=abc failed' }), redact)).toBe(true);
    expect(mayRedactJson(JSON.stringify({ ...cell, request: 'token sk-live-"quoted"\\key here' }), redact)).toBe(true);
    expect(mayRedactJson(JSON.stringify(cell), (t) => t)).toBe(true);
    expect(mayRedactJson(JSON.stringify(cell), createRedactor(['with \ud83d half']))).toBe(true);
  });
});
