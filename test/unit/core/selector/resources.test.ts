import { describe, expect, it } from 'vitest';
import type { SkillManifest } from '../../../../core/package/types';
import { activateSkills } from '../../../../core/selector/activation';
import { DEFAULT_SELECTOR_LIMITS } from '../../../../core/selector/limits';
import { pinCandidates } from '../../../../core/selector/pinning';
import { loadManifests } from '../../../../core/selector/projection';
import { selectResources } from '../../../../core/selector/resources';
import type { SelectionState } from '../../../../core/selector/types';
import type { MemoryRegistry } from '../../../../core/workspace/catalog';
import { bind, modelError, pkg, registryOf, resource, ScriptedModel } from './fixtures';

/** Pins and always-activates every given package, then loads their manifests. */
async function activeState(packages: Record<string, ReturnType<typeof pkg>>): Promise<{ state: SelectionState; manifests: Record<string, SkillManifest>; registry: MemoryRegistry }> {
  const registry = await registryOf(packages);
  const pinned = await pinCandidates({ bindings: Object.keys(packages).map((id) => bind(id, { activation: 'always' })), registry });
  const activation = await activateSkills({ request: 'x', candidates: pinned.candidates });
  const loaded = await loadManifests(activation.state.active, { registry, boundary: 'planning' });
  return { state: activation.state, manifests: loaded.manifests, registry };
}

const scoped = {
  'd/ops': pkg({
    resources: [
      resource('plan-only', { applies_to: ['planning'] }),
      resource('synth-only', { applies_to: ['synthesis'] }),
      resource('everywhere', { applies_to: [] }),
      resource('later', { applies_to: ['continuation', 'synthesis'], required_when_selected: true }),
    ],
  }),
  'd/net': pkg({ resources: [resource('checklist')] }),
};

describe('selectResources', () => {
  it('offers the body-free catalog of active skills filtered by applies_to, in identity order', async () => {
    const { state, manifests } = await activeState(scoped);
    const model = new ScriptedModel({ resource: ['{"resources":[{"skill":"d/ops","name":"plan-only"}]}'] });
    const out = await selectResources({ state, manifests, boundary: 'planning', request: 'deploy', model });
    expect(out.catalog).toEqual(['d/net#checklist', 'd/ops#everywhere', 'd/ops#plan-only']);
    expect(out.selected).toEqual([{ skill: 'd/ops', name: 'plan-only', source: 'model', required_when_selected: false, content_hash: expect.stringMatching(/^sha256:/), content_type: 'text/markdown' }]);
    const prompt = model.requests[0]!.messages[1]!.content;
    expect(prompt).toContain('"load_when":"Load when plan-only matters."');
    expect(prompt).not.toContain('Content of plan-only');
    expect(model.requests[0]).toMatchObject({ temperature: 0.01, maxOutputTokens: 512 });
    const synthesis = await selectResources({ state, manifests, boundary: 'synthesis', request: 'x', model: new ScriptedModel({ resource: ['{"resources":[]}'] }) });
    expect(synthesis.catalog).toEqual(['d/net#checklist', 'd/ops#everywhere', 'd/ops#later', 'd/ops#synth-only']);
  });

  it('accepts a complete outer fence (v2) and passes prior selections as context', async () => {
    const { state, manifests } = await activeState(scoped);
    const first = await selectResources({
      state,
      manifests,
      boundary: 'planning',
      request: 'x',
      model: new ScriptedModel({ resource: ['```json\n{"resources":[{"skill":"d/net","name":"checklist"}]}\n```'] }),
    });
    expect(first.selected.map((s) => s.name)).toEqual(['checklist']);
    expect(first.state.resourceHistory).toEqual([{ skill: 'd/net', name: 'checklist', boundary: 'planning', source: 'model' }]);
    const model = new ScriptedModel({ resource: ['{"resources":[]}'] });
    const second = await selectResources({ state: first.state, manifests, boundary: 'continuation', request: 'x', model });
    expect(second.selected).toEqual([]);
    // A resource selected at planning is not carried into continuation; it is only context.
    expect(second.catalog).toContain('d/net#checklist');
    expect(model.requests[0]!.messages[1]!.content).toContain('{"boundary":"planning","skill":"d/net","name":"checklist"}');
  });

  it('admits valid trusted requests first and ignores ineligible ones', async () => {
    const { state, manifests } = await activeState(scoped);
    const model = new ScriptedModel({ resource: ['{"resources":[{"skill":"d/ops","name":"plan-only"}]}'] });
    const out = await selectResources({
      state,
      manifests,
      boundary: 'planning',
      request: 'x',
      model,
      trustedResources: ['d/net#checklist', { skill: 'd/ops', name: 'synth-only' }, 'd/ops#nope', 'x/y#z', 'garbage'],
    });
    expect(out.selected.map((s) => [s.skill, s.name, s.source])).toEqual([
      ['d/net', 'checklist', 'trusted'],
      ['d/ops', 'plan-only', 'model'],
    ]);
    expect(model.requests[0]!.task!.options.map((o) => o.id)).toEqual(['d/ops#everywhere', 'd/ops#plan-only']);
    const ineligible = out.diagnostics.filter((d) => d.code === 'skill_trusted_resource_ineligible');
    expect(ineligible.map((d) => d.message)).toEqual([
      expect.stringContaining('does not apply to the planning boundary'),
      expect.stringContaining("has no resource 'nope'"),
      expect.stringContaining('x/y is not an active skill'),
      expect.stringContaining('not a {skill, name} pair'),
    ]);
  });

  it('admits at most 2 per phase, in catalog order, and fails the boundary for a required overflow', async () => {
    const { state, manifests } = await activeState(scoped);
    const answer = '{"resources":[{"skill":"d/ops","name":"later"},{"skill":"d/ops","name":"everywhere"},{"skill":"d/net","name":"checklist"}]}';
    const out = await selectResources({ state, manifests, boundary: 'continuation', request: 'x', model: new ScriptedModel({ resource: [answer] }) });
    expect(out.selected.map((s) => `${s.skill}#${s.name}`)).toEqual(['d/net#checklist', 'd/ops#everywhere']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_resource_limit_exceeded', resource: 'later', action: 'boundary_failed' })]);
    expect(out.failure?.resource).toBe('later');
  });

  it('enforces 8 distinct resources per execution; a resource already used does not count twice', async () => {
    const many = pkg({ resources: Array.from({ length: 10 }, (_, i) => resource(`r${i}`)) });
    const { state, manifests } = await activeState({ 'm/many': many });
    const history = Array.from({ length: 8 }, (_, i) => ({ skill: 'm/many', name: `r${i}`, boundary: 'planning' as const, source: 'model' as const }));
    const full = { ...state, resourceHistory: history };
    const answer = '{"resources":[{"skill":"m/many","name":"r9"},{"skill":"m/many","name":"r3"}]}';
    const out = await selectResources({ state: full, manifests, boundary: 'continuation', request: 'x', model: new ScriptedModel({ resource: [answer] }) });
    expect(out.selected.map((s) => s.name)).toEqual(['r3']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_resource_limit_exceeded', resource: 'r9', action: 'not_admitted' })]);
  });

  it('skips model selection over 32 candidates but still admits trusted requests', async () => {
    const many = pkg({ resources: Array.from({ length: 32 }, (_, i) => resource(`r${String(i).padStart(2, '0')}`)) });
    const { state, manifests } = await activeState({ 'm/many': many, 'm/two': pkg({ resources: [resource('extra')] }) });
    // With the trusted one admitted first, exactly 32 candidates remain: the model is asked.
    const model = new ScriptedModel({ resource: ['{"resources":[]}'] });
    const out = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model, trustedResources: ['m/two#extra'] });
    expect(out.diagnostics).toEqual([]);
    expect(model.requests[0]!.task!.options).toHaveLength(32);
    const over = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: new ScriptedModel() });
    expect(over.selected).toEqual([]);
    expect(over.diagnostics).toEqual([expect.objectContaining({ code: 'skill_resource_catalog_budget_exceeded', action: 'resource_selection_skipped' })]);
    const trustedOnly = await selectResources({ state, manifests, boundary: 'planning', request: 'x', limits: { ...DEFAULT_SELECTOR_LIMITS, maxResourceCandidates: 5 }, trustedResources: ['m/two#extra'] });
    expect(trustedOnly.selected.map((s) => s.name)).toEqual(['extra']);
    expect(trustedOnly.diagnostics.map((d) => d.code)).toEqual(['skill_resource_catalog_budget_exceeded']);
  });

  it('skips model selection over the 2,000-token resource catalog budget', async () => {
    const long = 'Load when ' + 'condition '.repeat(800);
    const { state, manifests } = await activeState({ 'l/a': pkg({ resources: [resource('big', { load_when: long })] }) });
    const out = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: new ScriptedModel() });
    expect(out.diagnostics[0]).toMatchObject({ code: 'skill_resource_catalog_budget_exceeded' });
    expect(out.diagnostics[0]!.message).toMatch(/above resourceCatalogTokenBudget \(2000\)/);
  });

  it('rejects a decision naming an unoffered resource, and never selects it', async () => {
    const { state, manifests } = await activeState(scoped);
    for (const answer of [
      '{"resources":[{"skill":"d/ops","name":"synth-only"}]}',
      '{"resources":[{"skill":"D/OPS","name":"plan-only"}]}',
      '{"resources":[{"skill":"d/ops","name":"plan-only"},{"skill":"d/ops","name":"plan-only"}]}',
    ]) {
      const model = new ScriptedModel({ resource: [answer] });
      const out = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model });
      expect(out.selected).toEqual([]);
      expect(out.diagnostics.map((d) => d.code)).toEqual(['skill_resource_selection_invalid']);
      expect(model.requests).toHaveLength(1);
    }
  });

  it('retries malformed answers with a correction and timeouts without one; other failures skip selection', async () => {
    const { state, manifests } = await activeState(scoped);
    const valid = '{"resources":[{"skill":"d/net","name":"checklist"}]}';
    const malformed = new ScriptedModel({ resource: ['checklist please', valid] });
    const a = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: malformed });
    expect(a.selected.map((s) => s.name)).toEqual(['checklist']);
    expect(malformed.requests[1]!.messages).toHaveLength(4);

    const slow = new ScriptedModel({ resource: [modelError('timeout'), valid] });
    const b = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: slow });
    expect(b.selected.map((s) => s.name)).toEqual(['checklist']);
    expect(slow.requests[1]!.messages).toEqual(slow.requests[0]!.messages);
    expect(b.diagnostics).toEqual([expect.objectContaining({ code: 'skill_resource_selection_timeout', action: 'retry' })]);

    const stuck = new ScriptedModel({ resource: [modelError('timeout'), modelError('timeout')] });
    const c = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: stuck });
    expect(c.diagnostics.map((d) => [d.code, d.action])).toEqual([
      ['skill_resource_selection_timeout', 'retry'],
      ['skill_resource_selection_timeout', 'resource_selection_skipped'],
    ]);

    const down = new ScriptedModel({ resource: [modelError('server')] });
    const d = await selectResources({ state, manifests, boundary: 'planning', request: 'x', model: down });
    expect(d.diagnostics.map((x) => x.code)).toEqual(['skill_resource_selection_failed']);
    expect(down.requests).toHaveLength(1);
  });
});
