/**
 * The `reviews.*` methods over the direct transport: two sessions (author and
 * reviewer) on one workspace and one protected connection. Only an approved,
 * unchanged request publishes, and exactly the approved manifest hash.
 */
import { mkdir, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openReviewPair, type ReviewPair, type Workbench } from '../../../helpers/workbench';
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
    expect(created).toMatchObject({ status: 'open', author: 'alice', viewer: 'alice', viewer_is_author: true, base: null, skill: SKILL });
    expect((await failure(alice.client['reviews.approve']({ id: created.id }))).data).toMatchObject({ code: 'forbidden', details: { reason: 'own_request' } });
    expect(await bob.client['reviews.get']({ id: created.id })).toMatchObject({ viewer_is_author: false, status: 'open' });
    const approved = await bob.client['reviews.approve']({ id: created.id, comment: 'fine' });
    expect(approved.approvals).toEqual([expect.objectContaining({ reviewer: 'bob', comment: 'fine', hash: created.manifest_hash, stale: false })]);

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
