/**
 * Comments on a publication request: anchored to RFC 6901 JSON Pointers
 * (escapes `~0` and `~1` accepted, anything else refused at `/pointer`),
 * kept in the request file, and never touching the package or an approval.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { approveRequest, commentRequest, createRequest, isStale, type ReviewContext } from '../../../../core/review/request';
import { resolveSigner } from '../../../../core/review/signer';
import { makeSigners } from '../../../helpers/sshKeys';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';

const DRAFT = 'skills/packages/travel/weather-assessment.json';

describe('commentRequest', () => {
  let root: string;
  let store: SkillStore;
  let id: string;
  let work: string;
  const as: Record<string, ReviewContext> = {};

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-review-comments-'));
    root = join(work, 'ws');
    await cp(resolve('examples', DRAFT), join(root, DRAFT));
    store = await openLocalStore(join(work, 'registry'));
    await mkdir(join(work, 'keys'));
    const { keys, allowed } = await makeSigners(join(work, 'keys'), ['alice', 'bob']);
    for (const name of ['alice', 'bob']) {
      as[name] = { root, signer: resolveSigner(root, { PATH: process.env['PATH'] }, { signingKey: keys[name]!.key, allowedSigners: allowed }), registry: async () => 'local://test/registry' };
    }
    id = (await createRequest(as['alice']!, { file: DRAFT, connection: 'local', store })).id;
  });
  afterAll(async () => {
    await store?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('accepts RFC 6901 pointers and keeps each comment with its author', async () => {
    for (const pointer of ['', '/description', '/a~1b/0', '/m~0n', '/']) await commentRequest(as['bob']!, id, pointer, `on ${pointer}`);
    const doc = JSON.parse(await readFile(join(root, 'skills', 'reviews', `${id}.json`), 'utf8'));
    expect(doc.comments.map((c: { pointer: string; author: string }) => [c.pointer, c.author])).toEqual(['', '/description', '/a~1b/0', '/m~0n', '/'].map((p) => [p, 'bob@example.com']));
  });

  it('refuses what is not a JSON Pointer, and empty text, at the field', async () => {
    for (const pointer of ['description', '/a~2', '/a~', '#/description']) {
      const error = await commentRequest(as['bob']!, id, pointer, 'x').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkbenchError);
      expect(error).toMatchObject({ code: 'invalid_request', details: { pointer: '/pointer' } });
    }
    await expect(commentRequest(as['bob']!, id, '', '   ')).rejects.toMatchObject({ code: 'invalid_request', details: { pointer: '/text' } });
  });

  it('leaves an approval current', async () => {
    const approved = await approveRequest(as['bob']!, id);
    const commented = await commentRequest(as['alice']!, id, '/description', 'thanks');
    expect(commented.status).toBe('approved');
    expect(commented.manifest_hash).toBe(approved.manifest_hash);
    expect(await isStale(root, commented, store.limits)).toBe(false);
  });
});
