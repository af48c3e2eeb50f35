/**
 * `reviews.create` from an unsaved draft and `reviews.comment`, through the
 * WorkbenchApi over a WebSocket: two sessions (author and reviewer) on one
 * workspace and one app-data folder. A request filed from a draft records the
 * normalized package and manifest hash of exactly the draft's autosaved text
 * (not the file on disk); an edit of the draft after approval makes it stale.
 * Comments anchor to JSON Pointers, on a request in any state, signed with the
 * session's identity (settings, else git config of the workspace).
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { computeIntegrity, validatePackage } from '../../../../core/package/index';
import { makeKey, writeAllowedSigners } from '../../../helpers/sshKeys';
import { openReviewPair, openWorkbench, type ReviewPair, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const SKILL = { namespace: 'travel', name: 'weather-assessment' };
const DRAFT = 'skills/packages/travel/weather-assessment.json';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

async function manifestHash(text: string): Promise<string> {
  return (await computeIntegrity(validatePackage(text, { id: SKILL }).normalized!)).manifest_hash;
}

describe('reviews from drafts, and comments, over the WorkbenchApi', () => {
  let work: string;
  let ws: string;
  let onDisk: string;
  let alice: Workbench;
  let bob: Workbench;

  /** The draft of the workspace file, with `description` set, autosaved but not written to the file. */
  const editDraft = async (description: string): Promise<{ id: string; text: string }> => {
    const draft = await alice.client['drafts.openFile']({ path: DRAFT });
    const pkg = JSON.parse(onDisk);
    pkg.description = description;
    const text = JSON.stringify(pkg, null, 2);
    await alice.client['drafts.save']({ id: draft.id, text });
    return { id: draft.id, text };
  };

  let pair: ReviewPair | undefined;
  beforeAll(async () => {
    pair = await openReviewPair('websocket', DRAFT);
    ({ work, ws, alice, bob } = pair);
    onDisk = await readFile(join(ws, DRAFT), 'utf8');
  });
  afterAll(() => pair?.close());

  it('files a request from the draft as autosaved: its package and hash are those of the draft, not of the file', async () => {
    const { id, text } = await editDraft('Edited in the editor, not saved to the file.');
    const created = await alice.client['reviews.create']({ source: { kind: 'draft', draft: id }, connection: 'prod', note: 'from the editor' });
    expect(created).toMatchObject({ status: 'open', author: 'alice@example.com', skill: SKILL, base: null, note: 'from the editor' });
    expect(created.package!.description).toBe('Edited in the editor, not saved to the file.');
    expect(created.manifest_hash).toBe(await manifestHash(text));
    expect(created.manifest_hash).not.toBe(await manifestHash(onDisk));
    expect(await readFile(join(ws, DRAFT), 'utf8')).toBe(onDisk);
    const file = JSON.parse(await readFile(join(ws, created.file), 'utf8'));
    expect(file.package_text).toBe(`${JSON.stringify(validatePackage(text, { id: SKILL }).normalized, null, 2)}\n`);
    expect(file).toMatchObject({ draft: id, source: DRAFT });

    // Approved as is, it publishes exactly the draft's hash, though the file on disk was never saved.
    await bob.client['reviews.approve']({ id: created.id });
    expect(await bob.client['reviews.get']({ id: created.id })).toMatchObject({ status: 'approved', stale: false });
    const outcome = await bob.client['reviews.publish']({ id: created.id, idempotency_key: 'draft-1' });
    expect(outcome).toMatchObject({ outcome: 'created', version: 1, manifest_hash: created.manifest_hash });
    const stored = await bob.client['packages.get']({ connection: 'prod', skill: SKILL });
    expect(stored.package.description).toBe('Edited in the editor, not saved to the file.');
  });

  it('an edit of the draft after the approval makes the request stale and publishes nothing', async () => {
    const { id } = await editDraft('Second change, as reviewed.');
    const created = await alice.client['reviews.create']({ source: { kind: 'draft', draft: id }, connection: 'prod' });
    expect(created.base).toMatchObject({ version: 1 });
    await bob.client['reviews.approve']({ id: created.id, comment: 'fine' });
    await editDraft('Changed behind the reviewer, in the draft only.');
    expect(await bob.client['reviews.get']({ id: created.id })).toMatchObject({ status: 'stale', stale: true });
    const refused = await failure(bob.client['reviews.publish']({ id: created.id, idempotency_key: 'draft-2' }));
    expect(refused.data).toMatchObject({ code: 'precondition_failed', details: { reason: 'stale' } });
    expect(refused.data.message).toContain('the draft changed after the approval');
    expect((await bob.client['packages.get']({ connection: 'prod', skill: SKILL })).version).toBe(1);
  });

  it('refuses an unknown draft, and an invalid draft with its findings', async () => {
    const unknown = await failure(alice.client['reviews.create']({ source: { kind: 'draft', draft: 'file:nothing:skills/packages/a/b.json' }, connection: 'prod' }));
    expect(unknown.data).toMatchObject({ code: 'not_found', pointer: '/source/draft' });
    const draft = await alice.client['drafts.openFile']({ path: DRAFT });
    await alice.client['drafts.save']({ id: draft.id, text: '{"description": 42}' });
    const invalid = await failure(alice.client['reviews.create']({ source: { kind: 'draft', draft: draft.id }, connection: 'prod' }));
    expect(invalid.data.code).toBe('validation_failed');
    expect(invalid.data.findings?.some((f) => f.severity === 'error')).toBe(true);
  });

  it('comments anchor to JSON Pointers on a request in any state, signed by the session', async () => {
    const { id } = await editDraft('Third change.');
    const created = await alice.client['reviews.create']({ source: { kind: 'draft', draft: id }, connection: 'prod' });
    const first = await bob.client['reviews.comment']({ id: created.id, pointer: '/description', text: 'Say when it applies.' });
    expect(first.comments).toEqual([{ pointer: '/description', author: 'bob@example.com', at: expect.any(String), text: 'Say when it applies.' }]);
    expect(first.history.at(-1)).toMatchObject({ action: 'commented', actor: 'bob@example.com' });
    const whole = await alice.client['reviews.comment']({ id: created.id, pointer: '', text: 'Answered.' });
    expect(whole.comments.map((c) => [c.author, c.pointer])).toEqual([['bob@example.com', '/description'], ['alice@example.com', '']]);
    expect(whole.status).toBe('open');
    // A rejected request takes comments too, and they are kept in the file.
    await bob.client['reviews.reject']({ id: created.id, comment: 'not now' });
    const late = await alice.client['reviews.comment']({ id: created.id, pointer: '/activation/should_activate/0', text: 'Noted.' });
    expect(late).toMatchObject({ status: 'rejected' });
    expect(JSON.parse(await readFile(join(ws, created.file), 'utf8')).comments).toHaveLength(3);
    const bad = await failure(bob.client['reviews.comment']({ id: created.id, pointer: 'description', text: 'x' }));
    expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/pointer' });
    expect((await failure(bob.client['reviews.comment']({ id: 'no-such-request', pointer: '', text: 'x' }))).data.code).toBe('not_found');
  });

  it('reads the signing key and allowed signers from git config of the workspace, and names whoever acts by the principal of their key, not user.name', async () => {
    const { id } = await editDraft('Fourth change.');
    const created = await alice.client['reviews.create']({ source: { kind: 'draft', draft: id }, connection: 'prod' });
    const carolKey = await makeKey(join(work, 'keys'), 'carol');
    const allowed = await writeAllowedSigners(join(work, 'keys', 'with-carol'), [pair!.keys.alice, pair!.keys.bob, carolKey]);
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('git', ['config', 'user.name', 'Carol Reviewer'], { cwd: ws });
    execFileSync('git', ['config', 'user.email', 'carol@example.org'], { cwd: ws });
    execFileSync('git', ['config', 'gpg.format', 'ssh'], { cwd: ws });
    execFileSync('git', ['config', 'user.signingkey', carolKey.key], { cwd: ws });
    execFileSync('git', ['config', 'gpg.ssh.allowedSignersFile', allowed], { cwd: ws });
    const carol = await openWorkbench('websocket', { dataDir: join(work, 'data') });
    try {
      await carol.client['workspace.open']({ dir: ws });
      const view = await carol.client['reviews.comment']({ id: created.id, pointer: '/name', text: 'Fine by me.' });
      expect(view.comments.at(-1)).toMatchObject({ author: 'carol@example.com', pointer: '/name' });
      expect(view.viewer).toBe('carol@example.com');
      const approved = await carol.client['reviews.approve']({ id: created.id });
      expect(approved.signatures.map((s) => [s.role, s.principal, s.counts])).toEqual([
        ['author', 'alice@example.com', true],
        ['approval', 'carol@example.com', true],
      ]);
    } finally {
      await carol.close();
    }
  });
});
