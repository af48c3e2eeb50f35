/**
 * Planning an evaluation over a real embedded registry (seeded with the
 * examples) and a workspace copy on disk: targets to variants and catalogs,
 * with invalid input and doubts returned as data.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../core/store/connect';
import { seedExamples } from '../../../core/store/seed';
import type { SkillStore } from '../../../core/store/types';
import { getPublished, planEval, readBindingsFile, resolveTargets } from '../../../evals/plan';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

let work: string;
let store: SkillStore;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-plan-'));
  await cp(join(EXAMPLES, 'skills'), join(work, 'skills'), { recursive: true });
  store = await openStore('local:registry', { cwd: work });
  await seedExamples(store, join(EXAMPLES, 'skills', 'packages'));
});
afterAll(async () => {
  await store.close();
  await rm(work, { recursive: true, force: true });
});

const options = (extra: Partial<Parameters<typeof planEval>[1]> = {}) => ({ store, cwd: work, comparePublished: false, source: 'local:registry', ...extra });

describe('planEval', () => {
  it('plans a draft and its published revision, with the cases and catalogs each variant runs on', async () => {
    const { targets } = await resolveTargets(['skills/packages/travel/weather-assessment.json'], { cwd: work });
    const plan = await planEval(targets, options({ comparePublished: true }));
    if (!plan.ok) throw new Error(JSON.stringify(plan.problems));
    expect(plan.warnings).toEqual([]);
    const [skill] = plan.skills;
    expect(skill!.skill).toBe('travel/weather-assessment');
    expect(skill!.cases.some((c) => c.source === 'extra')).toBe(true);
    expect(skill!.variants.map((v) => [v.info.label, v.info.version])).toEqual([
      ['draft', 'draft'],
      ['published', 1],
    ]);
    expect(skill!.variants[0]!.catalog.entries.find((e) => e.under_test)!.version).toBe('draft');
    expect(skill!.variants[1]!.catalog.entries.find((e) => e.under_test)!.version).toBe(1);
  });

  it('returns invalid drafts and invalid extra cases as problems with located findings, printing nothing', async () => {
    await writeFile(join(work, 'skills/packages/travel/currency-conversion.json'), '{\n  "display_name": "Currency",\n  "description": 7\n}\n');
    await writeFile(join(work, 'skills/evals/travel/weather-assessment.json'), '{\n  "cases": [\n    { "request": "x", "expect": "maybe" }\n  ]\n}\n');
    const { targets } = await resolveTargets(['skills/packages/travel/currency-conversion.json', 'skills/packages/travel/weather-assessment.json'], { cwd: work });
    const plan = await planEval(targets, options());
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.problems.map((p) => [p.kind, p.skill, p.file])).toEqual([
      ['invalid_package', 'travel/currency-conversion', join('skills/packages/travel/currency-conversion.json')],
      ['invalid_cases', 'travel/weather-assessment', join('skills/evals/travel/weather-assessment.json')],
    ]);
    expect(plan.problems[1]!.findings[0]).toMatchObject({ code: 'eval_case_expect', path: '/cases/0/expect', line: 3 });
    await cp(join(EXAMPLES, 'skills'), join(work, 'skills'), { recursive: true });
  });

  it('warns, as data, when a draft has no published revision to compare with', async () => {
    const dir = join(work, 'fresh', 'skills', 'packages', 'travel');
    await cp(join(EXAMPLES, 'skills/packages/travel/weather-assessment.json'), join(dir, 'brand-new.json'));
    const { targets } = await resolveTargets([join(dir, 'brand-new.json')], { cwd: work });
    const plan = await planEval(targets, options({ comparePublished: true }));
    if (!plan.ok) throw new Error(JSON.stringify(plan.problems));
    expect(plan.warnings).toEqual([{ code: 'no_published_revision', skill: 'travel/brand-new', message: 'travel/brand-new has no published revision in local:registry: nothing to compare the draft with' }]);
    expect(plan.skills[0]!.variants.map((v) => v.info.label)).toEqual(['draft']);
  });

  it('throws not_found for a stored target the store does not hold', async () => {
    const { targets } = await resolveTargets(['travel/no-such-skill'], { cwd: work });
    await expect(planEval(targets, options())).rejects.toMatchObject({ code: 'not_found' });
    expect(await getPublished(store, { namespace: 'travel', name: 'no-such-skill' })).toBeUndefined();
  });
});

describe('readBindingsFile', () => {
  it('reads a binding list, and refuses a missing or invalid one as invalid_request', async () => {
    const bindings = await readBindingsFile(join(EXAMPLES, 'bindings', 'travel.json'), { cwd: work });
    expect(bindings.length).toBeGreaterThan(0);
    await expect(readBindingsFile('missing.json', { cwd: work })).rejects.toMatchObject({ code: 'invalid_request', message: 'cannot read missing.json: no such file', details: { reason: 'unreadable' } });
    await writeFile(join(work, 'bad.json'), JSON.stringify([{ namespace: 'travel' }]));
    const error = await readBindingsFile('bad.json', { cwd: work }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_request', details: { reason: 'invalid' } });
    expect((error as Error).message).toMatch(/^invalid bindings:\n {2}bad\.json: /);
    expect(JSON.parse(await readFile(join(EXAMPLES, 'bindings', 'travel.json'), 'utf8'))).toHaveLength(bindings.length);
  });
});
