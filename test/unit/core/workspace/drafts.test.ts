import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { DraftStore, type DraftRecord } from '../../../../core/workspace/drafts';

const draft = (text: string): DraftRecord => ({
  format: 1,
  id: 'store:default:travel/weather',
  origin: { kind: 'store', connection: 'default', skill: { namespace: 'travel', name: 'weather' }, base: null },
  text,
  base_text_hash: null,
  updated_at: new Date().toISOString(),
});

/** The file a store keeps `id` in (the only .json file of the folder here). */
async function draftFile(dir: string): Promise<string> {
  const [name] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  return join(dir, name!);
}

/** Rewrites the saved draft as if the process `pid` had saved it. */
async function savedBy(dir: string, pid: number): Promise<void> {
  const file = await draftFile(dir);
  const record = JSON.parse(await readFile(file, 'utf8')) as DraftRecord;
  await writeFile(file, JSON.stringify({ ...record, revision: (record.revision ?? 0) + 1, text: `saved by ${pid}`, writer: { pid } }));
}

async function conflict(promise: Promise<unknown>): Promise<WorkbenchError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkbenchError);
  expect((error as WorkbenchError).code).toBe('conflict');
  return error as WorkbenchError;
}

describe('DraftStore across processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-drafts-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('saves on top of the revision it was shown, and refuses one another process saved since', async () => {
    const store = new DraftStore(dir);
    const first = await store.save(draft('one'), 0);
    expect(first.revision).toBe(1);
    expect((await store.save({ ...first, text: 'two' }, store.shownRevision(first.id))).revision).toBe(2);
    await savedBy(dir, process.pid + 100_000);
    const refused = await conflict(store.save({ ...first, text: 'three' }, store.shownRevision(first.id)));
    expect(refused.details).toMatchObject({ reason: 'draft_changed', revision: 3 });
    expect(JSON.parse(await readFile(await draftFile(dir), 'utf8')).text).toBe(`saved by ${process.pid + 100_000}`);
    // Shown the new revision (a reload), it saves again; a discard based on an older one is refused.
    const reloaded = (await store.get(first.id))!;
    store.shownAt(reloaded);
    expect((await store.save({ ...reloaded, text: 'four' }, store.shownRevision(first.id))).revision).toBe(4);
    await conflict(store.discard(first.id, 3));
    expect(await store.discard(first.id, 4)).toBe(true);
  });

  it('without a revision shown here, refuses a draft a running process saved, and builds on one an ended process left', async () => {
    const store = new DraftStore(dir);
    await store.save(draft('one'), 0);
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await savedBy(dir, sleeper.pid!);
      await conflict(new DraftStore(dir).get(draft('').id).then((r) => new DraftStore(dir).save({ ...r!, text: 'blind' })));
    } finally {
      sleeper.kill('SIGKILL');
    }
    const ended = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => ended.on('close', resolve));
    await savedBy(dir, ended.pid!);
    const restarted = new DraftStore(dir);
    const left = (await restarted.get(draft('').id))!;
    expect((await restarted.save({ ...left, text: 'after a restart' })).text).toBe('after a restart');
  });

  it('edits a held or a saved draft in one step under the lock, and creates nothing for a draft that is not there', async () => {
    const missing = join(dir, 'not-yet');
    const store = new DraftStore(missing);
    expect(await store.edit('store:default:travel/none', (r) => r)).toBeUndefined();
    await expect(readdir(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    // Held only (opened, never saved): the edit is its first save.
    store.hold(draft('opened'));
    const first = await store.edit(draft('').id, (r) => ({ ...r, text: 'typed' }), 0);
    expect(first).toMatchObject({ text: 'typed', revision: 1 });
    expect(await store.edit('store:default:travel/none', (r) => r)).toBeUndefined();
    // Saved: the edit starts from the saved text and is a compare-and-swap on the revision shown.
    const second = await store.edit(draft('').id, (r) => ({ ...r, text: `${r.text} more` }), store.shownRevision(draft('').id));
    expect(second).toMatchObject({ text: 'typed more', revision: 2 });
    await savedBy(missing, process.pid + 100_000);
    const refused = await conflict(store.edit(draft('').id, (r) => ({ ...r, text: 'lost?' }), store.shownRevision(draft('').id)));
    expect(refused.details).toMatchObject({ reason: 'draft_changed', revision: 3 });
    expect(JSON.parse(await readFile(await draftFile(missing), 'utf8')).text).toBe(`saved by ${process.pid + 100_000}`);
  });

  it('reads a draft again once another process replaced its file, also with a text of the same length', async () => {
    const mine = new DraftStore(dir);
    const theirs = new DraftStore(dir);
    const first = await mine.save(draft('aaaa'), 0);
    expect((await mine.get(first.id))?.text).toBe('aaaa');
    // Another process's save renames a new file into place.
    await theirs.save({ ...(await theirs.get(first.id))!, text: 'bbbb' }, 1);
    expect((await mine.get(first.id))?.text).toBe('bbbb');
    // Someone rewriting the file in place, same length.
    const file = await draftFile(dir);
    await writeFile(file, (await readFile(file, 'utf8')).replace('"bbbb"', '"cccc"'));
    expect((await mine.get(first.id))?.text).toBe('cccc');
    await conflict(mine.edit(first.id, (r) => ({ ...r, text: 'dddd' }), 1));
    expect((await mine.edit(first.id, (r) => ({ ...r, text: 'dddd' }), 2))?.revision).toBe(3);
    expect((await theirs.get(first.id))?.text).toBe('dddd');
  });

  it('sweeps what writers killed mid-save left (half-written drafts and lock candidates) and keeps a running writer\'s', async () => {
    const store = new DraftStore(dir);
    await store.save(draft('kept'), 0);
    const ended = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => ended.on('close', resolve));
    const dead = ended.pid!;
    const leftovers = [`lock.${dead}.0123456789abcdef01234567.tmp`, `.0123.json.${dead}.0123456789ab.tmp`];
    const live = [`lock.${process.pid}.0123456789abcdef01234567.tmp`, `.0123.json.${process.pid}.0123456789ab.tmp`];
    for (const name of [...leftovers, ...live]) await writeFile(join(dir, name), 'torn');
    await new DraftStore(dir).sweep();
    const names = await readdir(dir);
    for (const name of leftovers) expect(names).not.toContain(name);
    for (const name of live) expect(names).toContain(name);
    expect((await new DraftStore(dir).list()).map((r) => r.text)).toEqual(['kept']);
  });
});
