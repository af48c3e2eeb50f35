/**
 * `skillbench review …` end to end through the binary, on a protected saved
 * connection: a direct publish is refused, an author cannot approve their own
 * request, and an approved request can never publish bytes other than the
 * approved hash: the draft, the request file and the store are each changed
 * behind the reviewer's back, and each time nothing is published (exit 3, stale).
 * Whoever acts is the principal of the key that signs: a name claimed through
 * SKILLBENCH_USER, USER or git's user.name approves nothing.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../../core/connections/manager';
import { computeIntegrity, validatePackage } from '../../../core/package/index';
import { openLocalStore } from '../../../core/store/local';
import { runCli } from '../../helpers/cli';
import { makeSigners, signingEnv } from '../../helpers/sshKeys';

const ID = { namespace: 'travel', name: 'weather-assessment' };
const DRAFT = 'skills/packages/travel/weather-assessment.json';

describe('skillbench review', () => {
  let work: string;
  let ws: string;
  let home: string;
  let registry: string;
  let signers: Awaited<ReturnType<typeof makeSigners>>;
  const cli = (user: 'alice' | 'bob', args: string[]) => runCli(args, { cwd: ws, env: { SKILLBENCH_HOME: home, ...signingEnv(signers.keys[user]!, signers.allowed) } });

  const editDraft = async (description: string) => {
    const pkg = JSON.parse(await readFile(join(ws, DRAFT), 'utf8'));
    pkg.description = description;
    pkg.change_reason = `description: ${description}`;
    await writeFile(join(ws, DRAFT), JSON.stringify(pkg, null, 2));
  };
  const published = async () => {
    const store = await openLocalStore(registry, { create: false }).catch(() => undefined);
    if (!store) return undefined;
    try {
      return await store.getPublished(ID).catch(() => undefined);
    } finally {
      await store.close();
    }
  };
  const createAndApprove = async (note: string): Promise<string> => {
    const created = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--note', note]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const approved = await cli('bob', ['review', 'approve', id, '--comment', 'looks right']);
    expect(approved.code, approved.stderr).toBe(0);
    return id;
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-review-'));
    ws = join(work, 'ws');
    home = join(work, 'home');
    registry = join(work, 'prod-registry');
    await mkdir(join(work, 'keys'));
    signers = await makeSigners(join(work, 'keys'), ['alice', 'bob']);
    await cp(resolve('examples/skills/packages/travel/weather-assessment.json'), join(ws, DRAFT));
    await new ConnectionManager({ dataDir: home, env: {} }).save({
      profile: { name: 'prod', protected: true, environment: { label: 'production', colour: '#c0392b' }, target: { kind: 'local', dir: registry } },
    });
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('refuses a direct publish to the protected connection', async () => {
    const run = await cli('alice', ['publish', DRAFT, '--to', 'prod']);
    expect(run.code).toBe(8);
    expect(run.stderr).toContain('approved review request');
    expect(await published()).toBeUndefined();
  });

  it('files a request; its author cannot approve it; a draft edited after approval makes it stale and publishes nothing', async () => {
    const created = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--note', 'first cut', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const view = JSON.parse(created.stdout);
    expect(view).toMatchObject({ status: 'open', skill: ID, connection: 'prod', author: 'alice@example.com', note: 'first cut', base: null, file: `skills/reviews/${view.id}.json` });
    expect(view.manifest_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const own = await cli('alice', ['review', 'approve', view.id]);
    expect(own.code).toBe(8);
    expect(own.stderr).toContain('someone else must approve');
    const early = await cli('alice', ['review', 'publish', view.id]);
    expect(early.code).toBe(4);
    expect((await cli('bob', ['review', 'approve', view.id, '--comment', 'ok'])).code).toBe(0);
    await editDraft('Edited after the approval.');
    const run = await cli('bob', ['review', 'publish', view.id, '--json']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: 'precondition_failed', details: { reason: 'stale' } });
    expect(run.stderr).toContain('changed after the approval');
    expect(await published()).toBeUndefined();
    const stale = JSON.parse((await cli('bob', ['review', 'list', '--status', 'stale', '--json'])).stdout);
    expect(stale.reviews.map((r: { id: string }) => r.id)).toEqual([view.id]);
    // Publishing it again stays refused.
    expect((await cli('bob', ['review', 'publish', view.id])).code).toBe(3);
  });

  it('refuses a request file whose package was edited after the approval: the approval covers other bytes; the request turns stale', async () => {
    const id = await createAndApprove('second');
    const path = join(ws, 'skills', 'reviews', `${id}.json`);
    const doc = JSON.parse(await readFile(path, 'utf8'));
    const pkg = JSON.parse(doc.package_text);
    pkg.description = 'Slipped in behind the reviewer.';
    doc.package_text = `${JSON.stringify(pkg, null, 2)}\n`;
    await writeFile(path, JSON.stringify(doc, null, 2));
    const run = await cli('bob', ['review', 'publish', id]);
    expect(run.code).toBe(8);
    expect(run.stderr).toContain('covers other bytes');
    expect(await published()).toBeUndefined();
    expect(JSON.parse(await readFile(path, 'utf8')).status).toBe('stale');
  });

  it('marks a request stale on a 412 when the store moved on, and publishes nothing of its own', async () => {
    const id = await createAndApprove('third');
    const other = await openLocalStore(registry);
    const pkg = JSON.parse(await readFile(resolve('examples/skills/packages/travel/weather-assessment.json'), 'utf8'));
    pkg.description = 'Published by someone else meanwhile.';
    const theirs = await other.publish({ id: ID, body: JSON.stringify(pkg), precondition: { kind: 'create' } });
    await other.close();
    const run = await cli('bob', ['review', 'publish', id, '--json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('changed in the store');
    expect((await published())?.manifest_hash).toBe(theirs.manifest_hash);
    expect(JSON.parse((await cli('bob', ['review', 'show', id, '--json'])).stdout)).toMatchObject({ status: 'stale', stale: true });
  });

  it('publishes an approved, unchanged request: exactly the approved bytes and hash', async () => {
    const id = await createAndApprove('fourth');
    const doc = JSON.parse(await readFile(join(ws, 'skills', 'reviews', `${id}.json`), 'utf8'));
    expect(doc.base).toMatchObject({ version: 1 });
    const run = await cli('bob', ['review', 'publish', id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ id, status: 'published', version: 2, manifest_hash: doc.approvals[0].hash });
    const now = await published();
    expect(now?.manifest_hash).toBe(doc.approvals[0].hash);
    const check = validatePackage(doc.package_text, { id: ID });
    expect((await computeIntegrity(check.normalized!)).manifest_hash).toBe(now?.manifest_hash);
    expect(now?.package.description).toBe('Edited after the approval.');
    const list = JSON.parse((await cli('bob', ['review', 'list', '--json'])).stdout);
    expect(list.reviews.map((r: { status: string }) => r.status).sort()).toEqual(['published', 'stale', 'stale', 'stale']);
  });

  it('files, approves and carries out a deletion request; a direct delete through the protected connection is refused', async () => {
    const store = await openLocalStore(registry);
    const current = await store.getPublished(ID);
    const pkg = JSON.parse(await readFile(resolve('examples/skills/packages/travel/weather-assessment.json'), 'utf8'));
    pkg.change_reason = 'v3 by the registry admin';
    const v3 = await store.publish({ id: ID, body: JSON.stringify(pkg), precondition: { kind: 'if-match', etag: current.etag } });
    await store.close();
    const direct = await cli('alice', ['delete', 'travel/weather-assessment', '--version', '1', '--if-match', v3.etag, '--reason', 'retention', '--from', 'prod']);
    expect(direct.code, direct.stderr).toBe(8);
    expect(direct.stderr).toContain('review create --delete');
    const created = await cli('alice', ['review', 'create', '--delete', 'travel/weather-assessment', '--versions', '1', '--reason', 'retention window passed', '--to', 'prod', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const view = JSON.parse(created.stdout);
    expect(view).toMatchObject({ action: 'delete', delete: { from: 1, to: 1, reason: 'retention window passed' }, base: { version: 3, etag: v3.etag }, package: null });
    expect((await cli('bob', ['review', 'approve', view.id])).code).toBe(0);
    const shown = await cli('bob', ['review', 'show', view.id]);
    expect(shown.stdout).toContain('delete v1-1 of travel/weather-assessment');
    expect(shown.stdout).toMatch(/signature approval bob@example\.com SHA256:\S+ verified/);
    const run = await cli('bob', ['review', 'publish', view.id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: view.id, status: 'published', outcome: 'deleted', deleted: [1] });
    const after = await openLocalStore(registry, { create: false });
    try {
      expect((await after.listVersions(ID)).versions.find((v) => v.version === 1)?.status).toBe('deleted');
    } finally {
      await after.close();
    }
  });

  it("names whoever acts by the principal of their key: SKILLBENCH_USER, USER and git user.name claiming the reviewer approve nothing", async () => {
    /** The environment of someone signing with `key` whose environment and git config claim to be `claims`. */
    const claiming = (key: 'alice' | 'bob' | undefined, claims: string) => ({
      SKILLBENCH_HOME: home,
      ...(key ? signingEnv(signers.keys[key]!, signers.allowed) : { SKILLBENCH_ALLOWED_SIGNERS: signers.allowed }),
      SKILLBENCH_USER: claims,
      USER: claims,
      LOGNAME: claims,
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'user.name',
      GIT_CONFIG_VALUE_0: claims,
      GIT_CONFIG_KEY_1: 'user.email',
      GIT_CONFIG_VALUE_1: claims,
    });
    const as = (key: 'alice' | 'bob' | undefined, claims: string, args: string[]) => runCli(args, { cwd: ws, env: claiming(key, claims) });
    await editDraft('Filed under another name.');
    const created = await as('alice', 'bob@example.com', ['review', 'create', DRAFT, '--to', 'prod', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const shown = async (key: 'alice' | 'bob') => JSON.parse((await as(key, 'someone-else', ['review', 'show', id, '--json'])).stdout) as { author: string; viewer: string; viewer_is_author: boolean; approvals: unknown[]; signatures: { role: string; principal: string; counts: boolean }[]; history: { actor: string; action: string }[] };
    expect(await shown('alice')).toMatchObject({ author: 'alice@example.com', viewer: 'alice@example.com', viewer_is_author: true });

    // The author's key approves nothing, whatever name the environment gives; no key at all signs nothing.
    const own = await as('alice', 'bob@example.com', ['review', 'approve', id]);
    expect(own.code, own.stderr).toBe(8);
    expect(own.stderr).toContain('someone else must approve');
    const keyless = await as(undefined, 'bob@example.com', ['review', 'approve', id]);
    expect(keyless.code, keyless.stderr).toBe(2);
    expect(keyless.stderr).toContain('who is signing?');
    expect((await shown('bob')).approvals).toEqual([]);

    // The reviewer's key approves as the reviewer, though the environment claims the author.
    const approved = await as('bob', 'alice@example.com', ['review', 'approve', id]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout + approved.stderr).toContain('bob@example.com');
    expect(approved.stdout + approved.stderr).not.toContain('alice@example.com');
    const text = await as('bob', 'alice@example.com', ['review', 'show', id]);
    expect(text.stdout).toMatch(/^signature request {2}alice@example\.com SHA256:\S+ verified$/m);
    expect(text.stdout).toMatch(/^signature approval bob@example\.com SHA256:\S+ verified$/m);
    const view = await shown('bob');
    expect(view).toMatchObject({ viewer: 'bob@example.com', viewer_is_author: false });
    expect(view.history.map((h) => [h.action, h.actor])).toEqual([
      ['created', 'alice@example.com'],
      ['approved', 'bob@example.com'],
    ]);
  });
});
