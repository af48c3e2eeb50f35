/**
 * The workbench host's redactor (`service.redact`, what `skillbench serve` and
 * the desktop app put on every error, log line and run record) hides every
 * secret the CLI's redactor hides: the same names, the same URL passwords,
 * the same values wherever they appear. Names come from the wild, not from
 * the rule's own list, and a property sweeps generated names of both kinds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbenchService, type WorkbenchService } from '../../../../core/api/service';
import { createRedactor } from '../../../../core/redact';
import { commandLineSecrets } from '../../../../cli/redactIo';

/** Secret-bearing variables as real deployments name them, with the part of each value that must never show. */
const WILD: Record<string, { value: string; secret: string }> = {
  AWS_SECRET_ACCESS_KEY: { value: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY' },
  REDIS_PASS: { value: 'redisPass-4Hk8Jd2Pq', secret: 'redisPass-4Hk8Jd2Pq' },
  DB_URL: { value: 'redis://svc:dbUrlPass7Tz3Wy6@10.0.0.7:6379/0', secret: 'dbUrlPass7Tz3Wy6' },
  DATABASE_URL: { value: 'postgres://app:pgSecret5Gv2Ns8@db.internal:5432/app', secret: 'pgSecret5Gv2Ns8' },
  SENTRY_DSN: { value: 'https://dsnPublicKey9f8e7d@o1.ingest.example/42', secret: 'dsnPublicKey9f8e7d' },
  GITHUB_TOKEN: { value: 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', secret: 'ghp_16C7e42F292c6912E7710c838347Ae178B4a' },
  NPM_TOKEN: { value: 'npm_a1B2c3D4e5F6g7H8i9J0', secret: 'npm_a1B2c3D4e5F6g7H8i9J0' },
  PGPASSWORD: { value: 'pgpassword-3Lw8Vb', secret: 'pgpassword-3Lw8Vb' },
  REDISCLI_AUTH: { value: 'rediscli-auth-6Yh1', secret: 'rediscli-auth-6Yh1' },
  MYSQL_PWD: { value: 'mysqlPwd-8Kd2Zq', secret: 'mysqlPwd-8Kd2Zq' },
  AZURE_CLIENT_SECRET: { value: 'azureClient~Secret.42xyz', secret: 'azureClient~Secret.42xyz' },
  SLACK_BOT_TOKEN: { value: 'xoxb-1234-5678-abcdefABCDEF', secret: 'xoxb-1234-5678-abcdefABCDEF' },
  STRIPE_SECRET_KEY: { value: 'rk_live_51Hxyz0987abcdEF', secret: 'rk_live_51Hxyz0987abcdEF' },
  OPENAI_API_KEY: { value: 'sk-proj-openaiKey7Qx9Zt3Lw8', secret: 'sk-proj-openaiKey7Qx9Zt3Lw8' },
  SKILLBENCH_SECRET_KEY: { value: 'k'.repeat(44), secret: 'k'.repeat(44) },
  SERVICE_CREDENTIALS: { value: 'svc-credentials-0x5f3759df', secret: 'svc-credentials-0x5f3759df' },
};

/** Variables whose values are not secrets and must stay readable. */
const PLAIN = { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/someone', PWD: '/home/someone/project', OLDPWD: '/home/someone/before', LANG: 'en_US.UTF-8', EDITOR_MODE: 'vimlike-mode', SKILLBENCH_HOME: '/srv/skillbench-data', COMPASS: 'north-by-northwest', MONKEY: 'capuchin-monkey' };

function serviceWith(env: Record<string, string>, dir: string): WorkbenchService {
  return createWorkbenchService({ host: 'browser', version: 'test', dataDir: join(dir, `home-${Math.random().toString(36).slice(2)}`), env });
}

describe('the workbench host redactor', () => {
  let dir: string;
  let service: WorkbenchService;
  const env = { ...Object.fromEntries(Object.entries(WILD).map(([k, v]) => [k, v.value])), ...PLAIN };
  const cli = createRedactor(commandLineSecrets([], env));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-redactor-'));
    service = serviceWith(env, dir);
  });
  afterAll(async () => {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(Object.entries(WILD))('hides %s wherever its secret appears, as the CLI does', (_name, { value, secret }) => {
    for (const text of [`refused: ${secret}`, `cannot reach ${value} (ECONNREFUSED)`, `x=${encodeURIComponent(secret)};`, `{"detail":"${secret}"}`]) {
      expect(service.redact(text), text).not.toContain(secret);
      expect(cli(text), text).not.toContain(secret);
    }
  });

  it('keeps the values of variables that are not secrets, and ordinary words', () => {
    for (const value of Object.values(PLAIN)) expect(service.redact(`using ${value}`)).toBe(`using ${value}`);
    expect(service.redact('no such file /usr/bin/x; abc is short')).toBe('no such file /usr/bin/x; abc is short');
  });

  it('removes URL passwords, bearer tokens and provider-shaped keys from a message', () => {
    expect(service.redact('openai-compatible:http://me:hunter2@127.0.0.1:8080/v1#m')).toBe('openai-compatible:http://me:***@127.0.0.1:8080/v1#m');
    expect(service.redact('Authorization: Bearer abc.def.ghi')).not.toContain('abc.def.ghi');
    expect(service.redact('Incorrect API key provided: sk-proj-abcdefghijkl')).not.toContain('sk-proj-abcdefghijkl');
  });

  it('hides exactly what the CLI hides, for any variable named like a secret (property)', async () => {
    const word = fc.stringMatching(/^[A-Z][A-Z0-9]{0,7}$/);
    const suffix = fc.constantFrom('KEY', 'API_KEY', 'APIKEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASS', 'PWD', 'CREDENTIALS', 'SECRET_KEY', 'ACCESS_KEY');
    const secretValue = fc.stringMatching(/^[A-Za-z0-9._~+/-]{6,40}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 3 }), suffix, secretValue, async (words, end, value) => {
        const name = [...words, end].join('_');
        const local = await mkdtemp(join(dir, 'p-'));
        const one = serviceWith({ [name]: value }, local);
        try {
          const text = `the host said: '${value}' was refused`;
          expect(one.redact(text)).not.toContain(value);
          expect(createRedactor(commandLineSecrets([], { [name]: value }))(text)).not.toContain(value);
        } finally {
          await one.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
