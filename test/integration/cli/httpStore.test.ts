/**
 * `skillbench` against hosts that are not a V1 admin API the
 * way it expects: a redirect is one clear line and exit 6, never success and
 * never followed with the token.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const TOKEN = 'marker-token-5d1e0c7a9b';

let work: string;
const servers: Server[] = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-http-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(work, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home'), SKILLBENCH_REGISTRY_TOKEN: TOKEN } });

describe('skillbench against a redirecting host', () => {
  it('reports a 302 with a JSON body as one line naming the redacted target, exit 6, and never follows it', async () => {
    const seenByTarget: IncomingMessage[] = [];
    const target = await listen((req, res) => {
      seenByTarget.push(req);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    });
    const targetWithCredentials = target.replace('http://', 'http://mover:marker-pass-3c9f2a@');
    const host = await listen((_req, res) => {
      res.writeHead(302, { location: `${targetWithCredentials}/api/v1/skills/schema`, 'content-type': 'application/json' }).end('{"items":[],"skills":[]}');
    });

    for (const json of [false, true]) {
      const run = await cli(['list', '--from', `${host}/api/v1/skills`, ...(json ? ['--json'] : [])]);
      expect(run.code, run.stderr).toBe(6);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('answered 302, a redirect');
      expect(lines[0]).toContain(`http://mover:***@127.0.0.1:${new URL(target).port}/api/v1/skills/schema`);
      expect(run.stderr + run.stdout).not.toContain('0 skills');
      expect(run.stderr + run.stdout).not.toContain('marker-pass-3c9f2a');
      expect(run.stderr + run.stdout).not.toContain(TOKEN);
      if (json) expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unavailable', details: { status: 302 } } });
    }
    expect(seenByTarget).toHaveLength(0);
  });
});
