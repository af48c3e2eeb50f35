/**
 * Marker secrets across every output of `skillbench` (`registry serve` as the real binary): stdout,
 * stderr, --json, report files and run folder files of `select`, `eval`,
 * `list`, `publish`, `delete` and `registry serve`. The secrets are API keys in
 * the environment, a password in a provider's base URL, the registry token (also
 * through --token-env), a URL password and a Redis password; hosts that reflect
 * the request's Authorization header in their errors try to leak them.
 */
import { readdir, readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliRun } from '../../helpers/cli';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { startRedis, type RedisSetup } from '../../helpers/redis';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/packages/', import.meta.url));
const PACKAGE = join(EXAMPLES, 'travel', 'weather-assessment.json');

const M = {
  openai: 'mkOpenaiKey4b1f9e27d3',
  anthropic: 'mkAnthropicKey6a0c8e51',
  groq: 'mkGroqKey2d7f90b3c4',
  registry: 'mkRegistryToken81e3f4a2',
  tokenEnv: 'mkServeToken5c9d2e7f10',
  urlPass: 'mkUrlPass3e8a1f6c',
  basicPass: 'mkBasicPass7f2b9d0e',
  redisPass: 'mkRedisPass9a4c1e5b',
};
const MARKERS = Object.values(M);

let work: string;
let endpoint: ChatEndpoint;
let redis: RedisSetup;
const servers: Server[] = [];

function expectClean(where: string, text: string): void {
  for (const marker of MARKERS) {
    expect(text.includes(marker), `${where} contains the secret ${marker}:\n${text.slice(Math.max(0, text.indexOf(marker) - 300), text.indexOf(marker) + 100)}`).toBe(false);
  }
}

function expectRunClean(what: string, run: CliRun): void {
  expectClean(`${what} stdout`, run.stdout);
  expectClean(`${what} stderr`, run.stderr);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** A gateway that answers every request with `status` and an error message echoing the Authorization header. */
async function reflectingGateway(status: number): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const auth = req.headers.authorization ?? '(none)';
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'gateway_error', message: `upstream refused request with Authorization: ${auth} (header was ${auth})`, details: { echoed: auth } } }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/skills`;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SKILLBENCH_HOME: join(work, 'home'),
    OPENAI_API_KEY: M.openai,
    ANTHROPIC_API_KEY: M.anthropic,
    GROQ_API_KEY: M.groq,
    SKILLBENCH_REGISTRY_TOKEN: M.registry,
    OPENAI_BASE_URL: endpoint.baseUrl.replace('http://', `http://mkuser:${M.urlPass}@`),
    ...extra,
  };
}

const cli = (args: string[], extra?: Record<string, string>) => runCli(args, { cwd: work, env: env(extra) });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-secrets-'));
  endpoint = await startChatEndpoint((prompt) => ({ text: selectorAnswer(prompt.kind, prompt.candidates.slice(0, 1)) }));
  redis = await startRedis({ config: [`requirepass ${M.redisPass}`] });
});
afterAll(async () => {
  await endpoint?.close();
  await redis?.stop();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(work, { recursive: true, force: true });
});

describe('marker secrets never reach an output', { timeout: 180_000 }, () => {
  it('select: a base URL password and API keys stay out of stdout, stderr and --json, also when the provider fails', async () => {
    const ok = await cli(['select', '--request', 'Will storms disrupt my road trip?', '--catalog', EXAMPLES, '--model', 'openai:fast', '--model', `openai-compatible:${endpoint.baseUrl}#emu`, '--json']);
    // openai:fast goes to OPENAI_BASE_URL, whose credentials a fetch refuses: that model fails, the other answers.
    expect([0, 6], ok.stderr).toContain(ok.code);
    expect(ok.stdout).toContain('"outcome": "ok"');
    expectRunClean('select', ok);

    // A spec with credentials is refused; the refusal must not repeat them.
    const refused = await cli(['select', '--request', 'Will storms disrupt my road trip?', '--catalog', EXAMPLES, '--model', `openai-compatible:${endpoint.baseUrl.replace('http://', `http://mkuser:${M.urlPass}@`)}#emu`]);
    expect(refused.code).toBe(2);
    expectRunClean('select (spec with credentials)', refused);

    const gateway = await reflectingGateway(401);
    const failing = await cli(['select', '--request', 'Will storms disrupt my road trip?', '--catalog', EXAMPLES, '--model', 'openai:fast', '--json'], {
      OPENAI_BASE_URL: gateway.replace('/api/v1/skills', '/v1').replace('http://', `http://mkuser:${M.urlPass}@`),
    });
    expect(failing.code).not.toBe(0);
    expectRunClean('select (failing provider)', failing);
  });

  it('eval: reports, cells.jsonl and every run folder file are free of secrets', async () => {
    const run = await cli([
      'eval', PACKAGE,
      '--model', 'openai:fast',
      '--model', `openai-compatible:${endpoint.baseUrl}#emu`,
      '--out', 'run', '--no-cache',
      '--json', 'report.json', '--junit', 'report.xml', '--markdown', 'report.md', '--html', 'report.html',
    ]);
    expect([0, 1, 6], run.stderr).toContain(run.code);
    expectRunClean('eval', run);
    const files = [...(await filesUnder(join(work, 'run'))), ...['report.json', 'report.xml', 'report.md', 'report.html'].map((f) => join(work, f))];
    expect(files.some((f) => f.endsWith('cells.jsonl'))).toBe(true);
    for (const file of files) {
      expect((await stat(file)).size).toBeGreaterThan(0);
      expectClean(file, await readFile(file, 'utf8'));
    }
  });

  // 401 is answered at once; 500 goes through the client's retries first.
  it.each([
    [401, 'list --json', ['list', '--json']],
    [401, 'publish --json', ['publish', PACKAGE, '--json']],
    [401, 'delete --json', ['delete', 'travel/weather-assessment', '--version', '1', '--if-match', '"v1"', '--reason', 'cleanup', '--json']],
    [500, 'list', ['list']],
  ] as Array<[number, string, string[]]>)('a gateway answering %i and reflecting Authorization cannot make `%s` print the token or a URL password', async (status, _command, args) => {
    const gateway = await reflectingGateway(status);
    const flag = args[0] === 'publish' ? '--to' : '--from';
    const withToken = await cli([...args, flag, gateway]);
    expect(withToken.code, withToken.stderr).not.toBe(0);
    expectRunClean(`${args.join(' ')} (${status}, token)`, withToken);
    const withPassword = await cli([...args, flag, gateway.replace('http://', `http://mkuser:${M.basicPass}@`)], { SKILLBENCH_REGISTRY_TOKEN: '' });
    expect(withPassword.code, withPassword.stderr).not.toBe(0);
    expectRunClean(`${args.join(' ')} (${status}, basic)`, withPassword);
  });

  it('list and publish against Redis: the password stays out of success and failure output', async () => {
    const address = new URL(redis.url);
    const good = `redis://:${M.redisPass}@${address.host}`;
    const published = await cli(['publish', PACKAGE, '--to', good, '--json']);
    expect(published.code, published.stderr).toBe(0);
    expectRunClean('publish redis', published);
    const listed = await cli(['list', '--from', good, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expectRunClean('list redis', listed);
    for (const bad of [`redis://:${M.redisPass}@127.0.0.1:1`, `redis://:${M.redisPass}x@${address.host}`, `redis://default:${M.redisPass}@${address.host}/7`]) {
      const run = await cli(['list', '--from', bad, '--json']);
      expect(run.code).not.toBe(0);
      expectRunClean(`list ${bad}`, run);
    }
  });

  it('registry serve: its URL line, --json and request logs carry neither the store password nor the --token-env token', async () => {
    const address = new URL(redis.url);
    const { child, done } = startCli(['registry', 'serve', '--store', `redis://:${M.redisPass}@${address.host}`, '--port', '0', '--token-env', 'MK_SERVE_TOKEN', '--json'], {
      cwd: work,
      env: env({ MK_SERVE_TOKEN: M.tokenEnv }),
    });
    try {
      let out = '';
      child.stdout!.on('data', (c) => (out += String(c)));
      await expect.poll(() => out.includes('\n'), { timeout: 30_000 }).toBe(true);
      const { url } = JSON.parse(out.split('\n')[0]!) as { url: string };
      const good = await fetch(url, { headers: { authorization: `Bearer ${M.tokenEnv}` } });
      expect(good.status).toBe(200);
      const wrong = await fetch(url, { headers: { authorization: `Bearer ${M.registry}` } });
      expect(wrong.status).toBe(401);
      expectClean('serve 401 body', await wrong.text());
      const client = await cli(['list', '--from', url, '--json'], { SKILLBENCH_REGISTRY_TOKEN: M.tokenEnv });
      expect(client.code, client.stderr).toBe(0);
      expectRunClean('list through serve', client);
    } finally {
      child.kill('SIGTERM');
    }
    const served = await done;
    expectRunClean('registry serve', served);
  });
});
