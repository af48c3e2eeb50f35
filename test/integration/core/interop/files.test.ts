/**
 * Reading a skill folder from disk: bounded, and never outside the folder.
 * Real files, links and a FIFO in a scratch folder.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSkills, readSkillFolder, writeSkillExport } from '../../../../core/interop/files';
import { WorkbenchError } from '../../../../core/errors';
import { validatePackage } from '../../../../core/package/validate';
import { rejection } from '../../../helpers/rejection';

let work: string;
const SKILL = '---\nname: probe\ndescription: Use when testing folder reads.\n---\n\n# Probe\n\nSee notes.md and secret.md.\n';

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-folder-'));
  await mkdir(join(work, 'skill/sub'), { recursive: true });
  await writeFile(join(work, 'skill/SKILL.md'), SKILL);
  await writeFile(join(work, 'skill/notes.md'), '# Notes\n\nInside the folder.\n');
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('readSkillFolder', () => {
  it('lists a link leading outside the folder without reading it, and follows one that stays inside', async () => {
    await writeFile(join(work, 'outside.md'), '# Outside\n\nTOP-SECRET-OUTSIDE-TEXT\n');
    await symlink(join(work, 'outside.md'), join(work, 'skill/secret.md'));
    await symlink(work, join(work, 'skill/up'));
    await symlink(join(work, 'skill/notes.md'), join(work, 'skill/sub/alias.md'));
    const folder = await readSkillFolder(join(work, 'skill'));
    expect(folder.files.map((f) => [f.path, f.kind])).toEqual([
      ['notes.md', 'markdown'],
      ['secret.md', 'outside'],
      ['sub/alias.md', 'markdown'],
      ['up', 'outside'],
    ]);
    expect(JSON.stringify(folder)).not.toContain('TOP-SECRET-OUTSIDE-TEXT');
    expect(folder.files.find((f) => f.path === 'sub/alias.md')!.text).toContain('Inside the folder.');
  });

  it('lists a FIFO as unreadable instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [join(work, 'skill/pipe.md')]);
    const folder = await readSkillFolder(join(work, 'skill'));
    expect(folder.files.find((f) => f.path === 'pipe.md')).toMatchObject({ kind: 'unreadable' });
  });

  it('does not read a markdown file over the limit, nor more entries than the bound', async () => {
    await writeFile(join(work, 'skill/huge.md'), `# Huge\n\n${'x'.repeat(2000)}`);
    for (let i = 0; i < 30; i++) await writeFile(join(work, 'skill/sub', `f${String(i).padStart(2, '0')}.txt`), 'text');
    const folder = await readSkillFolder(join(work, 'skill'), { maxFileBytes: 1000, maxEntries: 10 });
    expect(folder.files.find((f) => f.path === 'huge.md')).toMatchObject({ kind: 'too_large', bytes: 2008 });
    expect(folder.files.find((f) => f.path === 'huge.md')!.text).toBeUndefined();
    expect(folder.files.length).toBeLessThanOrEqual(10);
    expect(folder.skipped).toEqual([expect.objectContaining({ change: 'left_out', reason: expect.stringContaining('more than 10 entries') })]);
  });

  it('takes a SKILL.md path as its folder, and says when there is no SKILL.md', async () => {
    expect((await readSkillFolder(join(work, 'skill/SKILL.md'))).folderName).toBe('skill');
    const none = await rejection(readSkillFolder(join(work, 'skill/sub')), WorkbenchError);
    expect(none.code).toBe('not_found');
    expect(none.message).toContain('holds no SKILL.md');
  });
});

describe('importSkills and writeSkillExport on disk', () => {
  it('never writes through a link that leads out of the workspace', async () => {
    await mkdir(join(work, 'ws/skills'), { recursive: true });
    await mkdir(join(work, 'elsewhere'));
    await symlink(join(work, 'elsewhere'), join(work, 'ws/skills/packages'));
    const refused = await rejection(importSkills([join(work, 'skill')], { namespace: 'ns', workspace: join(work, 'ws') }), WorkbenchError);
    expect(refused.code).toBe('forbidden');
  });

  it('exports into a new folder and refuses to write through a link', async () => {
    const report = await importSkills([join(work, 'skill')], { namespace: 'ns', workspace: (await mkdir(join(work, 'ws'), { recursive: true }), join(work, 'ws')) });
    const pkg = validatePackage(await readFile(join(work, 'ws', report.imported[0]!.file))).normalized!;
    const out = await writeSkillExport(pkg, { namespace: 'ns', name: 'probe' }, join(work, 'out'));
    expect(out.files.map((f) => f.path)).toEqual(['SKILL.md', 'references/notes.md']);
    await mkdir(join(work, 'linked'));
    await symlink(join(work, 'elsewhere-out'), join(work, 'linked/probe'));
    const refused = await rejection(writeSkillExport(pkg, { namespace: 'ns', name: 'probe' }, join(work, 'linked')), WorkbenchError);
    expect(refused.code).toBe('forbidden');
  });
});
