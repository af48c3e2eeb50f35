/**
 * `catalog.health` through the WorkbenchApi (direct transport) on the embedded
 * registry holding a 17-skill catalog over both runtime limits: every broken
 * limit named, a split whose parts each fit (measured again as workspace
 * bindings files), the routing matrix of a real eval run of the host, and
 * the refusals a person can act on.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogHealthReport, WorkbenchEvents } from '../../../core/api/contract';
import { WorkbenchApiError } from '../../../core/api/errors';
import { formatBindings } from '../../../core/catalog/bindingsFile';
import { DEFAULT_SELECTOR_LIMITS } from '../../../core/selector/limits';
import { createEvalsPort } from '../../../evals/port';
import { FIXTURE_NAMESPACE, writeCatalogFixture } from '../../helpers/catalogFixture';
import { rejection } from '../../helpers/rejection';
import { openWorkbench, type Workbench } from '../../helpers/workbench';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

describe('catalog.health over the WorkbenchApi', { timeout: 120_000 }, () => {
  let wb: Workbench;
  let work: string;
  let ws: string;
  let skills: string[];
  let report: CatalogHealthReport;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-catalog-health-'));
    ws = join(work, 'ws');
    skills = await writeCatalogFixture(ws);
    wb = await openWorkbench('direct', { evals: createEvalsPort({ tickMs: 20 }) });
    for (const id of skills) {
      const [namespace, name] = id.split('/') as [string, string];
      const text = await readFile(join(ws, 'skills', 'packages', namespace, `${name}.json`), 'utf8');
      await wb.client['publish.package']({ connection: 'default', skill: { namespace, name }, text, base: null, idempotency_key: randomUUID() });
    }
    await wb.client['workspace.open']({ dir: ws });
    report = await wb.client['catalog.health']({ connection: 'default', namespace: FIXTURE_NAMESPACE });
  });
  afterAll(async () => {
    await wb?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('names every limit a 17-skill namespace breaks, with each skill’s share of the catalog', () => {
    const h = report.health;
    expect(report.catalog).toBe(FIXTURE_NAMESPACE);
    expect(h.skills.map((s) => s.skill)).toEqual(skills);
    expect(h.broken.map((b) => [b.kind, b.limit, b.variable])).toEqual([
      ['auto_candidates', 'maxAutoCandidates', 'TRUVAG3_SKILL_MAX_AUTO_CANDIDATES'],
      ['catalog_tokens', 'catalogTokenBudget', 'TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET'],
    ]);
    // Every budget over its limit is among the broken ones, and no other.
    expect(h.budgets.filter((b) => b.value > b.max).map((b) => b.kind)).toEqual(h.broken.map((b) => b.kind));
    expect(h.auto_candidates).toBe(17);
    expect(h.auto_candidates).toBeGreaterThan(report.limits.maxAutoCandidates);
    expect(h.catalog_tokens).toBeGreaterThan(report.limits.catalogTokenBudget);
    expect(report.limits).toEqual({ maxBindings: DEFAULT_SELECTOR_LIMITS.maxBindings, maxAutoCandidates: DEFAULT_SELECTOR_LIMITS.maxAutoCandidates, catalogTokenBudget: DEFAULT_SELECTOR_LIMITS.catalogTokenBudget });
    expect(h.selector_asked).toBe(false);
    expect(h.skills.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 10);
    expect(report.routing).toBeUndefined();
  });

  it('proposes a split whose parts each fit, and each part measured as a workspace bindings file breaks nothing', async () => {
    const split = report.split!;
    expect(split.needed).toBe(true);
    expect(split.parts.length).toBeGreaterThanOrEqual(2);
    expect(split.parts.flatMap((p) => p.skills).sort()).toEqual(skills);
    expect(split.unplaced).toEqual([]);
    await mkdir(join(ws, 'agents'));
    for (const [i, part] of split.parts.entries()) {
      expect(part.auto_candidates).toBeLessThanOrEqual(report.limits.maxAutoCandidates);
      expect(part.catalog_tokens).toBeLessThanOrEqual(report.limits.catalogTokenBudget);
      const file = `agents/docs-${i + 1}.json`;
      await writeFile(join(ws, file), formatBindings(part.bindings));
      const measured = await wb.client['catalog.health']({ connection: 'default', bindings: file });
      expect(measured.catalog).toBe(file);
      expect(measured.health.broken).toEqual([]);
      expect(measured.health.selector_asked).toBe(true);
      // The part's own figures are the ones the report of the part shows.
      expect(measured.health.catalog_tokens).toBe(part.catalog_tokens);
      expect(measured.split).toBeUndefined();
    }
  });

  it('adds where the requests of one of the host’s eval runs went', async () => {
    const part = report.split!.parts[0]!;
    // Every finished event is kept: a run this quick may finish before its id is known here.
    const finished = new Set<string>();
    let wake = () => {};
    const off = wb.client.on('evals.finished', (e: WorkbenchEvents['evals.finished']) => {
      finished.add(e.run.run);
      wake();
    });
    const id = (
      await wb.client['evals.start']({
        targets: part.skills.map((s) => ({ kind: 'published' as const, skill: { namespace: s.split('/')[0]!, name: s.split('/')[1]! } })),
        models: ['baseline:lexical'],
        connection: 'default',
        bindings: part.bindings,
        concurrency: 2,
      })
    ).run;
    await new Promise<void>((resolve) => {
      wake = () => {
        if (finished.has(id)) resolve();
      };
      wake();
    });
    off();
    const measured = await wb.client['catalog.health']({ connection: 'default', bindings: 'agents/docs-1.json', run: id });
    expect(measured.run).toBe(id);
    const m = measured.routing!;
    expect(m.skills).toEqual(part.skills);
    expect(m.models).toEqual(['baseline:lexical']);
    expect(m.cells).toBeGreaterThan(0);
    // Every should-activate request of a row went somewhere or nowhere: the row's counts never exceed its requests.
    for (const row of m.rows) {
      expect(row.requests).toBeGreaterThan(0);
      expect(row.none).toBeLessThanOrEqual(row.requests);
      expect(row.went_to[row.skill] ?? 0).toBeLessThanOrEqual(row.requests);
    }
    expect(measured.warnings).toEqual([]);
  });

  it('refuses what it cannot measure, saying where', async () => {
    const both = await failure(wb.client['catalog.health']({ connection: 'default', namespace: 'docs', bindings: 'agents/docs-1.json' }));
    expect(both.data).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('not both') });
    const neither = await failure(wb.client['catalog.health']({ connection: 'default' }));
    expect(neither.data.code).toBe('invalid_request');
    const outside = await failure(wb.client['catalog.health']({ connection: 'default', bindings: '../escape.json' }));
    expect(outside.data).toMatchObject({ code: 'invalid_request' });

    await writeFile(join(work, 'outside.json'), formatBindings(report.split!.parts[0]!.bindings));
    await symlink(join(work, 'outside.json'), join(ws, 'agents', 'linked.json'));
    const linked = await failure(wb.client['catalog.health']({ connection: 'default', bindings: 'agents/linked.json' }));
    expect(linked.data.message).toContain('leads out of the workspace');

    const missing = await failure(wb.client['catalog.health']({ connection: 'default', bindings: 'agents/none.json' }));
    expect(missing.data.code).toBe('not_found');
    const noRun = await failure(wb.client['catalog.health']({ connection: 'default', namespace: 'docs', run: 'no-such-run' }));
    expect(noRun.data).toMatchObject({ code: 'not_found', message: expect.stringContaining('holds no eval run') });
  });
});
