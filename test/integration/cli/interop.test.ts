/**
 * `skillbench import` and `skillbench export` as a user runs them: fourteen
 * Agent Skills folders of the shapes real skills have (test/fixtures/agent-skills)
 * imported verbatim into a workspace, every package valid, each forced change
 * reported per skill; an export whose SKILL.md keeps the name and description;
 * conflicts that write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../helpers/cli';
import type { Conversion, SkillExportReport, SkillImportReport } from '../../../core/interop/types';
import { validatePackage } from '../../../core/package/validate';

const FIXTURES = join(__dirname, '../../fixtures/agent-skills');

let work: string;
let ws: string;
let report: SkillImportReport;
let names: string[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-interop-'));
  ws = join(work, 'ws');
  await mkdir(ws);
  await cp(FIXTURES, join(work, 'skills-in'), { recursive: true });
  names = (await readdir(FIXTURES)).sort();
  const run = await runCli(['import', ...names.map((n) => join('skills-in', n)), '--namespace', 'imported', '--workspace', 'ws', '--json'], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
  expect(run.stderr).not.toMatch(/internal error/);
  expect(run.code).toBe(0);
  report = JSON.parse(run.stdout);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const skill = (name: string) => report.imported.find((s) => s.skill === `imported/${name}`)!;
const conversions = (name: string, change: Conversion['change']) => skill(name).conversions.filter((c) => c.change === change);

describe('skillbench import', () => {
  it('imports every folder verbatim: one valid package each, written where the report says', async () => {
    expect(names.length).toBeGreaterThanOrEqual(13);
    expect(report).toMatchObject({ format: 'skillbench.import/v1', namespace: 'imported', dry_run: false, failed: [] });
    expect(report.imported).toHaveLength(names.length);
    for (const s of report.imported) {
      expect(s).toMatchObject({ valid: true, errors: [], written: true, status: 'new' });
      expect(s.conversions.every((c) => typeof c.field === 'string' && typeof c.change === 'string' && c.reason.length > 10)).toBe(true);
      const text = await readFile(join(ws, s.file), 'utf8');
      const [ns, name] = s.skill.split('/');
      expect(s.file).toBe(`skills/packages/${ns}/${name}.json`);
      const check = validatePackage(text, { id: { namespace: ns!, name: name! } });
      expect(check.errors).toEqual([]);
      expect(check.normalized!.activation_examples).toEqual({ should_activate: [], should_not_activate: [] });
      expect(check.normalized!.change_reason).toMatch(/^Imported from SKILL\.md \(Agent Skills\).*Needs activation examples\.$/);
    }
    expect((await readdir(join(ws, 'skills/packages/imported'))).sort()).toEqual(report.imported.map((s) => `${s.skill.split('/')[1]}.json`).sort());
  });

  it('reports the forced changes of each skill', () => {
    expect(conversions('orbit-api', 'shortened')).toEqual([expect.objectContaining({ field: 'description', reason: expect.stringContaining('1,170 characters is over the V1 limit of 1,024') })]);
    expect(conversions('orbit-api', 'split').map((c) => c.field)).toEqual(['body', 'references/webhooks.md']);
    expect(conversions('orbit-api', 'left_out').map((c) => c.field)).toEqual(['frontmatter.license', 'frontmatter.compatibility', 'frontmatter.metadata', 'files']);
    expect(conversions('skill-workshop', 'split')).toEqual([expect.objectContaining({ field: 'body', reason: expect.stringContaining('split at heading boundaries into instructions-1, instructions-2') })]);
    expect(conversions('skill-workshop', 'left_out').find((c) => c.field === 'files')!.paths).toEqual(['scripts/package.sh', 'scripts/run_eval.py']);
    expect(conversions('generative-sketches', 'escaped')).toEqual([expect.objectContaining({ field: 'body', reason: expect.stringMatching(/^2 <script> tags \(SKILL\.md lines 17, 21, in code blocks\)/) })]);
    expect(conversions('connector-builder', 'escaped').map((c) => c.field)).toEqual(['reference/node_server.md', 'reference/python_server.md']);
    expect(conversions('pdf-toolkit', 'redacted')).toEqual([expect.objectContaining({ field: 'reference.md' })]);
    expect(conversions('poster-studio', 'left_out').find((c) => c.reason.includes('binary'))!.paths).toEqual(['fonts/Gloock-Regular.ttf', 'fonts/Outfit-Regular.ttf', 'fonts/WorkSans-Regular.ttf']);
    expect(conversions('deck-builder', 'renamed')).toEqual([expect.objectContaining({ field: 'name', reason: expect.stringContaining("'Deck Builder'") })]);
    expect(conversions('brand-voice', 'left_out')).toEqual([expect.objectContaining({ field: 'frontmatter.allowed-tools' })]);
    for (const s of report.imported) expect(s.conversions.filter((c) => c.change === 'needed').map((c) => c.field)).toEqual(['activation_examples']);
    // A skill whose description never says when it applies keeps the validator's warning: it is not rewritten.
    expect(skill('theme-palettes').warnings.map((w) => w.code)).toContain('description_missing_activation_language');
  });

  it('leaves the SKILL.md folders untouched', async () => {
    for (const n of names) expect(await readFile(join(work, 'skills-in', n, 'SKILL.md'))).toEqual(await readFile(join(FIXTURES, n, 'SKILL.md')));
  });

  it('writes nothing when a package exists with other content, replaces it with --overwrite, and is a no-op when unchanged', async () => {
    const file = join(ws, 'skills/packages/imported/brand-voice.json');
    await writeFile(file, '{"edited": true}\n');
    const refused = await runCli(['import', 'skills-in/brand-voice', 'skills-in/doc-partner', '--namespace', 'imported', '--workspace', 'ws'], { cwd: work });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('nothing written: skills/packages/imported/brand-voice.json exists with other content; pass --overwrite');
    expect(await readFile(file, 'utf8')).toBe('{"edited": true}\n');

    const replaced = await runCli(['import', 'skills-in/brand-voice', '--namespace', 'imported', '--workspace', 'ws', '--overwrite', '--json'], { cwd: work });
    expect(replaced.code).toBe(0);
    expect((JSON.parse(replaced.stdout) as SkillImportReport).imported[0]).toMatchObject({ status: 'replaced', written: true });
    const again = await runCli(['import', 'skills-in/brand-voice', '--namespace', 'imported', '--workspace', 'ws', '--json'], { cwd: work });
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as SkillImportReport).imported[0]).toMatchObject({ status: 'unchanged' });
  });

  it('names a path without a SKILL.md (exit 5), and refuses a namespace that is not a slug (exit 2)', async () => {
    const missing = await runCli(['import', 'nowhere', '--namespace', 'imported', '--workspace', 'ws'], { cwd: work });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('nowhere: no such file or folder');
    const bad = await runCli(['import', 'skills-in/brand-voice', '--namespace', 'Bad NS', '--workspace', 'ws'], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("namespace 'Bad NS' is not a slug");
  });
});

describe('skillbench export', () => {
  it('writes a SKILL.md whose frontmatter keeps the name and description, and importing it gives the package back', async () => {
    const run = await runCli(['export', 'ws/skills/packages/imported/orbit-api.json', '--to', 'out', '--json'], { cwd: work });
    expect(run.code).toBe(0);
    const exported: SkillExportReport = JSON.parse(run.stdout);
    expect(exported.files.map((f) => f.path)).toEqual(['SKILL.md', 'references/oauth.md', 'references/pagination.md', 'references/errors.md', 'references/webhooks-1.md', 'references/webhooks-2.md']);
    const text = await readFile(join(work, 'out/orbit-api/SKILL.md'), 'utf8');
    const original = validatePackage(await readFile(join(ws, 'skills/packages/imported/orbit-api.json'))).normalized!;
    const frontmatter = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!);
    expect(frontmatter).toEqual({ name: 'orbit-api', description: original.description });

    const back = await runCli(['import', 'out/orbit-api', '--namespace', 'again', '--workspace', 'ws'], { cwd: work });
    expect(back.code).toBe(0);
    const again = validatePackage(await readFile(join(ws, 'skills/packages/again/orbit-api.json'))).normalized!;
    expect({ ...again, change_reason: '' }).toEqual({ ...original, change_reason: '' });

    const twice = await runCli(['export', 'ws/skills/packages/imported/orbit-api.json', '--to', 'out'], { cwd: work });
    expect(twice.code).toBe(4);
    expect(twice.stderr).toContain('already exists');
  });

  it('exports a published skill of a store', async () => {
    const run = await runCli(['export', 'travel/weather-assessment', '--to', 'published', '--json'], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
    expect(run.code).toBe(0);
    const exported: SkillExportReport = JSON.parse(run.stdout);
    expect(exported.conversions.filter((c) => c.change === 'left_out').map((c) => c.field)).toEqual(['domains', 'tags', 'activation_examples', 'change_reason']);
    const text = await readFile(join(work, 'published/weather-assessment/SKILL.md'), 'utf8');
    expect(text).toMatch(/^---\nname: weather-assessment\ndescription: "Use when someone planning/);
  });
});
