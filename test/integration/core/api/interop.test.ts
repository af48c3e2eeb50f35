/**
 * The Agent Skills methods over every transport (direct calls, the web host's
 * WebSocket and HTTP, Electron IPC through stand-ins): a preview that writes
 * nothing, the import into the open workspace, conflicts, and the export of a
 * workspace file, a draft and a stored revision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { TRANSPORTS, openWorkbench, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const FIXTURES = join(__dirname, '../../../fixtures/agent-skills');
const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

describe.each(TRANSPORTS.map((transport) => ({ transport })))('interop methods over $transport', ({ transport }) => {
  let wb: Workbench;
  let work: string;
  let ws: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-interop-api-'));
    ws = join(work, 'ws');
    await mkdir(ws);
    await cp(join(FIXTURES, 'pdf-toolkit'), join(work, 'in/pdf-toolkit'), { recursive: true });
    await cp(join(FIXTURES, 'generative-sketches'), join(work, 'in/generative-sketches'), { recursive: true });
    wb = await openWorkbench(transport);
  });
  afterAll(async () => {
    await wb?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('refuses an import while no workspace is open, naming what to do', async () => {
    const closed = await failure(wb.client['interop.import']({ paths: [join(work, 'in')], namespace: 'docs' }));
    expect(closed.data).toMatchObject({ code: 'not_found', message: expect.stringContaining('no workspace is open') });
  });

  it('previews a folder of skills without writing, then imports it into the workspace', async () => {
    await wb.client['workspace.open']({ dir: ws });
    const preview = await wb.client['interop.import']({ paths: ['../in'], namespace: 'docs', dry_run: true });
    expect(preview).toMatchObject({ format: 'skillbench.import/v1', dry_run: true, failed: [] });
    expect(preview.imported.map((s) => [s.skill, s.status, s.valid, s.written])).toEqual([
      ['docs/generative-sketches', 'new', true, false],
      ['docs/pdf-toolkit', 'new', true, false],
    ]);
    expect(preview.imported[0]!.conversions.find((c) => c.change === 'escaped')!.reason).toContain('2 <script> tags');
    expect(await readdir(ws)).toEqual([]);

    const done = await wb.client['interop.import']({ paths: ['../in'], namespace: 'docs' });
    expect(done.imported.map((s) => s.written)).toEqual([true, true]);
    expect(await readdir(join(ws, 'skills/packages/docs'))).toEqual(['generative-sketches.json', 'pdf-toolkit.json']);
    const file = await wb.client['workspace.read']({ path: 'skills/packages/docs/pdf-toolkit.json' });
    expect(JSON.parse(file.text).change_reason).toContain('credential-looking values redacted in reference.md');
  });

  it('reports a package file with other content as existing and writes nothing without overwrite', async () => {
    const file = await wb.client['workspace.read']({ path: 'skills/packages/docs/pdf-toolkit.json' });
    await wb.client['workspace.save']({ path: file.path, text: file.text.replace('"PDF Toolkit"', '"PDF Toolkit (edited)"'), base_hash: file.hash });
    const refused = await wb.client['interop.import']({ paths: [join(work, 'in/pdf-toolkit')], namespace: 'docs' });
    expect(refused).toMatchObject({ dry_run: true, imported: [{ status: 'exists', written: false }] });
    expect((await wb.client['workspace.read']({ path: file.path })).text).toContain('PDF Toolkit (edited)');
    const replaced = await wb.client['interop.import']({ paths: [join(work, 'in/pdf-toolkit')], namespace: 'docs', overwrite: true });
    expect(replaced.imported[0]).toMatchObject({ status: 'replaced', written: true });
  });

  it('exports a workspace file, a draft and a stored revision as SKILL.md folders', async () => {
    const fromFile = await wb.client['interop.export']({ source: { kind: 'file', path: 'skills/packages/docs/pdf-toolkit.json' }, to: join(work, 'out') });
    expect(fromFile).toMatchObject({ format: 'skillbench.export/v1', skill: 'docs/pdf-toolkit', dir: join(work, 'out/pdf-toolkit'), dry_run: false });
    expect(fromFile.files.map((f) => f.path)).toEqual(['SKILL.md', 'references/reference.md', 'references/forms.md']);
    expect(await readFile(join(work, 'out/pdf-toolkit/SKILL.md'), 'utf8')).toMatch(/^---\nname: pdf-toolkit\ndescription: Use this skill whenever/);

    const again = await failure(wb.client['interop.export']({ source: { kind: 'file', path: 'skills/packages/docs/pdf-toolkit.json' }, to: join(work, 'out') }));
    expect(again.data).toMatchObject({ code: 'conflict', status: 409 });

    const draft = await wb.client['drafts.openFile']({ path: 'skills/packages/docs/generative-sketches.json' });
    const fromDraft = await wb.client['interop.export']({ source: { kind: 'draft', draft: draft.id }, to: 'exported', dry_run: true });
    expect(fromDraft).toMatchObject({ skill: 'docs/generative-sketches', dir: join(ws, 'exported/generative-sketches'), dry_run: true });
    await expect(stat(join(ws, 'exported'))).rejects.toThrow();

    const stored = await wb.client['interop.export']({ source: { kind: 'stored', connection: 'default', skill: { namespace: 'travel', name: 'weather-assessment' } }, to: join(work, 'published') });
    expect(stored.conversions.filter((c) => c.change === 'left_out').map((c) => c.field)).toEqual(['domains', 'tags', 'activation_examples', 'change_reason']);
  });

  it('checks parameters at the boundary, and leaves the folder picker to the desktop shell', async () => {
    const bad = await failure(wb.client.call('interop.import', { paths: [], namespace: 'docs' } as never));
    expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/paths' });
    const slug = await failure(wb.client.call('interop.import', { paths: ['x'], namespace: 'Docs' } as never));
    expect(slug.data).toMatchObject({ code: 'invalid_request', pointer: '/namespace' });
    const picker = await failure(wb.client['host.pickFolder']({}));
    expect(picker.data.code).toBe('not_implemented');
    expect((await wb.client['app.info']()).methods).toEqual(expect.arrayContaining(['interop.export', 'interop.import']));
  });
});
