/**
 * Workspace and drafts through the WorkbenchApi, over every transport: a
 * folder of the example packages opened as the workspace, external edits seen
 * by the watcher, atomic saves refused on a stale base hash, autosaved drafts
 * offered back by a new service on the same app-data folder, and a published
 * skill opened for editing carrying its base version and ETag.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkbenchEvents } from '../../../../core/api/contract';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { DraftStore, hashText, type DraftRecord } from '../../../../core/workspace/drafts';
import { TRANSPORTS, openWorkbench, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const EXAMPLES = new URL('../../../../examples/skills/packages/', import.meta.url);
const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const WEATHER_PATH = 'skills/packages/travel/weather-assessment.json';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

function withTag(text: string, tag: string): string {
  const pkg = JSON.parse(text);
  pkg.tags.push(tag);
  pkg.change_reason = `tag ${tag}`;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** A fresh workspace folder holding a copy of the example packages. */
async function exampleWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-ws-'));
  await cp(EXAMPLES, join(dir, 'skills', 'packages'), { recursive: true });
  return dir;
}

describe.each(TRANSPORTS)('workspace and drafts over %s', (transport) => {
  let wb: Workbench;
  let root: string;
  const changes: WorkbenchEvents['workspace.changed'][] = [];
  const draftEvents: WorkbenchEvents['drafts.changed'][] = [];

  beforeAll(async () => {
    root = await exampleWorkspace();
    wb = await openWorkbench(transport, { watch: { batchMs: 20 } });
    wb.client.on('workspace.changed', (e) => changes.push(e));
    wb.client.on('drafts.changed', (e) => draftEvents.push(e));
  });
  afterAll(async () => {
    await wb?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('refuses workspace calls before a folder is open, and a folder that does not exist', async () => {
    expect(await wb.client['workspace.list']()).toBeNull();
    expect((await failure(wb.client['workspace.read']({ path: WEATHER_PATH }))).data).toMatchObject({ code: 'not_found' });
    const missing = await failure(wb.client['workspace.open']({ dir: join(root, 'nope') }));
    expect(missing.data).toMatchObject({ code: 'not_found', pointer: '/dir' });
  });

  it('opens a folder and lists its packages with their identities, and problems for stray files', async () => {
    await writeFile(join(root, 'skills', 'packages', 'travel', 'notes.txt'), 'not a package');
    await writeFile(join(root, 'skills', 'packages', 'travel', '.DS_Store'), '');
    const view = await wb.client['workspace.open']({ dir: root });
    expect(view.polling).toBe(false);
    const packages = view.entries.filter((e) => e.skill);
    expect(packages.length).toBe(8);
    expect(packages.find((e) => e.path === WEATHER_PATH)?.skill).toEqual(WEATHER);
    expect(view.entries.find((e) => e.path.endsWith('notes.txt'))?.problem?.code).toBe('unexpected_entry');
    expect(view.entries.some((e) => e.path.endsWith('.DS_Store'))).toBe(false);
    expect((await wb.client['app.info']()).workspace).toBe(view.root);
    expect((await wb.client['workspace.list']())?.root).toBe(view.root);
  });

  it('reads a file with the hash of its bytes, and refuses paths that leave the workspace', async () => {
    const file = await wb.client['workspace.read']({ path: WEATHER_PATH });
    const bytes = await readFile(join(root, WEATHER_PATH));
    expect(file.text).toBe(bytes.toString('utf8'));
    expect(file.hash).toBe(hashText(bytes));
    const escape = await failure(wb.client.call('workspace.read', { path: '../outside.json' }));
    expect(escape.data).toMatchObject({ code: 'invalid_request', pointer: '/path' });
    const absolute = await failure(wb.client.call('workspace.read', { path: '/etc/passwd' }));
    expect(absolute.data.code).toBe('invalid_request');
  });

  // Plain HTTP calls carry no events: the browser client takes them over the WebSocket.
  it.skipIf(transport === 'http')('sees an edit made outside the workbench, with the new hash', async () => {
    const file = join(root, 'skills', 'packages', 'devops', 'incident-response.json');
    const text = withTag(await readFile(file, 'utf8'), 'edited-outside');
    await writeFile(file, text);
    await expect
      .poll(() => changes.flatMap((e) => e.changes).find((c) => c.path === 'skills/packages/devops/incident-response.json' && c.hash === hashText(text)), { timeout: 10_000 })
      .toMatchObject({ kind: 'changed', skill: { namespace: 'devops', name: 'incident-response' } });
    const added = join(root, 'skills', 'packages', 'devops', 'new-skill.json');
    await writeFile(added, text);
    await expect.poll(() => changes.flatMap((e) => e.changes).find((c) => c.path === 'skills/packages/devops/new-skill.json')?.kind, { timeout: 10_000 }).toBe('added');
    await rm(added);
    await expect
      .poll(() => changes.flatMap((e) => e.changes).filter((c) => c.path === 'skills/packages/devops/new-skill.json').map((c) => c.kind), { timeout: 10_000 })
      .toContain('removed');
  });

  it('saves atomically against the hash the edit started from, and refuses a stale one with both hashes', async () => {
    const before = await wb.client['workspace.read']({ path: WEATHER_PATH });
    const mine = withTag(before.text, 'mine');
    const saved = await wb.client['workspace.save']({ path: WEATHER_PATH, text: mine, base_hash: before.hash });
    expect(saved.hash).toBe(hashText(mine));
    expect(await readFile(join(root, WEATHER_PATH), 'utf8')).toBe(mine);
    // Someone else edits the file; a save still based on the first read is refused and writes nothing.
    const theirs = withTag(mine, 'theirs');
    await writeFile(join(root, WEATHER_PATH), theirs);
    const conflict = await failure(wb.client['workspace.save']({ path: WEATHER_PATH, text: withTag(mine, 'again'), base_hash: saved.hash }));
    expect(conflict.data).toMatchObject({ code: 'conflict', status: 409, file: WEATHER_PATH });
    expect(conflict.data.details).toMatchObject({ base_hash: saved.hash, disk_hash: hashText(theirs) });
    expect(await readFile(join(root, WEATHER_PATH), 'utf8')).toBe(theirs);
    // A new file cannot overwrite an existing one.
    const exists = await failure(wb.client['workspace.save']({ path: WEATHER_PATH, text: mine, base_hash: null }));
    expect(exists.data.code).toBe('conflict');
    // No temporary file is left beside the package.
    expect((await readdir(join(root, 'skills', 'packages', 'travel'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // A path through a file is refused with the file named, not a crash.
    const through = await failure(wb.client['workspace.save']({ path: `${WEATHER_PATH}/inner.json`, text: mine, base_hash: null }));
    expect(through.data).toMatchObject({ code: 'invalid_request', file: `${WEATHER_PATH}/inner.json` });
  });

  it('opens a file as a draft, tracks unsaved edits and marks a conflict when the file changes on disk', async () => {
    const path = 'skills/packages/travel/currency-conversion.json';
    const opened = await wb.client['drafts.openFile']({ path });
    expect(opened).toMatchObject({ dirty: false, origin: { kind: 'file', path, skill: { namespace: 'travel', name: 'currency-conversion' } } });
    expect(opened.conflict).toBeUndefined();
    const edited = await wb.client['drafts.save']({ id: opened.id, text: withTag(opened.text, 'draft-edit') });
    expect(edited.dirty).toBe(true);
    expect((await wb.client['workspace.list']())?.entries.find((e) => e.path === path)?.draft).toBe(opened.id);
    // Saving the same text as the original makes the draft clean again.
    expect((await wb.client['drafts.save']({ id: opened.id, text: opened.text })).dirty).toBe(false);
    await wb.client['drafts.save']({ id: opened.id, text: edited.text });

    await writeFile(join(root, path), withTag(opened.text, 'outside'));
    const reread = await wb.client['drafts.get']({ id: opened.id });
    expect(reread.conflict).toMatchObject({ kind: 'disk', hash: hashText(withTag(opened.text, 'outside')) });
    expect(reread.text).toBe(edited.text);
    if (transport !== 'http') {
      await expect.poll(() => draftEvents.find((e) => e.kind === 'conflict' && e.id === opened.id)?.draft?.conflict?.kind, { timeout: 10_000 }).toBe('disk');
    }
    // The draft's save to the file is refused until the author reconciles.
    const refused = await failure(wb.client['workspace.save']({ path, text: reread.text, base_hash: opened.origin.kind === 'file' ? opened.origin.base_hash : null }));
    expect(refused.data.code).toBe('conflict');

    expect(await wb.client['drafts.discard']({ id: opened.id })).toEqual({ discarded: true });
    expect(await wb.client['drafts.discard']({ id: opened.id })).toEqual({ discarded: false });
    expect((await failure(wb.client['drafts.get']({ id: opened.id }))).data.code).toBe('not_found');
  });

  it('opens a published skill as a draft carrying its base version and ETag, and rebases it on publish', async () => {
    const published = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    const draft = await wb.client['packages.open']({ connection: 'default', skill: WEATHER });
    expect(draft.origin).toEqual({ kind: 'store', connection: 'default', skill: WEATHER, base: { version: published.version, etag: published.etag, manifest_hash: published.manifest_hash } });
    expect(draft.dirty).toBe(false);
    const text = withTag(draft.text, `rebase-${transport}`);
    await wb.client['drafts.save']({ id: draft.id, text });
    const outcome = await wb.client['publish.package']({
      connection: 'default',
      skill: WEATHER,
      text,
      base: { version: published.version, etag: published.etag },
      idempotency_key: `ws-test-${transport}`,
      draft: draft.id,
    });
    const after = await wb.client['drafts.get']({ id: draft.id });
    expect(after.origin).toMatchObject({ kind: 'store', base: { version: outcome.version, etag: outcome.etag } });
    expect(after.dirty).toBe(false);

    const fresh = await wb.client['packages.open']({ connection: 'default', skill: { namespace: 'travel', name: 'brand-new' } });
    expect(fresh.origin).toMatchObject({ kind: 'store', base: null });
    expect(fresh.dirty).toBe(true);
  });

  it('diffs a draft against a workspace file', async () => {
    const path = 'skills/packages/travel/action-verification.json';
    const draft = await wb.client['drafts.openFile']({ path });
    await wb.client['drafts.save']({ id: draft.id, text: withTag(draft.text, 'diffed') });
    const diff = await wb.client['diff.packages']({ before: { kind: 'file', path }, after: { kind: 'draft', draft: draft.id } });
    expect(diff.before.label).toBe(path);
    expect(JSON.stringify(diff.diff)).toContain('diffed');
  });
});

describe.each(['direct', 'websocket'] as const)('the workspace boundary on real paths, over %s', (transport) => {
  let wb: Workbench;
  let root: string;
  let outside: string;
  const SECRET = 'root:x:0:0:outside-the-workspace-marker';

  beforeAll(async () => {
    root = await exampleWorkspace();
    outside = await mkdtemp(join(tmpdir(), 'skillbench-outside-'));
    await writeFile(join(outside, 'passwd'), SECRET);
    await mkdir(join(outside, 'folder'));
    await writeFile(join(outside, 'folder', 'linked.json'), SECRET);
    await mkdir(join(root, '.git', 'hooks'), { recursive: true });
    await writeFile(join(root, '.git', 'config'), '[user]\n\tname = Real Person\n');
    // A package path linked to a file outside, a namespace folder linked outside, a link to a file inside, and one to .git/config.
    await symlink(join(outside, 'passwd'), join(root, 'skills', 'packages', 'travel', 'passwd.json'));
    await symlink(join(outside, 'folder'), join(root, 'skills', 'packages', 'evil'));
    await symlink(join(root, WEATHER_PATH), join(root, 'skills', 'packages', 'travel', 'alias.json'));
    await symlink(join(root, '.git', 'config'), join(root, 'skills', 'packages', 'travel', 'config.json'));
    wb = await openWorkbench(transport, { watch: { batchMs: 20 } });
    await wb.client['workspace.open']({ dir: root });
  });
  afterAll(async () => {
    await wb?.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const refusedOutside = async (call: Promise<unknown>, reason = 'outside_workspace') => {
    const error = await failure(call);
    expect(error.data).toMatchObject({ code: 'forbidden', details: { reason } });
    expect(JSON.stringify(error.data)).not.toContain(SECRET);
    expect(JSON.stringify(error.data)).not.toContain(outside);
    return error;
  };

  it('never reads through a link that leads out: the file itself, or a folder above it', async () => {
    await refusedOutside(wb.client['workspace.read']({ path: 'skills/packages/travel/passwd.json' }));
    await refusedOutside(wb.client['workspace.read']({ path: 'skills/packages/evil/linked.json' }));
    await refusedOutside(wb.client['drafts.openFile']({ path: 'skills/packages/travel/passwd.json' }));
    await refusedOutside(wb.client['diff.packages']({ before: { kind: 'file', path: 'skills/packages/evil/linked.json' }, after: { kind: 'file', path: WEATHER_PATH } }));
    // A link that stays inside the workspace is followed, unless it lands on a hidden file.
    expect((await wb.client['workspace.read']({ path: 'skills/packages/travel/alias.json' })).text).toBe(await readFile(join(root, WEATHER_PATH), 'utf8'));
    await refusedOutside(wb.client['workspace.read']({ path: 'skills/packages/travel/config.json' }), 'hidden');
    await refusedOutside(wb.client['workspace.read']({ path: '.git/config' }), 'hidden');
  });

  it('never writes through a link that leads out, and leaves the outside untouched', async () => {
    const text = await readFile(join(root, WEATHER_PATH), 'utf8');
    await refusedOutside(wb.client['workspace.save']({ path: 'skills/packages/travel/passwd.json', text, base_hash: null }));
    await refusedOutside(wb.client['workspace.save']({ path: 'skills/packages/evil/linked.json', text, base_hash: null }));
    await refusedOutside(wb.client['workspace.save']({ path: 'skills/packages/evil/new-file.json', text, base_hash: null }));
    expect(await readFile(join(outside, 'passwd'), 'utf8')).toBe(SECRET);
    expect((await readdir(join(outside, 'folder'))).sort()).toEqual(['linked.json']);
    expect(await readFile(join(outside, 'folder', 'linked.json'), 'utf8')).toBe(SECRET);
  });

  it('writes only package files below skills/packages: never .git, the reviews or anything else', async () => {
    const text = await readFile(join(root, WEATHER_PATH), 'utf8');
    for (const path of ['.git/hooks/pre-commit', '.git/config', 'skills/packages/.hidden/x.json', 'skills/packages/travel/config.json']) {
      await refusedOutside(wb.client['workspace.save']({ path, text, base_hash: null }), 'hidden');
    }
    for (const path of ['package.json', 'README.md', 'skills/reviews/r1.json', 'skills/evals/travel/weather-assessment.json', 'skills/packages/travel/notes.txt']) {
      await refusedOutside(wb.client['workspace.save']({ path, text, base_hash: null }), 'not_owned');
    }
    expect(await readFile(join(root, '.git', 'config'), 'utf8')).toBe('[user]\n\tname = Real Person\n');
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(root, 'skills', 'reviews'))).toBe(false);
    expect(existsSync(join(root, 'package.json'))).toBe(false);
    // What the workbench owns it still writes, creating the namespace folder.
    const created = await wb.client['workspace.save']({ path: 'skills/packages/fresh/new-skill.json', text, base_hash: null });
    expect(created.hash).toBe(hashText(text));
    expect(await readFile(join(root, 'skills', 'packages', 'fresh', 'new-skill.json'), 'utf8')).toBe(text);
  });

  it('lists a link that leads out as a problem, never as a package, and refuses a NUL byte without echoing a path', async () => {
    const view = await wb.client['workspace.list']();
    const linked = view?.entries.find((e) => e.path === 'skills/packages/travel/passwd.json');
    expect(linked?.skill).toBeUndefined();
    expect(linked?.problem?.message).toContain('leads out of');
    expect(view?.entries.find((e) => e.path === 'skills/packages/evil')?.problem?.message).toContain('leads out of');
    expect(view?.entries.some((e) => e.path.startsWith('skills/packages/evil/'))).toBe(false);
    const nul = await failure(wb.client['workspace.read']({ path: 'skills/packages/travel/a\u0000.json' }));
    expect(JSON.stringify(nul.data)).not.toContain(root);
  });
});

describe('leftovers of a killed writer', () => {
  it('removes the temporary files of dead writers when a workspace opens, and keeps those of live ones', async () => {
    const root = await exampleWorkspace();
    const wb = await openWorkbench('direct');
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const travel = join(root, 'skills', 'packages', 'travel');
      const dead = `.weather-assessment.json.${gone}.0123456789ab.tmp`;
      const live = `.weather-assessment.json.${process.pid}.0123456789ab.tmp`;
      await writeFile(join(travel, dead), '{"torn');
      await writeFile(join(travel, live), '{"in flight');
      const view = await wb.client['workspace.open']({ dir: root });
      expect(view.entries.some((e) => e.path.endsWith('.tmp'))).toBe(false);
      const left = await readdir(travel);
      expect(left).not.toContain(dead);
      expect(left).toContain(live);
    } finally {
      await wb.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it.skipIf(!existsSync('/proc/self/stat'))('removes a temporary file whose writer pid is running but started at another time (a reused pid)', async () => {
    const root = await exampleWorkspace();
    const wb = await openWorkbench('direct');
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const start = BigInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '0');
      const travel = join(root, 'skills', 'packages', 'travel');
      const reused = `.weather-assessment.json.${process.pid}-${start + 1n}.0123456789ab.tmp`;
      const live = `.weather-assessment.json.${process.pid}-${start}.0123456789ab.tmp`;
      await writeFile(join(travel, reused), '{"torn');
      await writeFile(join(travel, live), '{"in flight');
      await wb.client['workspace.open']({ dir: root });
      const left = await readdir(travel);
      expect(left).not.toContain(reused);
      expect(left).toContain(live);
    } finally {
      await wb.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('drafts after a restart', () => {
  it('offers the autosaved drafts back to a new service on the same app-data folder, and nothing for a draft only opened', async () => {
    const root = await exampleWorkspace();
    const dataDir = await mkdtemp(join(tmpdir(), 'skillbench-data-'));
    try {
      const first = await openWorkbench('direct', { dataDir });
      await first.client['workspace.open']({ dir: root });
      const saved = await first.client['drafts.openFile']({ path: WEATHER_PATH });
      const text = withTag(saved.text, 'autosaved');
      await first.client['drafts.save']({ id: saved.id, text });
      const onlyOpened = await first.client['drafts.openFile']({ path: 'skills/packages/travel/currency-conversion.json' });
      expect((await first.client['drafts.list']()).drafts.map((d) => d.id).sort()).toEqual([saved.id, onlyOpened.id].sort());
      // No draft file was written by opening (a read creates nothing): only the saved one exists.
      expect((await readdir(join(dataDir, 'drafts'))).filter((n) => n.endsWith('.json'))).toHaveLength(1);
      await first.close();

      const second = await openWorkbench('direct', { dataDir });
      await second.client['workspace.open']({ dir: root });
      const offered = (await second.client['drafts.list']()).drafts;
      expect(offered).toHaveLength(1);
      expect(offered[0]).toMatchObject({ id: saved.id, text, dirty: true, origin: { kind: 'file', path: WEATHER_PATH } });
      expect((await second.client['workspace.list']())?.entries.find((e) => e.path === WEATHER_PATH)?.draft).toBe(saved.id);
      await second.close();
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an autosave racing a publication', () => {
  it('rebases the draft over an autosave that lands between the rebase\'s read and its write, and reports the publication', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'skillbench-data-'));
    const wb = await openWorkbench('direct', { dataDir });
    const spies: { mockRestore(): void }[] = [];
    try {
      const published = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
      const draft = await wb.client['packages.open']({ connection: 'default', skill: WEATHER });
      const text = withTag(draft.text, 'raced');
      await wb.client['drafts.save']({ id: draft.id, text });
      const autosaved = withTag(text, 'typed-meanwhile');
      // The rebase after the commit writes the draft once (a save carrying the new base, or a discard when
      // nothing is left unpublished): an editor's autosave lands between its read and that write.
      let raced = false;
      const autosave = async (dir: string, id: string) => {
        raced = true;
        const other = new DraftStore(dir);
        const current = (await other.get(id))!;
        await other.save({ ...current, text: autosaved, updated_at: new Date().toISOString() }, current.revision ?? 0);
      };
      const save = DraftStore.prototype.save;
      const discard = DraftStore.prototype.discard;
      spies.push(
        vi.spyOn(DraftStore.prototype, 'save').mockImplementation(async function (this: DraftStore, record: DraftRecord, revision?: number) {
          if (!raced && record.origin.kind === 'store' && record.origin.base !== null && record.origin.base.version > published.version) await autosave(this.dir, record.id);
          return save.call(this, record, revision);
        }),
        vi.spyOn(DraftStore.prototype, 'discard').mockImplementation(async function (this: DraftStore, id: string, revision?: number) {
          if (!raced && id === draft.id) await autosave(this.dir, id);
          return discard.call(this, id, revision);
        }),
      );
      const outcome = await wb.client['publish.package']({
        connection: 'default',
        skill: WEATHER,
        text,
        base: { version: published.version, etag: published.etag },
        idempotency_key: 'ws-test-raced',
        draft: draft.id,
      });
      expect(raced).toBe(true);
      expect(outcome.version).toBe(published.version + 1);
      // The draft keeps what was typed meanwhile, now based on the publication: its tag is the one unpublished change.
      const after = await wb.client['drafts.get']({ id: draft.id });
      expect(after.text).toBe(autosaved);
      expect(after.origin).toMatchObject({ kind: 'store', base: { version: outcome.version, etag: outcome.etag } });
      expect(after.dirty).toBe(true);
    } finally {
      for (const spy of spies) spy.mockRestore();
      await wb.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the workspace\'s project file', () => {
  it('gives the checked defaults of skillbench.config.json at the root, the setting at fault in a broken one, and nothing through a link or without a file', async () => {
    const root = await exampleWorkspace();
    const outside = await mkdtemp(join(tmpdir(), 'skillbench-outside-'));
    const wb = await openWorkbench('direct');
    try {
      expect((await failure(wb.client['workspace.projectConfig']())).data).toMatchObject({ code: 'not_found' });
      await wb.client['workspace.open']({ dir: root });
      expect(await wb.client['workspace.projectConfig']()).toBeNull();

      const file = join(root, 'skillbench.config.json');
      await writeFile(file, JSON.stringify({ models: ['baseline:lexical'], gates: { min_recall: 0.8 }, limits: { repeats: 2 } }));
      expect(await wb.client['workspace.projectConfig']()).toEqual({
        file: 'skillbench.config.json',
        config: { models: ['baseline:lexical'], gates: { min_recall: 0.8 }, limits: { repeats: 2 } },
      });

      await writeFile(file, JSON.stringify({ gates: { min_recall: 1.5 } }));
      expect(await wb.client['workspace.projectConfig']()).toEqual({
        file: 'skillbench.config.json',
        problem: { message: 'skillbench.config.json: /gates/min_recall: expected a number from 0 to 1', pointer: '/gates/min_recall' },
      });
      await writeFile(file, '{"models": [');
      expect(await wb.client['workspace.projectConfig']()).toMatchObject({ problem: { pointer: '/', message: expect.stringMatching(/^skillbench\.config\.json: \/: not valid JSON/) } });

      // A link that leads out of the workspace is not followed: the outside file's settings never apply.
      await rm(file);
      await writeFile(join(outside, 'skillbench.config.json'), JSON.stringify({ models: ['baseline:embedding'] }));
      await symlink(join(outside, 'skillbench.config.json'), file);
      const linked = await wb.client['workspace.projectConfig']();
      expect(linked?.config).toBeUndefined();
      expect(linked?.problem?.message).not.toContain(outside);
    } finally {
      await wb.close();
      await rm(root, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });
});
