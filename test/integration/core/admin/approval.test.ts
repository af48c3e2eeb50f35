/**
 * The approval-enforcing host on a real loopback socket, with real keys made by
 * ssh-keygen: a publish or delete of a guarded skill passes only with an
 * attestation that verifies against the host's allowed signers, is not the
 * author's own, and binds this skill, this If-Match ETag (or a create), these
 * body bytes and this host. Everything else is 403 `approval_required`, logged
 * without a body. Unguarded skills, and a host without the policy, ignore the
 * header: the HTTP client sends it to any V1 host.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalRequired, bodyDigest } from '../../../../core/admin/approval';
import { createAdminHandler } from '../../../../core/admin/handler';
import type { AdminLogEntry } from '../../../../core/admin/types';
import { createAdminServer, stopServer } from '../../../../core/admin/server';
import { computeIntegrity, validatePackage } from '../../../../core/package/index';
import { signData } from '../../../../core/review/sshsig';
import { deleteAction, statementText, type Statement } from '../../../../core/review/statement';
import { encodeAttestation } from '../../../../core/review/verify';
import { openHttpStore } from '../../../../core/store/http';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';
import { makeKey, writeAllowedSigners, type TestKey } from '../../../helpers/sshKeys';
import { samplePackage } from '../store/samplePackage';

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
const ID = { namespace: 'travel', name: 'weather-check' };

describe('registry serve --require-approval', () => {
  let dir: string;
  let store: SkillStore;
  let author: TestKey;
  let reviewer: TestKey;
  let outsider: TestKey;
  let allowed: string;
  let origin: string;
  let registry: string;
  const logs: AdminLogEntry[] = [];
  let close: () => Promise<void>;

  const body = (seed: string) => JSON.stringify(samplePackage(seed));
  const manifest = async (text: string) => (await computeIntegrity(validatePackage(text, { id: ID }).normalized!)).manifest_hash;
  /** The two signed statements a client attaches, over `fields`, signed by `by` (author) and `approver`. */
  const attestation = async (fields: Omit<Statement, 'decision'>, by: TestKey, approver: TestKey) => {
    const req = statementText({ ...fields, decision: 'request' });
    const ok = statementText({ ...fields, decision: 'approve' });
    return encodeAttestation({
      request: { statement: req, signature: await signData(req, { file: by.key }, env) },
      approval: { statement: ok, signature: await signData(ok, { file: approver.key }, env) },
    });
  };
  const publishFields = async (text: string, base: Statement['base'], over: Partial<Statement> = {}): Promise<Omit<Statement, 'decision'>> => ({
    request: 'travel.weather-check.r1',
    registry,
    skill: ID,
    action: 'publish',
    base,
    manifest: await manifest(text),
    bytes: bodyDigest(text),
    ...over,
  });
  const put = (text: string, headers: Record<string, string>, id = ID) =>
    request(`${origin}/api/v1/skills/${id.namespace}/${id.name}`, { method: 'PUT', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers }, body: text });
  const code = async (answer: Awaited<ReturnType<typeof put>>) => ((await answer.body.json()) as { error?: { code: string; message: string } }).error;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-approval-host-'));
    await mkdir(join(dir, 'keys'));
    author = await makeKey(join(dir, 'keys'), 'ana');
    reviewer = await makeKey(join(dir, 'keys'), 'rita');
    outsider = await makeKey(join(dir, 'keys'), 'oscar');
    allowed = await writeAllowedSigners(join(dir, 'keys', 'allowed_signers'), [author, reviewer]);
    store = await openLocalStore(join(dir, 'registry'));
    let port = 0;
    const handler = createAdminHandler({
      store,
      approval: { patterns: ['travel'], allowedSigners: allowed, env, registry: () => `http://127.0.0.1:${port}/api/v1/skills` },
      logger: { request: (e) => logs.push(e) },
    });
    const server = createAdminServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    registry = `${origin}/api/v1/skills`;
    close = () => stopServer(server, 1000);
  });
  afterAll(async () => {
    await close?.();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('matches namespace and namespace/name globs', () => {
    const policy = { patterns: ['travel', 'prod-*', 'devops/incident-*'], allowedSigners: '', env };
    expect(approvalRequired(policy, ID)).toBe(true);
    expect(approvalRequired(policy, { namespace: 'prod-eu', name: 'x' })).toBe(true);
    expect(approvalRequired(policy, { namespace: 'devops', name: 'incident-response' })).toBe(true);
    expect(approvalRequired(policy, { namespace: 'devops', name: 'kubernetes-safety' })).toBe(false);
    expect(approvalRequired(policy, { namespace: 'travelx', name: 'x' })).toBe(false);
  });

  it('refuses a guarded publish without an attestation, before reading its body, with a body-free log line', async () => {
    const answer = await put(body('bare'), { 'if-none-match': '*' });
    expect(answer.statusCode).toBe(403);
    expect((await code(answer))?.code).toBe('approval_required');
    expect(logs.at(-1)).toMatchObject({ method: 'PUT', route: '/api/v1/skills/{namespace}/{name}', status: 403, code: 'approval_required' });
    expect(JSON.stringify(logs)).not.toContain('bare');
  });

  it('refuses attestations that do not stand: the author approving, an outsider, a revoked key, other bytes, base, skill or host', async () => {
    const text = body('v1');
    const fields = await publishFields(text, null);
    const cases: [string, string, Record<string, string>][] = [
      ['own', await attestation(fields, author, author), {}],
      ['outsider', await attestation(fields, author, outsider), {}],
      ['other bytes', await attestation(await publishFields(body('other'), null), author, reviewer), {}],
      ['other base', await attestation(await publishFields(text, { version: 3, etag: '"v3-abc"' }), author, reviewer), {}],
      ['other skill', await attestation(await publishFields(text, null, { skill: { namespace: 'travel', name: 'other' } }), author, reviewer), {}],
      ['other host', await attestation(await publishFields(text, null, { registry: 'http://staging.example/api/v1/skills' }), author, reviewer), {}],
      ['a deletion', await attestation(await publishFields(text, null, { action: deleteAction(1, 1) }), author, reviewer), {}],
      ['not one', 'bm90IGFuIGF0dGVzdGF0aW9u', {}],
    ];
    for (const [what, value] of cases) {
      const answer = await put(text, { 'if-none-match': '*', 'x-skillbench-approval': value });
      expect(answer.statusCode, what).toBe(403);
      const error = await code(answer);
      expect(error?.code, what).toBe('approval_required');
    }
    await expect(store.getPublished(ID)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('publishes with a standing attestation, then refuses it for the next revision and once the reviewer is revoked', async () => {
    const text = body('v1');
    const created = await put(text, { 'if-none-match': '*', 'x-skillbench-approval': await attestation(await publishFields(text, null), author, reviewer) });
    expect(created.statusCode).toBe(201);
    const first = (await created.body.json()) as { etag: string; version: number };
    // The same approval cannot be replayed on the next revision: it binds "new skill".
    const next = body('v2');
    const replay = await put(next, { 'if-match': first.etag, 'x-skillbench-approval': await attestation(await publishFields(text, null), author, reviewer) });
    expect(replay.statusCode).toBe(403);
    await replay.body.dump();
    const v2Fields = await publishFields(next, { version: first.version, etag: first.etag });
    const good = await attestation(v2Fields, author, reviewer);
    await writeAllowedSigners(allowed, [author]);
    try {
      const revoked = await put(next, { 'if-match': first.etag, 'x-skillbench-approval': good });
      expect(revoked.statusCode).toBe(403);
      expect((await code(revoked))?.message).toContain('not in the allowed signers');
    } finally {
      await writeAllowedSigners(allowed, [author, reviewer]);
    }
    const updated = await put(next, { 'if-match': first.etag, 'x-skillbench-approval': good });
    expect(updated.statusCode).toBe(200);
    await updated.body.dump();
    expect((await store.getPublished(ID)).version).toBe(2);
  });

  it('guards deletes: only an attestation of that deletion, on that ETag, passes', async () => {
    const published = await store.getPublished(ID);
    await store.publish({ id: ID, body: body('v3'), precondition: { kind: 'if-match', etag: published.etag } });
    const current = await store.getPublished(ID);
    const del = (headers: Record<string, string>) =>
      request(`${origin}/api/v1/skills/travel/weather-check/versions/1`, { method: 'DELETE', headers: { 'if-match': current.etag, 'x-audit-reason': 'retention', ...headers } });
    const bare = await del({});
    expect(bare.statusCode).toBe(403);
    await bare.body.dump();
    const fields = { request: 'travel.weather-check.d1', registry, skill: ID, action: deleteAction(1, 1), base: { version: current.version, etag: current.etag }, manifest: current.manifest_hash, bytes: bodyDigest('') };
    const wrongRange = await del({ 'x-skillbench-approval': await attestation({ ...fields, action: deleteAction(1, 2) }, author, reviewer) });
    expect(wrongRange.statusCode).toBe(403);
    await wrongRange.body.dump();
    const ok = await del({ 'x-skillbench-approval': await attestation(fields, author, reviewer) });
    expect(ok.statusCode).toBe(200);
    expect(((await ok.body.json()) as { deleted: number[] }).deleted).toEqual([1]);
  });

  it('needs nothing for an unguarded skill; a host without the policy ignores the header the client sends', async () => {
    const other = { namespace: 'devops', name: 'weather-check' };
    const answer = await put(body('d1'), { 'if-none-match': '*', 'x-skillbench-approval': 'ignored' }, other);
    expect(answer.statusCode).toBe(201);
    await answer.body.dump();
    const plainStore = await openLocalStore(join(dir, 'plain'));
    const plain = createAdminServer(createAdminHandler({ store: plainStore }));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const client = await openHttpStore(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/api/v1/skills`, { token: '' });
    try {
      const result = await client.publish({ id: ID, body: body('p1'), precondition: { kind: 'create' }, approval: 'any-attestation' });
      expect(result.outcome).toBe('created');
    } finally {
      await client.close();
      await stopServer(plain, 1000);
      await plainStore.close();
    }
  });
});
