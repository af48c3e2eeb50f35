/**
 * An evaluation pins its frozen catalog once and hands every cell the same
 * frozen pinning, manifests and resources: the selector reuses what depends
 * only on them (the pinning, the activation and resource offers, the rendered
 * blocks) and still gives exactly what a fresh selection gives.
 */
import { describe, expect, it } from 'vitest';
import { pinCandidates } from '../../../../core/selector/pinning';
import { selectForRequest } from '../../../../core/selector/select';
import type { SkillRegistryReader } from '../../../../core/store/types';
import { deepFreeze } from '../../../../core/frozen';
import { bind, pkg, registryOf, resource, ScriptedModel } from './fixtures';

const packages = {
  'travel/weather': pkg({
    display_name: 'Weather',
    description: 'Use when a trip depends on the weather.',
    planning_instructions: ['Check the forecast for each travel day.'],
    resources: [resource('storm-checklist', { applies_to: ['planning'] }), resource('packing')],
  }),
  'travel/currency': pkg({ display_name: 'Currency', description: 'Use when money is exchanged.' }),
};
const bindings = [bind('travel/currency'), bind('travel/weather')];

const answers = () =>
  new ScriptedModel({
    activation: ['{"activate":["travel/weather"]}'],
    resource: ['{"resources":[{"skill":"travel/weather","name":"storm-checklist"}]}'],
  });

/** A registry that counts its reads. */
function counting(registry: SkillRegistryReader): { registry: SkillRegistryReader; reads: Record<string, number> } {
  const reads: Record<string, number> = { resolveCandidates: 0, getManifest: 0, getResource: 0 };
  return {
    reads,
    registry: {
      listMetadata: (filter) => registry.listMetadata(filter),
      resolveCandidates: (requests) => (reads['resolveCandidates']!++, registry.resolveCandidates(requests)),
      getManifest: (ref) => (reads['getManifest']!++, registry.getManifest(ref)),
      getResource: (ref) => (reads['getResource']!++, registry.getResource(ref)),
    },
  };
}

describe('selectForRequest over a pinning done beforehand', () => {
  it('does not resolve the bindings again, and gives what pinning in the call gives', async () => {
    const { registry, reads } = counting(await registryOf(packages));
    const fresh = await selectForRequest({ request: 'Will storms hit my Oslo trip?', bindings, registry, model: answers() });
    expect(reads['resolveCandidates']).toBe(1);

    const pinning = deepFreeze(await pinCandidates({ bindings, registry }));
    reads['resolveCandidates'] = 0;
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await selectForRequest({ request: 'Will storms hit my Oslo trip?', bindings, registry, model: answers(), pinning }));
    expect(reads['resolveCandidates']).toBe(0);
    for (const r of results) {
      expect(r.trace.pinning).toBe(pinning.records);
      expect(JSON.parse(JSON.stringify(r))).toEqual(JSON.parse(JSON.stringify(fresh)));
    }
    // What depends only on the frozen catalog is built once and shared, frozen, by every call.
    const [a, b] = results;
    expect(b!.trace.calls[0]!.candidates).toBe(a!.trace.calls[0]!.candidates);
    expect(b!.trace.resourceCatalog).toBe(a!.trace.resourceCatalog);
    expect(Object.isFrozen(a!.trace.calls[0]!.candidates)).toBe(true);
    expect(a!.trace.resourceCatalog).toEqual(['travel/weather#packing', 'travel/weather#storm-checklist']);
  });

  it('renders a frozen manifest and resource once, and never shares what is not frozen', async () => {
    const base = await registryOf(packages);
    let renders = 0;
    // A frozen manifest whose display name is counted: the load check reads it once per call, rendering its block once more.
    const watched = new WeakMap<object, object>();
    const registry: SkillRegistryReader = {
      ...base,
      listMetadata: (f) => base.listMetadata(f),
      resolveCandidates: (r) => base.resolveCandidates(r),
      getResource: (r) => base.getResource(r),
      async getManifest(ref) {
        const manifest = await base.getManifest(ref);
        let proxy = watched.get(manifest);
        if (!proxy) {
          proxy = new Proxy(manifest, { get: (t, k, r) => (k === 'display_name' && renders++, Reflect.get(t, k, r)) });
          watched.set(manifest, proxy);
        }
        return proxy as typeof manifest;
      },
    };
    const pinning = deepFreeze(await pinCandidates({ bindings, registry }));
    const first = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning });
    const once = renders;
    const second = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning });
    expect(once).toBe(2);
    expect(renders - once).toBe(1);
    expect(second.projection).toEqual(first.projection);
    expect(first.projection?.section).toContain('Check the forecast for each travel day.');
    expect(first.projection?.section).toContain('Content of storm-checklist.');

    // Unfrozen candidates (a caller's own pinning) are never memoised: each call builds its own offer.
    const open = await pinCandidates({ bindings, registry });
    const x = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning: open });
    const y = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning: open });
    expect(y.trace.calls[0]!.candidates).not.toBe(x.trace.calls[0]!.candidates);
    expect(y.trace.calls[0]!.candidates).toEqual(x.trace.calls[0]!.candidates);

    // A frozen list of candidates that can still change is not memoised either: a change shows in the next offer.
    const mutable = { ...open, candidates: Object.freeze(open.candidates.map((c) => ({ ...c }))) as typeof open.candidates };
    const before = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning: mutable });
    expect(before.trace.calls[0]!.candidates).toEqual(['travel/currency', 'travel/weather']);
    mutable.candidates.find((c) => c.id === 'travel/currency')!.activation = 'explicit';
    const after = await selectForRequest({ request: 'Storms in Oslo?', bindings, registry, model: answers(), pinning: mutable });
    expect(after.trace.calls[0]!.candidates).toEqual(['travel/weather']);
  });
});
