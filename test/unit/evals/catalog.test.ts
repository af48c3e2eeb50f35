import { describe, expect, it } from 'vitest';
import { createLexicalBaseline } from '../../../core/models/lexical';
import type { SkillPackage } from '../../../core/package/types';
import { selectForRequest } from '../../../core/selector/select';
import type { SkillRegistryReader } from '../../../core/store/types';
import { createMemoryRegistry } from '../../../core/workspace/catalog';
import { buildCatalog, createDraftOverlay, prepareDraft } from '../../../evals/catalog';

function pkg(topic: string, extra: Partial<SkillPackage> = {}): SkillPackage {
  return {
    display_name: `${topic} guide`,
    description: `Use when a request asks about ${topic}: checking ${topic} details before acting on them.`,
    domains: ['test'],
    tags: [topic],
    planning_instructions: [`Check the ${topic} facts first.`],
    response_instructions: [],
    tool_hints: [],
    resources: [
      {
        name: `${topic}-notes`,
        description: `Notes on ${topic}.`,
        load_when: `Load when the ${topic} request needs the detailed notes.`,
        applies_to: [],
        required_when_selected: false,
        content_type: 'text/markdown',
        content: `# ${topic}\n\nDetails.`,
      },
    ],
    activation_examples: { should_activate: [`Tell me about ${topic}`], should_not_activate: ['Book a table'] },
    change_reason: 'test',
    ...extra,
  };
}

async function base() {
  return createMemoryRegistry([
    { id: { namespace: 'travel', name: 'weather' }, package: pkg('weather') },
    { id: { namespace: 'travel', name: 'currency' }, package: pkg('currency') },
    { id: { namespace: 'devops', name: 'pods' }, package: pkg('pods') },
  ]);
}

async function draftOf(name: string, p: SkillPackage) {
  const prepared = await prepareDraft({ namespace: 'travel', name }, JSON.stringify(p));
  if (!prepared.ok) throw new Error(JSON.stringify(prepared.errors));
  return prepared.draft;
}

/** Counts the reads that reach a registry. */
function counting(registry: SkillRegistryReader) {
  const counts = { resolve: 0, manifest: 0, resource: 0, list: 0 };
  const wrapped: SkillRegistryReader = {
    listMetadata: (f) => (counts.list++, registry.listMetadata(f)),
    resolveCandidates: (r) => (counts.resolve++, registry.resolveCandidates(r)),
    getManifest: (r) => (counts.manifest++, registry.getManifest(r)),
    getResource: (r) => (counts.resource++, registry.getResource(r)),
  };
  return { wrapped, counts };
}

describe('prepareDraft', () => {
  it('returns findings with line and column for an invalid draft', async () => {
    const text = '{\n  "display_name": "x",\n  "description": 42\n}';
    const result = await prepareDraft({ namespace: 'travel', name: 'weather' }, text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const finding = result.errors.find((f) => f.path === '/description');
    expect(finding).toMatchObject({ line: 3 });
  });
});

describe('draft overlay', () => {
  it('serves the draft as the published revision under the next number and passes the rest through', async () => {
    const registry = await base();
    const draft = await draftOf('weather', pkg('weather', { description: 'Use when a trip depends on storms, snow or heat waves.' }));
    const overlay = await createDraftOverlay(registry, [draft]);
    expect(overlay.draftVersions.get('travel/weather')).toBe(2);
    const [published, exact, other] = await overlay.resolveCandidates([
      { namespace: 'travel', name: 'weather', version: 'published' },
      { namespace: 'travel', name: 'weather', version: 1 },
      { namespace: 'travel', name: 'currency', version: 'published' },
    ]);
    expect(published).toMatchObject({ status: 'found', version: 2, manifest_hash: draft.manifest_hash });
    if (published?.status === 'found') expect(published.metadata.description).toContain('storms');
    const stored = registry.skills.find((s) => s.name === 'weather')!;
    expect(exact).toMatchObject({ status: 'found', version: 1, manifest_hash: stored.manifest_hash });
    expect(other).toMatchObject({ status: 'found', version: 1 });
    expect(draft.manifest_hash).not.toBe(stored.manifest_hash);

    const listed = await overlay.listMetadata({ namespace: 'travel' });
    expect(listed.map((m) => [m.name, m.version])).toEqual([
      ['currency', 1],
      ['weather', 2],
    ]);
    expect(await overlay.listMetadata({ tag: 'weather' })).toHaveLength(1);
    expect(await overlay.listMetadata({ limit: 1 })).toHaveLength(1);

    const manifest = await overlay.getManifest({ namespace: 'travel', name: 'weather', version: 2, manifest_hash: draft.manifest_hash });
    expect(manifest.description).toContain('storms');
    expect(manifest.resources.map((r) => r.name)).toEqual(['weather-notes']);
    await expect(overlay.getManifest({ namespace: 'travel', name: 'weather', version: 2, manifest_hash: stored.manifest_hash })).rejects.toMatchObject({ code: 'integrity_mismatch' });
    const hash = draft.resource_hashes['weather-notes']!;
    const body = await overlay.getResource({ skill: { namespace: 'travel', name: 'weather', version: 2, manifest_hash: draft.manifest_hash }, name: 'weather-notes', expected_hash: hash });
    expect(body).toMatchObject({ content_hash: hash, content: '# weather\n\nDetails.' });
    await expect(
      overlay.getResource({ skill: { namespace: 'travel', name: 'weather', version: 2, manifest_hash: draft.manifest_hash }, name: 'weather-notes', expected_hash: 'sha256:0' }),
    ).rejects.toMatchObject({ code: 'integrity_mismatch' });
  });

  it('serves a new skill as revision 1', async () => {
    const overlay = await createDraftOverlay(await base(), [await draftOf('visas', pkg('visas'))]);
    expect(overlay.draftVersions.get('travel/visas')).toBe(1);
    expect((await overlay.listMetadata({ namespace: 'travel' })).map((m) => m.name)).toEqual(['currency', 'visas', 'weather']);
  });
});

describe('buildCatalog', () => {
  it('defaults to the namespace, records the draft and measures the catalog the selector enforces', async () => {
    const draft = await draftOf('weather', pkg('weather'));
    const overlay = await createDraftOverlay(await base(), [draft]);
    const plan = await buildCatalog({ registry: overlay, skill: draft.id, drafts: new Set(['travel/weather']), source: 'memory' });
    expect(plan.record.entries).toEqual([
      { skill: 'travel/currency', version: 1, manifest_hash: expect.stringMatching(/^sha256:/), activation: 'auto', under_test: false },
      { skill: 'travel/weather', version: 'draft', manifest_hash: draft.manifest_hash, activation: 'auto', under_test: true },
    ]);
    expect(plan.record).toMatchObject({ budget: 2000, source: 'memory', auto_candidates: 2, max_auto_candidates: 16 });
    const result = await selectForRequest({ request: 'Tell me about weather', bindings: plan.bindings, registry: plan.registry, model: createLexicalBaseline() });
    const activation = result.trace.calls.find((c) => c.kind === 'activation')!;
    expect(plan.record.tokens).toBe(activation.catalogTokens);
    expect(plan.record.tokens).toBeGreaterThan(0);
    expect(result.activated).toEqual(['travel/weather']);
    expect(result.trace.pinning.find((p) => p.skill === 'travel/weather')).toMatchObject({ version: 2, manifest_hash: draft.manifest_hash });
  });

  it('adds the skill under test to a binding list and binds a draft to the published alias', async () => {
    const draft = await draftOf('weather', pkg('weather'));
    const overlay = await createDraftOverlay(await base(), [draft]);
    const bindings = [
      { namespace: 'devops', name: 'pods', version: 'published' as const, activation: 'always' as const, required: true },
      { namespace: 'travel', name: 'currency', version: 1, activation: 'auto' as const, required: false },
    ];
    const plan = await buildCatalog({ registry: overlay, skill: draft.id, bindings, drafts: new Set(['travel/weather']), source: 'memory', bindingsFile: 'agent.json' });
    expect(plan.bindings.map((b) => `${b.namespace}/${b.name}@${b.version}:${b.activation}`)).toEqual(['devops/pods@published:always', 'travel/currency@1:auto', 'travel/weather@published:auto']);
    expect(plan.record.entries.map((e) => [e.skill, e.activation, e.under_test])).toEqual([
      ['devops/pods', 'always', false],
      ['travel/currency', 'auto', false],
      ['travel/weather', 'auto', true],
    ]);
    expect(plan.record.bindings).toBe('agent.json');
    expect(plan.record.auto_candidates).toBe(2);

    const pinnedOld = await buildCatalog({ registry: overlay, skill: draft.id, bindings: [{ ...bindings[1]!, name: 'weather', version: 1 }], drafts: new Set(['travel/weather']), source: 'memory' });
    expect(pinnedOld.bindings[0]!.version).toBe('published');
  });

  it('fails when the skill under test cannot be pinned, or the catalog is too large', async () => {
    const registry = await base();
    await expect(buildCatalog({ registry, skill: { namespace: 'travel', name: 'nope' }, source: 'memory' })).rejects.toMatchObject({ code: 'not_found' });
    const many = Array.from({ length: 33 }, (_, i) => ({ namespace: 'travel', name: `s${i}`, version: 'published' as const, activation: 'auto' as const, required: false }));
    await expect(buildCatalog({ registry, skill: { namespace: 'travel', name: 'weather' }, bindings: many, source: 'memory' })).rejects.toMatchObject({ code: 'invalid_request' });
    const missing = await buildCatalog({
      registry,
      skill: { namespace: 'travel', name: 'weather' },
      bindings: [{ namespace: 'travel', name: 'gone', version: 'published', activation: 'auto', required: false }],
      source: 'memory',
    });
    expect(missing.warnings).toEqual(['travel/gone is not in the catalog']);
    expect(missing.record.entries.map((e) => e.skill)).toEqual(['travel/weather']);
  });

  it('freezes the pinned catalog: cells read the registry once per immutable body', async () => {
    const { wrapped, counts } = counting(await base());
    const plan = await buildCatalog({ registry: wrapped, skill: { namespace: 'travel', name: 'weather' }, source: 'memory' });
    const before = { ...counts };
    for (let i = 0; i < 5; i++) {
      const result = await selectForRequest({ request: 'weather notes please', bindings: plan.bindings, registry: plan.registry, model: createLexicalBaseline() });
      expect(result.activated).toContain('travel/weather');
    }
    expect(counts.resolve).toBe(before.resolve);
    expect(counts.list).toBe(before.list);
    expect(counts.manifest - before.manifest).toBe(1);
  });
});
