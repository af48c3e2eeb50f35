/** What a host removes from every message that crosses to a client. */
import { describe, expect, it } from 'vitest';
import { secretRedactor } from '../../../../core/api/service';

describe('secretRedactor', () => {
  const redact = secretRedactor({ OPENAI_API_KEY: 'plain-value-123456', SKILLBENCH_REGISTRY_TOKEN: 'tok-abcdef-987', SKILLBENCH_SECRET_KEY: 'k'.repeat(32), PATH: '/usr/bin:/bin', SHORT_TOKEN: 'abc' });

  it('removes the values of secret environment variables, wherever they appear', () => {
    expect(redact('401: key plain-value-123456 refused; token=tok-abcdef-987')).not.toMatch(/plain-value-123456|tok-abcdef-987/);
    expect(redact(`key ${'k'.repeat(32)}`)).not.toContain('k'.repeat(32));
  });

  it('removes URL passwords, bearer tokens and provider-shaped keys, and keeps the rest', () => {
    expect(redact('openai-compatible:http://me:hunter2@127.0.0.1:8080/v1#m')).toBe('openai-compatible:http://me:***@127.0.0.1:8080/v1#m');
    expect(redact('Authorization: Bearer abc.def')).not.toContain('abc.def');
    expect(redact('Incorrect API key provided: sk-proj-abcdefghijkl')).not.toContain('sk-proj-abcdefghijkl');
    expect(redact('no such file /usr/bin/x')).toBe('no such file /usr/bin/x');
    expect(redact('abc is short')).toBe('abc is short');
  });
});
