/**
 * Comments on a publication request: anchored to RFC 6901 JSON Pointers
 * (escapes `~0` and `~1` accepted, anything else refused at `/pointer`),
 * kept in the request file, and never touching the package or an approval.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { approveRequest, commentRequest, createRequest, isStale } from '../../../../core/review/request';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';

const DRAFT = 'skills/packages/travel/weather-assessment.json';

describe('commentRequest', () => {
  let root: string;
  let store: SkillStore;
  let id: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbench-review-comments-'));
    await cp(resolve('examples', DRAFT), join(root, DRAFT));
    store = await openLocalStore(join(root, 'registry'));
    id = (await createRequest({ root, actor: 'alice' }, { file: DRAFT, connection: 'local', store })).id;
  });
  afterAll(async () => {
    await store?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('accepts RFC 6901 pointers and keeps each comment with its author', async () => {
    for (const pointer of ['', '/description', '/a~1b/0', '/m~0n', '/']) await commentRequest({ root, actor: 'bob' }, id, pointer, `on ${pointer}`);
    const doc = JSON.parse(await readFile(join(root, 'skills', 'reviews', `${id}.json`), 'utf8'));
    expect(doc.comments.map((c: { pointer: string; author: string }) => [c.pointer, c.author])).toEqual([['', 'bob'], ['/description', 'bob'], ['/a~1b/0', 'bob'], ['/m~0n', 'bob'], ['/', 'bob']]);
  });

  it('refuses what is not a JSON Pointer, and empty text, at the field', async () => {
    for (const pointer of ['description', '/a~2', '/a~', '#/description']) {
      const error = await commentRequest({ root, actor: 'bob' }, id, pointer, 'x').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkbenchError);
      expect(error).toMatchObject({ code: 'invalid_request', details: { pointer: '/pointer' } });
    }
    await expect(commentRequest({ root, actor: 'bob' }, id, '', '   ')).rejects.toMatchObject({ code: 'invalid_request', details: { pointer: '/text' } });
  });

  it('leaves an approval current', async () => {
    const approved = await approveRequest({ root, actor: 'bob' }, id);
    const commented = await commentRequest({ root, actor: 'alice' }, id, '/description', 'thanks');
    expect(commented.status).toBe('approved');
    expect(commented.manifest_hash).toBe(approved.manifest_hash);
    expect(await isStale(root, commented, store.limits)).toBe(false);
  });
});
