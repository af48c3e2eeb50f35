/**
 * The runner pins each variant's frozen catalog once and every cell shares
 * that pinning; a pinning that saw a problem is not shared, so each cell pins
 * and records what it saw, as before. Every cell is redacted before its line
 * is written.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult, ModelClient } from '../../../core/models/types';
import { createRedactor } from '../../../core/redact';
import type { SkillRegistryReader } from '../../../core/store/types';
import { buildCatalog } from '../../../evals/catalog';
import { runEval, type EvalSkillPlan } from '../../../evals/runner';
import { scanCells } from '../../../evals/runFiles';
import type { CellRecord } from '../../../evals/types';
import { pkg, registryOf, resource } from '../core/selector/fixtures';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Activates the skill under test and picks its one resource, for every cell. */
class Decisive implements ModelClient {
  readonly spec = 'scripted:decisive';
  readonly isBaseline = false;
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const text = request.task?.kind === 'resource' ? '{"resources":[{"skill":"travel/weather","name":"storm-checklist"}]}' : '{"activate":["travel/weather"]}';
    return { text, usage: { inputTokens: 10, outputTokens: 2 }, model: 'decisive', provider: 'scripted', latencyMs: 1, costUsd: null, attempts: [] };
  }
}

async function planWith(wrap: (frozen: SkillRegistryReader) => SkillRegistryReader, cases = 6, store: (base: SkillRegistryReader) => SkillRegistryReader = (b) => b): Promise<EvalSkillPlan> {
  const memory = await registryOf({
    'travel/weather': pkg({ display_name: 'Weather', description: 'Use when a trip depends on the weather.', resources: [resource('storm-checklist')] }),
    'travel/currency': pkg({ display_name: 'Currency', description: 'Use when money is exchanged.' }),
  });
  const registry = store(memory);
  const catalog = await buildCatalog({ registry, skill: { namespace: 'travel', name: 'weather' }, source: 'test' });
  const own = catalog.record.entries.find((e) => e.under_test)!;
  return {
    skill: 'travel/weather',
    cases: Array.from({ length: cases }, (_, i) => ({ id: `c${i}`, skill: 'travel/weather', source: 'extra' as const, request: `Storms on day ${i}?`, expect: 'activate' as const, boundary: 'planning' as const })),
    variants: [{ info: { label: 'published', skill: 'travel/weather', version: 1, manifest_hash: own.manifest_hash }, registry: wrap(catalog.registry), bindings: catalog.bindings, catalog: catalog.record }],
  };
}

/** Wraps a registry so candidate resolutions are counted; `fail(n)` makes the n-th resolution (1-based) throw. */
function counted(fail: (n: number) => boolean = () => false): { wrap: (r: SkillRegistryReader) => SkillRegistryReader; count: () => number } {
  let n = 0;
  return {
    count: () => n,
    wrap: (r) => ({
      listMetadata: (f) => r.listMetadata(f),
      resolveCandidates: async (requests) => {
        n++;
        if (fail(n)) throw new Error('registry briefly unavailable');
        return r.resolveCandidates(requests);
      },
      getManifest: (ref) => r.getManifest(ref),
      getResource: (ref) => r.getResource(ref),
    }),
  };
}

async function run(plan: EvalSkillPlan): Promise<CellRecord[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-runner-'));
  dirs.push(dir);
  const result = await runEval({ models: [new Decisive()], skills: [plan], concurrency: 2, runDir: dir });
  expect(result.complete).toBe(true);
  const cells: CellRecord[] = [];
  await scanCells(result.cellsFile, (c) => void cells.push(c));
  return cells;
}

describe('runEval pinning', () => {
  it('pins a variant once for all its cells, and every cell records the full pinning and outcome', async () => {
    const registry = counted();
    const cells = await run(await planWith(registry.wrap));
    expect(registry.count()).toBe(1);
    expect(cells).toHaveLength(6);
    for (const cell of cells) {
      expect(cell.outcome).toBe('activated');
      expect(cell.resources).toEqual(['travel/weather#storm-checklist']);
      expect(cell.trace.pinning.map((p) => [p.skill, p.status])).toEqual([
        ['travel/currency', 'pinned'],
        ['travel/weather', 'pinned'],
      ]);
    }
  });

  it('does not share a pinning that saw a problem: each cell pins for itself', async () => {
    const registry = counted((n) => n === 1);
    const cells = await run(await planWith(registry.wrap));
    // The failed shared pinning, then one per cell.
    expect(registry.count()).toBe(1 + 6);
    expect(cells.every((c) => c.outcome === 'activated' && c.trace.pinning.every((p) => p.status === 'pinned'))).toBe(true);
  });

  it('serves each manifest and resource of a frozen catalog as one frozen copy', async () => {
    // A store that hands out fresh, mutable objects (as one reading files does).
    const plan = await planWith((r) => r, 1, (base) => ({
      listMetadata: (f) => base.listMetadata(f),
      resolveCandidates: (r) => base.resolveCandidates(r),
      getManifest: async (ref) => structuredClone(await base.getManifest(ref)),
      getResource: async (ref) => structuredClone(await base.getResource(ref)),
    }));
    const registry = plan.variants[0]!.registry;
    const entry = plan.variants[0]!.catalog.entries.find((e) => e.under_test)!;
    const ref = { namespace: 'travel', name: 'weather', version: 1, manifest_hash: entry.manifest_hash };
    const manifest = await registry.getManifest(ref);
    expect(await registry.getManifest(ref)).toBe(manifest);
    expect(Object.isFrozen(manifest) && Object.isFrozen(manifest.resources)).toBe(true);
    const body = await registry.getResource({ skill: ref, name: 'storm-checklist', expected_hash: manifest.resources[0]!.content_hash });
    expect(Object.isFrozen(body)).toBe(true);
  });
});

describe('runEval redaction', () => {
  it('writes no URL password or known secret into cells.jsonl, and a cell with only plain URLs and questions as it is', async () => {
    const plan = await planWith((r) => r, 2);
    plan.cases[0]!.request = 'Does https://example.com/trip?page=2&day=3 say storms, x=2?';
    plan.cases[1]!.request = 'Storms? Use key known-secret-value from http://guest:pw-s3cret-77@10.0.0.1/feed';
    const model = new Decisive();
    // A model client whose spec holds an endpoint URL with a password: openModel refuses such a
    // spec (docs/models.md), but a client given to runEval in code may still carry one.
    Object.defineProperty(model, 'spec', { value: 'openai-compatible:http://mkuser:spec-pass-99@127.0.0.1:9/v1#m' });
    const dir = await mkdtemp(join(tmpdir(), 'sb-runner-'));
    dirs.push(dir);
    const result = await runEval({ models: [model], skills: [plan], concurrency: 2, runDir: dir, redact: createRedactor(['known-secret-value']) });
    expect(result.complete).toBe(true);
    const text = await readFile(result.cellsFile, 'utf8');
    for (const secret of ['spec-pass-99', 'pw-s3cret-77', 'known-secret-value']) expect(text).not.toContain(secret);
    const cells = text.trim().split('\n').map((line) => JSON.parse(line) as CellRecord);
    expect(cells).toHaveLength(2);
    expect(cells.every((c) => c.model === 'openai-compatible:http://mkuser:***@127.0.0.1:9/v1#m')).toBe(true);
    const prompt = (c: CellRecord) => c.trace.calls[0]!.messages[1]!.content;
    const byCase = new Map(cells.map((c) => [c.case, c]));
    // The prompt escapes the request as XML text.
    expect(prompt(byCase.get('c0')!)).toContain('Does https://example.com/trip?page=2&amp;day=3 say storms, x=2?');
    expect(prompt(byCase.get('c1')!)).toContain('Storms? Use key *** from http://guest:***@10.0.0.1/feed');
  });
});

/** Like {@link Decisive}, but each answer arrives in its own timer callback, as answers on separate sockets do; every call and answer is logged. */
class SeparateAnswers implements ModelClient {
  readonly spec = 'scripted:separate';
  readonly isBaseline = false;
  readonly log: string[] = [];
  private next = 0;
  generate(request: GenerateRequest): Promise<GenerateResult> {
    const kind = request.task?.kind === 'resource' ? 'resource' : 'activation';
    const i = this.next++;
    this.log.push(`call ${kind}`);
    return new Promise((resolve) =>
      setTimeout(() => {
        this.log.push(`answer ${i}`);
        void new Decisive().generate(request).then(resolve);
      }, 0),
    );
  }
}

describe('runEval scheduling', () => {
  it('takes every answer that arrives in one turn before any of those cells makes its next call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-runner-'));
    dirs.push(dir);
    const model = new SeparateAnswers();
    const result = await runEval({ models: [model], skills: [await planWith((r) => r, 4)], concurrency: 4, runDir: dir });
    expect(result.complete).toBe(true);
    expect(result.summary.totals.errors).toBe(0);
    // Four cells, each an activation call then a resource call: the four activations leave together,
    // their four answers are all taken, and only then do the resource calls leave.
    expect(model.log.map((e) => e.replace(/\d+$/, '#'))).toEqual([
      ...Array(4).fill('call activation'),
      ...Array(4).fill('answer #'),
      ...Array(4).fill('call resource'),
      ...Array(4).fill('answer #'),
    ]);
  });
});
