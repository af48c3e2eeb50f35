import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIVATION_TEMPLATE_V1 } from '../../../../core/selector/prompts/activation-v1';
import { parseTemplate } from '../../../../core/selector/prompts/template';
import { resolveSelectorLimits, type SelectorLimits } from '../../../../core/selector/limits';
import { SelectionMemo, selectForRequest } from '../../../../core/selector/select';
import type { SkillRegistryReader } from '../../../../core/store/types';
import { bind, pkg, registryOf, resource, ScriptedModel } from './fixtures';

const packages = {
  'travel/weather': pkg({
    display_name: 'Weather',
    description: 'Use when a trip depends on the forecast.',
    planning_instructions: ['Check the forecast for each travel day.'],
    response_instructions: ['Separate forecast from climate.'],
    resources: [resource('storm-checklist', { applies_to: ['planning', 'synthesis'] }), resource('packing', { applies_to: ['synthesis'] })],
  }),
  'travel/currency': pkg({ display_name: 'Currency', description: 'Use when a request converts money.' }),
  'travel/verify': pkg({ display_name: 'Verify', description: 'Use when an action must be verified.', planning_instructions: ['Report success only with evidence.'] }),
  'finance/report': pkg({ display_name: 'Report', description: 'Use when regulated reports are written.' }),
};

const bindings = [bind('travel/weather'), bind('travel/currency'), bind('travel/verify', { activation: 'always' }), bind('finance/report', { activation: 'explicit' })];

describe('selectForRequest', () => {
  it('runs pin → activate → resources → projection and returns plain data with a full trace', async () => {
    const registry = await registryOf(packages);
    const model = new ScriptedModel({
      activation: ['{"activate":["travel/weather"]}'],
      resource: ['{"resources":[{"skill":"travel/weather","name":"storm-checklist"}]}'],
    });
    const result = await selectForRequest({ request: 'Will storms hit my Oslo trip?', bindings, registry, model });
    expect(result.model).toBe('scripted:test');
    expect(result.outcome).toBe('ok');
    expect(result.activated).toEqual(['travel/verify', 'travel/weather']);
    expect(result.resources).toEqual([{ skill: 'travel/weather', name: 'storm-checklist' }]);
    expect(result.diagnostics).toEqual([]);
    expect(result.projection?.skills.map((s) => [s.skill, s.status])).toEqual([
      ['travel/verify', 'admitted'],
      ['travel/weather', 'admitted'],
    ]);
    expect(result.projection?.resources.map((r) => [r.name, r.status])).toEqual([['storm-checklist', 'admitted']]);
    expect(result.projection?.section).toContain('Check the forecast for each travel day.');
    expect(result.trace.pinning.map((p) => p.status)).toEqual(['pinned', 'pinned', 'pinned', 'pinned']);
    expect(result.trace.calls.map((c) => [c.kind, c.template.id, c.template.version])).toEqual([
      ['activation', 'skillbench.activation', '1'],
      ['resource', 'skillbench.resource', '1'],
    ]);
    expect(result.trace.calls[0]!.candidates).toEqual(['travel/currency', 'travel/weather']);
    expect(result.trace.resourceCatalog).toEqual(['travel/weather#storm-checklist']);
    expect(result.trace.usage).toEqual({ inputTokens: 200, outputTokens: 14 });
    expect(result.trace.modelLatencyMs).toBe(6);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('binds every catalog skill as auto when no bindings are given', async () => {
    const registry = await registryOf(packages);
    const model = new ScriptedModel({ activation: ['{"activate":[]}'] });
    const result = await selectForRequest({ request: 'hello', registry, model });
    expect(result.trace.bindingSource).toBe('catalog');
    expect(model.requests[0]!.task!.options.map((o) => o.id)).toEqual(['finance/report', 'travel/currency', 'travel/verify', 'travel/weather']);
    expect(result.activated).toEqual([]);
    expect(result.projection?.totals.totalTokens).toBe(0);
  });

  it('an empty binding list means no skills, no model call', async () => {
    const registry = await registryOf(packages);
    const model = new ScriptedModel();
    const result = await selectForRequest({ request: 'hello', bindings: [], registry, model });
    expect(result).toMatchObject({ outcome: 'ok', activated: [], resources: [], diagnostics: [] });
    expect(model.requests).toHaveLength(0);
  });

  it('fails the request when a required binding cannot be pinned', async () => {
    const registry = await registryOf(packages);
    const result = await selectForRequest({ request: 'x', bindings: [bind('travel/gone', { required: true })], registry, model: new ScriptedModel() });
    expect(result.outcome).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'skill_required_candidate_unavailable' });
    expect(result.projection).toBeNull();
  });

  it('activates explicit skills only through trusted activations', async () => {
    const registry = await registryOf(packages);
    const answers = { activation: ['{"activate":[]}'], resource: [] };
    const withoutTrust = await selectForRequest({ request: 'write the regulated report finance/report', bindings, registry, model: new ScriptedModel(answers) });
    expect(withoutTrust.activated).not.toContain('finance/report');
    const trusted = await selectForRequest({ request: 'x', bindings, registry, model: new ScriptedModel(answers), trustedActivations: ['finance/report'] });
    expect(trusted.activated).toContain('finance/report');
  });

  it('continues an execution from its state: continuation only adds skills, synthesis projects response instructions', async () => {
    const registry = await registryOf(packages);
    const planning = await selectForRequest({
      request: 'Trip to Oslo',
      bindings,
      registry,
      model: new ScriptedModel({ activation: ['{"activate":["travel/weather"]}'], resource: ['{"resources":[]}'] }),
    });
    const model = new ScriptedModel({ activation: ['{"activate":["travel/currency"]}'], resource: ['{"resources":[]}'] });
    const continuation = await selectForRequest({
      request: 'Trip to Oslo',
      boundary: 'continuation',
      registry,
      model,
      state: planning.state,
      context: { objective: 'convert the budget', priorResults: ['forecast: rain'] },
    });
    expect(model.calls('activation')[0]!.task!.options.map((o) => o.id)).toEqual(['travel/currency']);
    expect(continuation.activated).toEqual(['travel/verify', 'travel/weather', 'travel/currency']);
    expect(continuation.trace.pinning).toEqual([]);
    const synthesisModel = new ScriptedModel({ resource: ['{"resources":[{"skill":"travel/weather","name":"packing"}]}'] });
    const synthesis = await selectForRequest({ request: 'Trip to Oslo', boundary: 'synthesis', registry, model: synthesisModel, state: continuation.state });
    expect(synthesisModel.calls('activation')).toHaveLength(0);
    expect(synthesis.projection?.section).toContain('Separate forecast from climate.');
    expect(synthesis.projection?.section).not.toContain('Check the forecast');
    expect(synthesis.resources).toEqual([{ skill: 'travel/weather', name: 'packing' }]);
    expect(synthesis.state.resourceHistory.map((h) => h.boundary)).toEqual(['synthesis']);
  });

  it('records a user template in every trace', async () => {
    const registry = await registryOf(packages);
    const parsed = parseTemplate(JSON.stringify({ ...ACTIVATION_TEMPLATE_V1, id: 'acme.activation', version: '3', system: 'ACME selector.' }));
    if (!parsed.ok) throw new Error('template fixture is invalid');
    const model = new ScriptedModel({ activation: ['{"activate":[]}'] });
    const result = await selectForRequest({ request: 'x', bindings, registry, model, templates: { activation: parsed.template } });
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'ACME selector.' });
    expect(result.trace.calls[0]!.template).toEqual({ id: 'acme.activation', version: '3' });
    expect(result.trace.templates.activation).toEqual({ id: 'acme.activation', version: '3' });
    await expect(selectForRequest({ request: 'x', bindings, registry, model, templates: { resource: parsed.template } })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('rejects invalid limits and bindings as caller errors', async () => {
    const registry = await registryOf(packages);
    await expect(selectForRequest({ request: 'x', registry, model: new ScriptedModel(), limits: { mainTokenBudget: 9000 } })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(selectForRequest({ request: 'x', registry, model: new ScriptedModel(), bindings: [bind('Bad/Name')] })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('property: for any model answers, activated ⊆ pinned auto ∪ always ∪ trusted explicit, resources ⊆ eligible, and no exception', async () => {
    const registry = await registryOf(packages);
    const allowedSkills = new Set(['travel/weather', 'travel/currency', 'travel/verify', 'finance/report']);
    const eligible = new Set(['travel/weather#storm-checklist']);
    const ids = fc.constantFrom('travel/weather', 'travel/currency', 'travel/verify', 'finance/report', 'Travel/Weather', 'other/skill');
    const activation = fc.oneof(fc.string(), fc.json(), fc.array(ids).map((a) => JSON.stringify({ activate: a })));
    const res = fc.oneof(
      fc.string(),
      fc.array(fc.record({ skill: ids, name: fc.constantFrom('storm-checklist', 'packing', 'x') })).map((r) => JSON.stringify({ resources: r })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(activation, { minLength: 2, maxLength: 2 }), fc.array(res, { minLength: 2, maxLength: 2 }), fc.boolean(), async (a, r, trust) => {
        const model = new ScriptedModel({ activation: a, resource: r });
        const result = await selectForRequest({ request: 'x', bindings, registry, model, ...(trust && { trustedActivations: ['finance/report'] }) });
        for (const id of result.activated) expect(allowedSkills.has(id)).toBe(true);
        expect(result.activated).toContain('travel/verify');
        expect(result.activated.includes('finance/report')).toBe(trust);
        for (const sel of result.resources) expect(eligible.has(`${sel.skill}#${sel.name}`)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

/** `registry` with its content reads counted. */
function counted(registry: SkillRegistryReader): { registry: SkillRegistryReader; reads: { manifest: number; resource: number } } {
  const reads = { manifest: 0, resource: 0 };
  const wrapped = new Proxy(registry, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (key === 'getManifest') return (...args: unknown[]) => (reads.manifest++, fn.apply(target, args));
      if (key === 'getResource') return (...args: unknown[]) => (reads.resource++, fn.apply(target, args));
      return fn.bind(target);
    },
  });
  return { registry: wrapped, reads };
}

const limitsOf = (partial: Partial<SelectorLimits>): SelectorLimits => {
  const resolved = resolveSelectorLimits(partial);
  if (!resolved.ok) throw new Error('invalid test limits');
  return resolved.limits;
};

describe('SelectionMemo', () => {
  const answers = () => new ScriptedModel({ activation: ['{"activate":["travel/weather"]}'], resource: ['{"resources":[{"skill":"travel/weather","name":"storm-checklist"}]}'] });

  it('reads and projects once for the calls against one registry and limits, with the results of calls made without it', async () => {
    const plain = await registryOf(packages);
    const { registry, reads } = counted(plain);
    const limits = limitsOf({});
    const memo = new SelectionMemo(registry, limits);
    const results = [];
    for (const request of ['Will storms hit my Oslo trip?', 'Is a storm coming to Bergen?', 'Storms in Tromso next week?']) {
      const shared = await selectForRequest({ request, bindings, registry, model: answers(), limits, memo });
      const alone = await selectForRequest({ request, bindings, registry: plain, model: answers(), limits });
      expect(JSON.parse(JSON.stringify(shared))).toEqual(JSON.parse(JSON.stringify(alone)));
      results.push(shared);
    }
    expect(reads).toEqual({ manifest: 2, resource: 1 });
    expect(results[2]!.projection).toBe(results[1]!.projection);
    expect(Object.isFrozen(results[1]!.projection)).toBe(true);
  });

  it('is not used for another registry or other limits, and keeps no projection that carries a diagnostic', async () => {
    const { registry, reads } = counted(await registryOf(packages));
    const base = limitsOf({});
    const memo = new SelectionMemo(registry, base);
    // Limits resolved again are another object: the memo cannot know they are the same, so it stays out.
    await selectForRequest({ request: 'Storms on my trip?', bindings, registry, model: answers(), limits: limitsOf({}), memo });
    await selectForRequest({ request: 'Storms on my trip?', bindings, registry, model: answers(), limits: limitsOf({}), memo });
    expect(reads).toEqual({ manifest: 4, resource: 2 });
    const other = counted(await registryOf(packages));
    for (let i = 0; i < 2; i++) await selectForRequest({ request: 'Storms on my trip?', bindings, registry: other.registry, model: answers(), limits: base, memo });
    expect(other.reads).toEqual({ manifest: 4, resource: 2 });

    // A resource budget too small for the checklist: every projection omits it with a diagnostic.
    const tight = limitsOf({ resourceTokenBudget: 1 });
    const tightMemo = new SelectionMemo(registry, tight);
    for (let i = 0; i < 2; i++) {
      const result = await selectForRequest({ request: 'Storms on my trip?', bindings, registry, model: answers(), limits: tight, memo: tightMemo });
      expect(result.diagnostics.map((d) => d.code)).toEqual(['skill_resource_budget_exceeded']);
    }
    // The clean manifest load of the two active skills is kept; the resource is read by each call.
    expect(reads).toEqual({ manifest: 6, resource: 4 });
  });
});

