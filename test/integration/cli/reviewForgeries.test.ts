/**
 * The nine ways an unapproved publication was tried against a protected,
 * approval-enforcing registry, each refused with nothing published:
 *
 * 1. a request file whose status was set to approved by hand;
 * 2. the same, with its package text swapped too;
 * 3. an approval the author signed with their own key (and one written in the reviewer's name);
 * 4. a request approved for staging, retargeted to production;
 * 5. approved content of one skill, retargeted to another skill;
 * 6. a request whose connection is a raw connection string to another host;
 * 7. `skillbench publish` straight to the protected store, by path, symlink or URL
 *    (and `sync`, a `registry serve` of it without `--require-approval`, an import
 *    replacing its profile);
 * 8. a direct PUT (and DELETE) to the enforcing host, bare or with another request's approval;
 * 9. a delete through the protected profile (by name, by URL, by path).
 *
 * Real parts throughout: keys made by ssh-keygen, the enforcing host is
 * `skillbench registry serve --require-approval travel --allowed-signers FILE`
 * with a bearer token, and a real local HTTP server stands where a forged
 * request file points, recording every header it is sent: the token never
 * reaches it. The genuine journey (filed by alice, approved by bob) publishes.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../../core/connections/manager';
import { signData } from '../../../core/review/sshsig';
import { parseStatement, statementText } from '../../../core/review/statement';
import { encodeAttestation } from '../../../core/review/verify';
import { openLocalStore } from '../../../core/store/local';
import { isStoreError } from '../../../core/store/errors';
import { runCli, type CliRun } from '../../helpers/cli';
import { startRegistryHost } from '../../helpers/registryHost';
import { makeSigners, signingEnv } from '../../helpers/sshKeys';

const TOKEN = 'prod-write-token-7f3a91c2';
const WEATHER = 'skills/packages/travel/weather-assessment.json';
const CURRENCY = 'skills/packages/travel/currency-conversion.json';
const WEATHER_ID = { namespace: 'travel', name: 'weather-assessment' };

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

describe('nine forgeries against a protected, approval-enforcing registry', () => {
  let work: string;
  let ws: string;
  let home: string;
  let prodDir: string;
  let stgDir: string;
  let signers: Awaited<ReturnType<typeof makeSigners>>;
  let host: { child: ChildProcess; url: string; log: () => string; done: Promise<CliRun> };
  let catcher: Server;
  let catcherUrl: string;
  const seen: Seen[] = [];

  const env = (user: 'alice' | 'bob') => ({ SKILLBENCH_HOME: home, SKILLBENCH_REGISTRY_TOKEN: TOKEN, ...signingEnv(signers.keys[user]!, signers.allowed) });
  const cli = (user: 'alice' | 'bob', args: string[]) => runCli(args, { cwd: ws, env: env(user) });
  const requestFile = (id: string) => join(ws, 'skills', 'reviews', `${id}.json`);
  const editRequest = async (id: string, edit: (doc: Record<string, unknown>) => void) => {
    const doc = JSON.parse(await readFile(requestFile(id), 'utf8')) as Record<string, unknown>;
    edit(doc);
    await writeFile(requestFile(id), `${JSON.stringify(doc, null, 2)}\n`);
  };
  const file = async (to: string, path: string): Promise<string> => {
    const run = await cli('alice', ['review', 'create', path, '--to', to]);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.trim();
  };
  const approved = async (to: string, path: string): Promise<string> => {
    const id = await file(to, path);
    const run = await cli('bob', ['review', 'approve', id]);
    expect(run.code, run.stderr).toBe(0);
    return id;
  };
  /** What prod holds: read from its folder behind the host. */
  const prodHolds = async (): Promise<string[]> => {
    // No registry yet (nothing was ever published through the host) holds nothing.
    const store = await openLocalStore(prodDir, { create: false }).catch((error: unknown) => {
      if (isStoreError(error, 'not_found')) return undefined;
      throw error;
    });
    if (store === undefined) return [];
    try {
      return (await store.listMetadata()).map((m) => `${m.namespace}/${m.name}@${m.version}`).sort();
    } finally {
      await store.close();
    }
  };
  const writesLogged = () => host.log().split('\n').filter((l) => /^(PUT|DELETE) /.test(l));
  let before: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-forgeries-'));
    ws = join(work, 'ws');
    home = join(work, 'home');
    prodDir = join(work, 'prod-registry');
    stgDir = join(work, 'stg-registry');
    for (const f of [WEATHER, CURRENCY]) await cp(resolve('examples', f), join(ws, f));
    await mkdir(join(work, 'keys'));
    signers = await makeSigners(join(work, 'keys'), ['alice', 'bob']);

    catcher = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      req.resume();
      res.statusCode = 404;
      res.end('{"error":{"code":"not_found","message":"nothing here"}}');
    });
    await new Promise<void>((r) => catcher.listen(0, '127.0.0.1', () => r()));
    catcherUrl = `http://127.0.0.1:${(catcher.address() as { port: number }).port}/api/v1/skills`;

    // The host alone holds prod's folder and its write token, and checks every write of travel/*.
    host = await startRegistryHost({ dir: prodDir, namespace: 'travel', allowedSigners: signers.allowed, token: TOKEN, cwd: work, home: join(work, 'host-home') });

    const manager = new ConnectionManager({ dataDir: home, env: {} });
    await manager.save({
      profile: { name: 'prod', protected: true, enforces_approvals: true, environment: { label: 'production', colour: '#c0392b' }, target: { kind: 'http', url: host.url, auth: 'bearer' } },
      secrets: { token: TOKEN },
    });
    await manager.save({ profile: { name: 'stg', protected: true, target: { kind: 'local', dir: stgDir } } });
    before = await prodHolds();
  }, 300_000);

  afterAll(async () => {
    host?.child.kill('SIGTERM');
    await host?.done;
    await new Promise<void>((r) => (catcher ? catcher.close(() => r()) : r()));
    await rm(work, { recursive: true, force: true });
  });

  const nothingPublished = async () => {
    expect(await prodHolds()).toEqual(before);
    expect(writesLogged().filter((l) => !/ 403 \S+ approval_required$/.test(l))).toEqual([]);
  };

  it('1. refuses a status set to approved by hand (exit 8), sending nothing', async () => {
    const id = await file('prod', WEATHER);
    await editRequest(id, (doc) => (doc['status'] = 'approved'));
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toContain('no approval is recorded');
    await nothingPublished();
  });

  it('2. refuses a hand-set status with swapped text: nothing is published first', async () => {
    const id = await file('prod', WEATHER);
    await editRequest(id, (doc) => {
      const pkg = JSON.parse(doc['package_text'] as string) as { description: string };
      pkg.description = 'Unreviewed text slipped in.';
      doc['package_text'] = `${JSON.stringify(pkg, null, 2)}\n`;
      doc['status'] = 'approved';
    });
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toMatch(/author's signature does not stand .*covers other bytes/);
    await nothingPublished();
  });

  it("3. refuses an approval signed with the author's key, whatever name it claims", async () => {
    const id = await file('prod', WEATHER);
    expect((await cli('alice', ['review', 'approve', id])).code).toBe(8);
    const doc = JSON.parse(await readFile(requestFile(id), 'utf8')) as { signature: { statement: string }; manifest_hash: string };
    const statement = statementText({ ...parseStatement(doc.signature.statement)!, decision: 'approve' });
    const signature = await signData(statement, { file: signers.keys['alice']!.key }, { PATH: process.env['PATH'] });
    await editRequest(id, (d) => {
      (d['approvals'] as unknown[]).push({ reviewer: 'bob@example.com', at: new Date().toISOString(), hash: doc.manifest_hash, bytes_sha256: parseStatement(statement)!.bytes, statement, signature, key: 'SHA256:x' });
      d['status'] = 'approved';
    });
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toContain("signed with the author's own key");
    const shown = JSON.parse((await cli('bob', ['review', 'show', id, '--json'])).stdout) as { signatures: { role: string; principal: string; counts: boolean }[] };
    expect(shown.signatures.map((s) => [s.role, s.principal, s.counts])).toEqual([
      ['author', 'alice@example.com', true],
      ['approval', 'alice@example.com', false],
    ]);
    await nothingPublished();
  });

  it('4. refuses a request approved for staging and retargeted to production', async () => {
    const id = await approved('stg', WEATHER);
    await editRequest(id, (doc) => (doc['connection'] = 'prod'));
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toContain(`names registry local://`);
    expect(run.stderr).toContain(`not ${host.url}`);
    await nothingPublished();
  });

  it('5. refuses approved content of one skill retargeted to another', async () => {
    const id = await approved('prod', CURRENCY);
    await editRequest(id, (doc) => (doc['skill'] = { namespace: 'travel', name: 'action-verification' }));
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toContain('names skill travel/currency-conversion, not travel/action-verification');
    await nothingPublished();
  });

  it("6. refuses a raw connection string: the other host is never contacted, so never sent the token", async () => {
    const id = await approved('prod', WEATHER);
    await editRequest(id, (doc) => (doc['connection'] = catcherUrl));
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toContain('is not a saved connection name');
    expect(seen).toEqual([]);
    expect(run.stderr + run.stdout).not.toContain(TOKEN);
    await nothingPublished();
  });

  it('7. refuses a direct CLI publish to the protected stores by name, path, symlink or URL', async () => {
    await symlink(stgDir, join(work, 'stg-link'));
    for (const to of ['prod', 'stg', `local:${stgDir}`, `local:${join(work, 'stg-link')}`, `local:${join(work, 'stg-link')}/`, host.url, `${host.url}/`]) {
      const run = await cli('alice', ['publish', WEATHER, '--to', to]);
      expect(run.code, `${to}: ${run.stderr}`).toBe(8);
      expect(run.stderr).toContain('approved review request');
    }
    // Nothing was opened for the refused writes: the staging folder holds no registry.
    await expect(openLocalStore(stgDir, { create: false })).rejects.toMatchObject({ code: 'not_found' });
    await nothingPublished();
  });

  it('7b. leaves the rail no side door: sync, a registry serve without --require-approval, an import that replaces the profile', { timeout: 120_000 }, async () => {
    for (const to of ['stg', `local:${join(work, 'stg-link')}`, host.url]) {
      const run = await cli('alice', ['sync', '--from', ws, '--to', to]);
      expect(run.code, `sync --to ${to}: ${run.stderr}`).toBe(8);
    }
    // A host over a protected store must be the control: it refuses to start without enforcing approvals.
    for (const store of ['stg', `local:${stgDir}`]) {
      const run = await cli('alice', ['registry', 'serve', '--store', store, '--port', '0']);
      expect(run.code, `registry serve --store ${store}: ${run.stderr}`).toBe(8);
      expect(run.stderr).toContain("protected connection 'stg'");
    }
    // An import that replaces the profile keeps its guard on.
    const manager = new ConnectionManager({ dataDir: home, env: {} });
    const exported = await manager.exportProfiles(['stg']);
    const lowered = JSON.parse(JSON.stringify(exported)) as { profiles: { name: string; protected?: boolean }[] };
    for (const p of lowered.profiles) p.protected = false;
    expect((await manager.importProfiles(lowered, 'replace')).replaced).toEqual(['stg']);
    expect((await manager.get('stg')).protected).toBe(true);
    const run = await cli('alice', ['publish', WEATHER, '--to', 'stg']);
    expect(run.code, run.stderr).toBe(8);
    await expect(openLocalStore(stgDir, { create: false })).rejects.toMatchObject({ code: 'not_found' });
    await nothingPublished();
  });

  it('8. the host refuses a direct PUT or DELETE, bare or carrying another request\'s approval (403 approval_required, body-free log)', async () => {
    const body = await readFile(join(ws, WEATHER), 'utf8');
    const put = (headers: Record<string, string>) =>
      fetch(`${host.url}/travel/weather-assessment`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'if-none-match': '*', 'idempotency-key': crypto.randomUUID(), ...headers }, body });
    const bare = await put({});
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('approval_required');

    // A genuine approval of currency-conversion, replayed on weather-assessment.
    const id = await approved('prod', CURRENCY);
    const doc = JSON.parse(await readFile(requestFile(id), 'utf8')) as { signature: { statement: string; signature: string }; approvals: { statement: string; signature: string }[] };
    const attestation = encodeAttestation({ request: doc.signature, approval: doc.approvals[0]! });
    const replayed = await put({ 'x-skillbench-approval': attestation });
    expect(replayed.status).toBe(403);
    expect(((await replayed.json()) as { error: { message: string } }).error.message).toContain('names skill travel/currency-conversion, not travel/weather-assessment');
    const removal = await fetch(`${host.url}/travel/currency-conversion/versions/1`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}`, 'if-match': '"v1-x"', 'x-audit-reason': 'cleanup', 'x-skillbench-approval': attestation } });
    expect(removal.status).toBe(403);
    // The host logs a request when its answer is done: wait for the lines to arrive.
    await expect.poll(() => writesLogged().filter((l) => /^PUT \/api\/v1\/skills\/\{namespace\}\/\{name\} 403 \S+ approval_required$/.test(l)).length).toBe(2);
    await expect.poll(() => writesLogged().some((l) => /^DELETE \S+ 403 \S+ approval_required$/.test(l))).toBe(true);
    expect(host.log()).not.toContain('weather');
    expect(host.log()).not.toContain(TOKEN);
    await nothingPublished();
  });

  it('9. refuses a delete through the protected profile by name, URL or path', async () => {
    for (const from of ['prod', host.url, 'stg', `local:${join(work, 'stg-link')}`]) {
      const run = await cli('alice', ['delete', 'travel/weather-assessment', '--version', '1', '--if-match', '"v1-x"', '--reason', 'cleanup', '--from', from]);
      expect(run.code, `${from}: ${run.stderr}`).toBe(8);
    }
    expect(writesLogged().filter((l) => l.startsWith('DELETE') && !l.endsWith('approval_required'))).toEqual([]);
    await nothingPublished();
  });

  it('the genuine journey publishes through the enforcing host, with the approval attached; the token went only to that host', async () => {
    const id = await approved('prod', WEATHER);
    const run = await cli('bob', ['review', 'publish', id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id, status: 'published', outcome: 'created', version: 1 });
    expect(await prodHolds()).toEqual([...before, 'travel/weather-assessment@1'].sort());
    expect(writesLogged().filter((l) => / 201 /.test(l))).toHaveLength(1);
    const store = await openLocalStore(prodDir, { create: false });
    try {
      expect((await store.getPublished(WEATHER_ID)).manifest_hash).toBe(JSON.parse(await readFile(requestFile(id), 'utf8')).manifest_hash);
    } finally {
      await store.close();
    }
    expect(seen).toEqual([]);
  });
});
