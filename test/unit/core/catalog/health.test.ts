import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogHealth, describeBudget, manifestSize } from '../../../../core/catalog/health';
import { buildManifest, computeIntegrity, validatePackage } from '../../../../core/package/index';
import { DEFAULT_AUTHORING_LIMITS } from '../../../../core/package/limits';
import { DEFAULT_SELECTOR_LIMITS } from '../../../../core/selector/limits';
import { activationEntry, renderCatalog } from '../../../../core/selector/render';
import type { PinnedCandidate, PinningRecord, SkillBinding } from '../../../../core/selector/types';
import { candidate } from './candidate';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/skills/packages/travel/currency-conversion.json', import.meta.url));

function catalog(candidates: PinnedCandidate[]) {
  const bindings: SkillBinding[] = candidates.map((c) => ({ namespace: c.namespace, name: c.name, version: 'published', activation: c.activation, required: false }));
  const records: PinningRecord[] = candidates.map((c) => ({ skill: c.id, requested: 'published', activation: c.activation, required: false, status: 'pinned', version: 1, manifest_hash: c.manifest_hash }));
  return { bindings, records, candidates };
}

describe('manifestSize', () => {
  it('measures the main instructions exactly as the validator does', async () => {
    const check = validatePackage(await readFile(EXAMPLE, 'utf8'), { id: { namespace: 'travel', name: 'currency-conversion' } });
    expect(check.valid).toBe(true);
    const integrity = await computeIntegrity(check.normalized!);
    const size = manifestSize(buildManifest(check.normalized!, integrity));
    expect(size).toEqual({ bytes: check.metrics!.manifest_bytes, tokens: check.metrics!.manifest_tokens });
  });
});

describe('catalogHealth', () => {
  it('renders the catalog as the selector does and gives each auto skill its share', () => {
    const cs = [candidate('b', 'Use when b.'), candidate('a', 'Use when a, with a longer description.'), candidate('always-on', 'Always.', 'always')];
    const health = catalogHealth(catalog(cs));
    const auto = cs.filter((c) => c.activation === 'auto').sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(health.catalog_tokens).toBe(renderCatalog(auto.map(activationEntry)).tokens);
    expect(health.auto_candidates).toBe(2);
    const shares = health.skills.map((s) => s.share);
    expect(shares.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 10);
    expect(health.skills.find((s) => s.skill === 'docs/always-on')).toMatchObject({ share: 0, catalog_tokens: 0 });
    expect(health.skills.find((s) => s.skill === 'docs/a')!.share).toBeGreaterThan(health.skills.find((s) => s.skill === 'docs/b')!.share);
    expect(health.broken).toEqual([]);
    expect(health.selector_asked).toBe(true);
  });

  it('names every broken limit, not only the first', () => {
    const over = DEFAULT_SELECTOR_LIMITS.maxAutoCandidates + 1;
    const cs = Array.from({ length: over }, (_, i) => candidate(`skill-${i}`, `Use when ${'a long description '.repeat(40)}`));
    const big = 'x'.repeat(DEFAULT_AUTHORING_LIMITS.maxManifestBytes + 1);
    const manifests = new Map([['docs/skill-3', { planning_instructions: [big], response_instructions: [], tool_hints: [] }]]);
    const health = catalogHealth({ ...catalog(cs), manifests });
    expect(health.broken.map((b) => [b.kind, b.skill ?? null])).toEqual([
      ['auto_candidates', null],
      ['catalog_tokens', null],
      ['manifest_bytes', 'docs/skill-3'],
      ['manifest_tokens', 'docs/skill-3'],
    ]);
    expect(health.selector_asked).toBe(false);
    expect(describeBudget(health.broken[0]!)).toBe(`auto candidates ${over} > ${DEFAULT_SELECTOR_LIMITS.maxAutoCandidates} (maxAutoCandidates, TRUVAG3_SKILL_MAX_AUTO_CANDIDATES)`);
  });

  it('measures against the limits given, not the defaults', () => {
    const cs = [candidate('a', 'Use when a.'), candidate('b', 'Use when b.')];
    const health = catalogHealth({ ...catalog(cs), limits: { ...DEFAULT_SELECTOR_LIMITS, maxAutoCandidates: 1 } });
    expect(health.broken.map((b) => b.kind)).toEqual(['auto_candidates']);
  });
});
