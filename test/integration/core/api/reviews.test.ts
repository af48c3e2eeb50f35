/**
 * The `reviews.*` methods over the direct transport: two sessions (author and
 * reviewer) on one workspace and one protected connection. Only an approved,
 * unchanged request publishes, and exactly the approved manifest hash.
 * Whoever acts is the principal of the key that signs, whatever name the
 * environment or git gives.
 */
import { mkdir, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openReviewPair, openWorkbench, type ReviewPair, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const SKILL = { namespace: 'travel', name: 'weather-assessment' };
const DRAFT = 'skills/packages/travel/weather-assessment.json';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

describe('reviews through the WorkbenchApi', () => {
  let ws: string;
  let alice: Workbench;
  let bob: Workbench;

  let pair: ReviewPair | undefined;
  beforeAll(async () => {
    pair = await openReviewPair('direct', DRAFT);
    ({ ws, alice, bob } = pair);
  });
  afterAll(() => pair?.close());

  it('refuses a direct publish to the protected connection', async () => {
    const text = await readFile(join(ws, DRAFT), 'utf8');
    const error = await failure(alice.client['publish.package']({ connection: 'prod', skill: SKILL, text, base: null, idempotency_key: 'direct-1' }));
    expect(error.data).toMatchObject({ code: 'forbidden', details: { reason: 'protected' } });
  });

  it('an author cannot approve; a draft edited after approval is stale and publishes nothing; an unchanged one publishes the approved hash', async () => {
    const created = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'first' });
    expect(created).toMatchObject({ status: 'open', author: 'alice@example.com', viewer: 'alice@example.com', viewer_is_author: true, base: null, skill: SKILL });
    expect((await failure(alice.client['reviews.approve']({ id: created.id }))).data).toMatchObject({ code: 'forbidden', details: { reason: 'own_request' } });
    expect(await bob.client['reviews.get']({ id: created.id })).toMatchObject({ viewer_is_author: false, status: 'open' });
    const approved = await bob.client['reviews.approve']({ id: created.id, comment: 'fine' });
    expect(approved.approvals).toEqual([expect.objectContaining({ reviewer: 'bob@example.com', comment: 'fine', hash: created.manifest_hash, stale: false, verified: true })]);

    const pkg = JSON.parse(await readFile(join(ws, DRAFT), 'utf8'));
    pkg.description = 'Changed after the approval.';
    await writeFile(join(ws, DRAFT), JSON.stringify(pkg, null, 2));
    expect(await bob.client['reviews.get']({ id: created.id })).toMatchObject({ status: 'stale', stale: true });
    const stale = await failure(bob.client['reviews.publish']({ id: created.id, idempotency_key: 'rv-1' }));
    expect(stale.data).toMatchObject({ code: 'precondition_failed', details: { reason: 'stale' } });
    expect((await failure(bob.client['packages.get']({ connection: 'prod', skill: SKILL }))).data.code).toBe('not_found');

    const second = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'second' });
    await bob.client['reviews.approve']({ id: second.id });
    const outcome = await bob.client['reviews.publish']({ id: second.id, idempotency_key: 'rv-2' });
    expect(outcome).toMatchObject({ skill: SKILL, outcome: 'created', version: 1, manifest_hash: second.manifest_hash });
    const stored = await bob.client['packages.get']({ connection: 'prod', skill: SKILL });
    expect(stored.manifest_hash).toBe(second.manifest_hash);
    expect(stored.package.description).toBe('Changed after the approval.');
    const list = await alice.client['reviews.list']({ status: 'published' });
    expect(list.reviews.map((r) => r.id)).toEqual([second.id]);
  });

  it('refuses a request file rewritten by hand (status set, text changed), through workspace.save or on disk: nothing is published', async () => {
    const created = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'forged' });
    const read = await alice.client['workspace.read']({ path: created.file });
    const doc = JSON.parse(read.text) as Record<string, unknown>;
    const pkg = JSON.parse(doc['package_text'] as string) as { description: string };
    pkg.description = 'Never reviewed.';
    const forged = JSON.stringify({ ...doc, status: 'approved', package_text: `${JSON.stringify(pkg, null, 2)}\n` }, null, 2);
    // The API writes only package files: a request file is written through the review methods alone.
    expect((await failure(alice.client['workspace.save']({ path: created.file, text: forged, base_hash: read.hash }))).data).toMatchObject({ code: 'forbidden' });
    // Whoever can push the file can still rewrite it; the signatures then refuse it.
    await writeFile(join(ws, created.file), forged);
    const before = await bob.client['packages.get']({ connection: 'prod', skill: SKILL });
    const refused = await failure(alice.client['reviews.publish']({ id: created.id, idempotency_key: 'forged-1' }));
    expect(refused.data).toMatchObject({ code: 'forbidden' });
    expect(refused.data.message).toContain("the author's signature does not stand");
    expect((await bob.client['packages.get']({ connection: 'prod', skill: SKILL })).etag).toBe(before.etag);
    const shown = await bob.client['reviews.get']({ id: created.id });
    expect(shown).toMatchObject({ verified_approval: false });
    expect(shown.signatures[0]).toMatchObject({ role: 'author', principal: 'alice@example.com', verified: true, counts: false });
  });

  it('refuses delete.versions through the protected profile; an approved deletion request deletes', async () => {
    // Two more revisions published by the approved route, so v1 is neither published nor its predecessor.
    for (const note of ['v2', 'v3']) {
      const pkg = JSON.parse(await readFile(join(ws, DRAFT), 'utf8'));
      pkg.change_reason = note;
      pkg.description = `${pkg.description.split(' (')[0]} (${note})`;
      await writeFile(join(ws, DRAFT), JSON.stringify(pkg, null, 2));
      const r = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note });
      await bob.client['reviews.approve']({ id: r.id });
      await bob.client['reviews.publish']({ id: r.id, idempotency_key: `del-${note}` });
    }
    const current = await bob.client['packages.get']({ connection: 'prod', skill: SKILL });
    expect(current.version).toBe(3);
    const direct = await failure(bob.client['delete.versions']({ connection: 'prod', skill: SKILL, from: 1, to: 1, if_match: current.etag, reason: 'retention', confirmation: 'travel/weather-assessment@v1' }));
    expect(direct.data).toMatchObject({ code: 'forbidden', details: { reason: 'protected' } });
    const request = await alice.client['reviews.create']({ source: { kind: 'delete', skill: SKILL, from: 1, to: 1, reason: 'retention' }, connection: 'prod', note: 'drop v1' });
    expect(request).toMatchObject({ action: 'delete', delete: { from: 1, to: 1, reason: 'retention' }, package: null, base: { version: 3, etag: current.etag } });
    expect((await failure(alice.client['reviews.approve']({ id: request.id }))).data).toMatchObject({ code: 'forbidden', details: { reason: 'own_request' } });
    await bob.client['reviews.approve']({ id: request.id });
    const outcome = await bob.client['reviews.publish']({ id: request.id, idempotency_key: 'del-1' });
    expect(outcome).toMatchObject({ outcome: 'deleted', deleted: [1] });
    const versions = await bob.client['versions.list']({ connection: 'prod', skill: SKILL });
    expect(versions.versions.find((v) => v.version === 1)?.status).toBe('deleted');
  });

  it('never switches protection off on a plain save: only with the typed confirmation', async () => {
    const saved = (await alice.client['connections.list']()).connections.find((c) => c.profile.name === 'prod')!.profile;
    const { created_at: _c, updated_at: _u, label: _l, ...input } = saved;
    const refused = await failure(alice.client['connections.save']({ profile: { ...input, protected: false }, previous_name: 'prod' }));
    expect(refused.data).toMatchObject({ code: 'forbidden', details: { reason: 'protected_flag', expected: 'prod' } });
    expect((await failure(alice.client['connections.save']({ profile: { ...input, protected: false }, previous_name: 'prod', confirm_unprotect: 'stg' }))).data.code).toBe('forbidden');
    expect((await alice.client['connections.list']()).connections.find((c) => c.profile.name === 'prod')!.profile.protected).toBe(true);
    const lowered = await alice.client['connections.save']({ profile: { ...input, protected: false }, previous_name: 'prod', confirm_unprotect: 'prod' });
    expect(lowered.profile.protected).toBe(false);
    await alice.client['connections.save']({ profile: { ...input, protected: true }, previous_name: 'prod' });
  });

  it('names whoever acts by the principal of their key, never SKILLBENCH_USER, USER or git user.name', async () => {
    /** A session signing with `key` whose environment, git config and actor all claim to be `claims`. */
    const claiming = (key: 'alice' | 'bob', claims: string) =>
      openWorkbench('direct', {
        dataDir: join(pair!.work, 'data'),
        actor: claims,
        env: { PATH: process.env['PATH'], SKILLBENCH_USER: claims, USER: claims, LOGNAME: claims, GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: claims, GIT_CONFIG_KEY_1: 'user.email', GIT_CONFIG_VALUE_1: claims },
        signing: { signingKey: pair!.keys[key].key, allowedSigners: pair!.allowed },
      });
    const aliceAsBob = await claiming('alice', 'bob@example.com');
    const bobAsAlice = await claiming('bob', 'alice@example.com');
    try {
      await aliceAsBob.client['workspace.open']({ dir: ws });
      await bobAsAlice.client['workspace.open']({ dir: ws });
      expect(await aliceAsBob.client['reviews.signer']()).toMatchObject({ principal: 'alice@example.com' });
      expect(await bobAsAlice.client['reviews.signer']()).toMatchObject({ principal: 'bob@example.com' });

      const pkg = JSON.parse(await readFile(join(ws, DRAFT), 'utf8'));
      pkg.description = `${pkg.description.split(' (')[0]} (identity)`;
      pkg.change_reason = 'identity';
      await writeFile(join(ws, DRAFT), JSON.stringify(pkg, null, 2));
      const created = await aliceAsBob.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'who am I?' });
      expect(created).toMatchObject({ author: 'alice@example.com', viewer: 'alice@example.com', viewer_is_author: true });
      // Claiming the reviewer's name approves nothing: the key is the author's.
      expect((await failure(aliceAsBob.client['reviews.approve']({ id: created.id }))).data).toMatchObject({ code: 'forbidden', details: { reason: 'own_request' } });

      const approved = await bobAsAlice.client['reviews.approve']({ id: created.id });
      expect(approved).toMatchObject({ viewer: 'bob@example.com', viewer_is_author: false });
      expect(approved.signatures.map((s) => [s.role, s.principal, s.counts])).toEqual([
        ['author', 'alice@example.com', true],
        ['approval', 'bob@example.com', true],
      ]);
      const heard: (string | undefined)[] = [];
      const off = bobAsAlice.client.on('store.changed', (e) => heard.push(e.actor));
      try {
        await bobAsAlice.client['reviews.publish']({ id: created.id, idempotency_key: 'identity-1' });
        // The store's cue names the publisher as the store's audit does: by key, not by the session's claimed name.
        await expect.poll(() => heard).toEqual(['bob@example.com']);
      } finally {
        off();
      }
      const done = await aliceAsBob.client['reviews.get']({ id: created.id });
      expect(done.history.map((h) => [h.action, h.actor])).toEqual([
        ['created', 'alice@example.com'],
        ['approved', 'bob@example.com'],
        ['published', 'bob@example.com'],
      ]);
    } finally {
      await aliceAsBob.close();
      await bobAsAlice.close();
    }
  });

  it('announces a request that arrives from another session as reviews.changed', async () => {
    const heard: string[] = [];
    const off = bob.client.on('reviews.changed', (e) => heard.push(e.id));
    try {
      const created = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'arrives' });
      await expect.poll(() => heard, { timeout: 30_000 }).toContain(created.id);
    } finally {
      off();
    }
  });

  it('never reads a request source or writes a request outside the workspace', async () => {
    const created = await alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'boundary' });
    await bob.client['reviews.approve']({ id: created.id });
    // A request file pointing its source out of the workspace, at a copy of the approved bytes: never read, so the request is stale.
    const outside = join(pair!.work, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'weather-assessment.json'), await readFile(join(ws, DRAFT), 'utf8'));
    const file = join(ws, 'skills', 'reviews', `${created.id}.json`);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    await rm(join(ws, DRAFT));
    for (const source of ['../outside/weather-assessment.json', 'skills/packages/travel/linked.json']) {
      await rm(join(ws, 'skills', 'packages', 'travel', 'linked.json'), { force: true });
      if (source.endsWith('linked.json')) await symlink(join(outside, 'weather-assessment.json'), join(ws, 'skills', 'packages', 'travel', 'linked.json'));
      await writeFile(file, JSON.stringify({ ...doc, source }, null, 2));
      expect(await bob.client['reviews.get']({ id: created.id }), source).toMatchObject({ status: 'stale', stale: true });
      expect((await failure(bob.client['reviews.publish']({ id: created.id, idempotency_key: `rv-out-${source.length}` }))).data).toMatchObject({ details: { reason: 'stale' } });
    }
    // A reviews folder linked out of the workspace is neither listed nor written into.
    await rename(join(ws, 'skills', 'reviews'), join(outside, 'reviews'));
    await symlink(join(outside, 'reviews'), join(ws, 'skills', 'reviews'));
    const before = await readdir(join(outside, 'reviews'));
    expect((await failure(alice.client['reviews.list']({}))).data).toMatchObject({ code: 'forbidden', details: { reason: 'outside_workspace' } });
    await writeFile(join(ws, DRAFT), doc.package_text);
    expect((await failure(alice.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', note: 'out' }))).data).toMatchObject({ code: 'forbidden' });
    expect(await readdir(join(outside, 'reviews'))).toEqual(before);
  });
});
