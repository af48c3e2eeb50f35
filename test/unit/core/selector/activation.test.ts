import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activateSkills, continueActivation, type ActivationPolicy } from '../../../../core/selector/activation';
import { DEFAULT_SELECTOR_LIMITS } from '../../../../core/selector/limits';
import { pinCandidates } from '../../../../core/selector/pinning';
import type { PinnedCandidate, SkillBinding } from '../../../../core/selector/types';
import { bind, modelError, pkg, registryOf, ScriptedModel } from './fixtures';

async function pinned(bindings: SkillBinding[], packages?: Record<string, ReturnType<typeof pkg>>): Promise<PinnedCandidate[]> {
  const registry = await registryOf(packages ?? Object.fromEntries(bindings.map((b) => [`${b.namespace}/${b.name}`, pkg({ description: `Use when ${b.name} is needed.` })])));
  const result = await pinCandidates({ bindings, registry });
  return result.candidates;
}

const autos = ['t/alpha', 't/beta', 't/gamma'].map((id) => bind(id));

describe('activateSkills', () => {
  it('activates a valid model selection and records a complete trace', async () => {
    const candidates = await pinned(autos);
    const model = new ScriptedModel({ activation: ['{"activate":["t/beta"]}'] });
    const out = await activateSkills({ request: 'need beta', candidates, model });
    expect(out.activated).toEqual(['t/beta']);
    expect(out.state.active).toEqual([expect.objectContaining({ skill: 't/beta', source: 'model', boundary: 'planning' })]);
    expect(out.diagnostics).toEqual([]);
    const [call] = model.requests;
    expect(call).toMatchObject({ temperature: 0.01, maxOutputTokens: 512 });
    expect(call!.task!.options.map((o) => o.id)).toEqual(['t/alpha', 't/beta', 't/gamma']);
    const trace = out.calls[0]!;
    expect(trace).toMatchObject({
      kind: 'activation',
      template: { id: 'skillbench.activation', version: '1' },
      raw: '{"activate":["t/beta"]}',
      decision: { activate: ['t/beta'] },
      accepted: ['t/beta'],
      usage: { inputTokens: 100, outputTokens: 7 },
      latencyMs: 3,
      model: 'scripted-model-1',
      provider: 'scripted',
      candidates: ['t/alpha', 't/beta', 't/gamma'],
    });
    expect(trace.messages).toEqual(call!.messages);
    expect(trace.messages[1]!.content).toContain('need beta');
    expect(trace.attempts).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('retries a malformed answer once with the correction message, then accepts a valid one', async () => {
    const candidates = await pinned(autos);
    const model = new ScriptedModel({ activation: ['I think beta.', '{"activate":["t/beta"]}'] });
    const out = await activateSkills({ request: 'need beta', candidates, model });
    expect(out.activated).toEqual(['t/beta']);
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]!.messages;
    expect(second).toHaveLength(4);
    expect(second[2]).toEqual({ role: 'assistant', content: 'I think beta.' });
    expect(second[3]!.role).toBe('user');
    expect(second[3]!.content).toContain('could not be used');
    expect(second[3]!.content).toContain('{"activate":["namespace/name"]}');
    const trace = out.calls[0]!;
    expect(trace.attempts.map((a) => [a.attempt, a.correction, a.outcome])).toEqual([
      [1, false, 'malformed'],
      [2, true, 'ok'],
    ]);
    expect(trace.messages).toEqual(second);
    expect(trace.usage).toEqual({ inputTokens: 200, outputTokens: 14 });
  });

  it('gives up after two malformed answers: diagnostic, no auto activation, always still applies', async () => {
    const candidates = await pinned([...autos, bind('t/base', { activation: 'always' })]);
    const model = new ScriptedModel({ activation: ['```json\n{"activate":["t/beta"]}\n```', 'nope'] });
    const out = await activateSkills({ request: 'x', candidates, model });
    expect(out.activated).toEqual(['t/base']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_selection_invalid', action: 'auto_activation_skipped' })]);
    expect(model.requests).toHaveLength(2);
  });

  it('rejects an invented identity: invalid, nothing auto-activated, no retry', async () => {
    const candidates = await pinned(autos);
    const model = new ScriptedModel({ activation: ['{"activate":["t/beta","t/delta"]}'] });
    const out = await activateSkills({ request: 'x', candidates, model });
    expect(out.activated).toEqual([]);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_selection_invalid' })]);
    expect(out.calls[0]!.decision).toEqual({ activate: ['t/beta', 't/delta'] });
    expect(out.calls[0]!.accepted).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it('reports a model failure as selection_failed and keeps always/explicit', async () => {
    const candidates = await pinned([...autos, bind('t/ex', { activation: 'explicit' })]);
    const model = new ScriptedModel({ activation: [modelError('outage')] });
    const out = await activateSkills({ request: 'x', candidates, model, trustedActivations: ['t/ex'] });
    expect(out.activated).toEqual(['t/ex']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_selection_failed', action: 'auto_activation_skipped' })]);
    expect(out.calls[0]!.attempts).toEqual([expect.objectContaining({ outcome: 'failed', provider: 'scripted' })]);
  });

  it('rethrows cancellation instead of reporting an omission', async () => {
    const candidates = await pinned(autos);
    const model = new ScriptedModel({ activation: [modelError('cancelled')] });
    await expect(activateSkills({ request: 'x', candidates, model })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('activates explicit skills only from a trusted list naming the exact bound identity', async () => {
    const candidates = await pinned([bind('f/report', { activation: 'explicit' }), bind('t/auto'), bind('t/always', { activation: 'always' })]);
    const model = new ScriptedModel({ activation: ['{"activate":["f/report"]}'] });
    const out = await activateSkills({ request: 'please activate f/report', candidates, model });
    // The model cannot activate an explicit binding: it was never offered, so naming it is invalid.
    expect(out.activated).toEqual(['t/always']);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['skill_activation_selection_invalid']);

    const trusted = await activateSkills({
      request: 'x',
      candidates,
      model: new ScriptedModel({ activation: ['{"activate":[]}'] }),
      trustedActivations: [' F/Report ', { namespace: 't', name: 'auto' }, 'x/unbound', 't/always'],
    });
    expect(trusted.activated).toEqual(['t/always', 'f/report']);
    expect(trusted.diagnostics.filter((d) => d.code === 'skill_trusted_activation_ineligible').map((d) => d.skill)).toEqual(['t/always', 't/auto', 'x/unbound']);
  });

  it('ignores a trusted list of more than 32 identities', async () => {
    const candidates = await pinned([bind('f/report', { activation: 'explicit' })]);
    const list = ['f/report', ...Array.from({ length: 32 }, (_, i) => `x/s${i}`)];
    const out = await activateSkills({ request: 'x', candidates, trustedActivations: list });
    expect(out.activated).toEqual([]);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_trusted_activation_ineligible', action: 'ignored' })]);
  });

  it('skips auto activation (but not always) when the catalog exceeds 16 candidates', async () => {
    const many = Array.from({ length: 17 }, (_, i) => bind(`n/s${String(i).padStart(2, '0')}`));
    const candidates = await pinned([...many, bind('n/base', { activation: 'always' })]);
    const model = new ScriptedModel();
    const out = await activateSkills({ request: 'x', candidates, model });
    expect(out.activated).toEqual(['n/base']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_catalog_budget_exceeded', action: 'auto_activation_skipped' })]);
    expect(model.requests).toHaveLength(0);
    const sixteen = await activateSkills({ request: 'x', candidates: candidates.filter((c) => c.id !== 'n/s16'), model: new ScriptedModel({ activation: ['{"activate":[]}'] }) });
    expect(sixteen.diagnostics).toEqual([]);
  });

  it('skips auto activation when the catalog is over 2,000 estimated tokens', async () => {
    const long = 'Use when x. ' + 'word '.repeat(1500);
    const candidates = await pinned([bind('n/a'), bind('n/b'), bind('n/c', { activation: 'always' })], {
      'n/a': pkg({ description: long }),
      'n/b': pkg({ description: long }),
      'n/c': pkg(),
    });
    const out = await activateSkills({ request: 'x', candidates, model: new ScriptedModel() });
    expect(out.activated).toEqual(['n/c']);
    expect(out.diagnostics[0]).toMatchObject({ code: 'skill_activation_catalog_budget_exceeded' });
    expect(out.diagnostics[0]!.message).toMatch(/above catalogTokenBudget \(2000\)/);
  });

  it('admits at most 6 active skills, overflow in deterministic order', async () => {
    const always = ['a/1', 'a/2', 'a/3', 'a/4'].map((id) => bind(id, { activation: 'always' }));
    const candidates = await pinned([...autos, ...always]);
    const model = new ScriptedModel({ activation: ['{"activate":["t/gamma","t/alpha","t/beta"]}'] });
    const out = await activateSkills({ request: 'x', candidates, model });
    expect(out.activated).toEqual(['a/1', 'a/2', 'a/3', 'a/4', 't/alpha', 't/beta']);
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_active_limit_exceeded', skill: 't/gamma', action: 'not_admitted' })]);
    expect(out.failure).toBeUndefined();
  });

  it('fails the boundary when a required skill cannot be admitted', async () => {
    const candidates = await pinned([bind('a/1', { activation: 'always' }), bind('a/2', { activation: 'always', required: true })]);
    const out = await activateSkills({ request: 'x', candidates, limits: { ...DEFAULT_SELECTOR_LIMITS, maxActiveSkills: 1 } });
    expect(out.failure).toMatchObject({ code: 'skill_active_limit_exceeded', skill: 'a/2', action: 'boundary_failed' });
  });

  describe('policy', () => {
    const policy = (decide: ActivationPolicy['evaluate']): ActivationPolicy => ({ id: 'test-policy/1', evaluate: decide });

    it('decides conclusively first; the model sees only the undecided', async () => {
      const candidates = await pinned(autos);
      const model = new ScriptedModel({ activation: ['{"activate":["t/gamma"]}'] });
      const out = await activateSkills({ request: 'x', candidates, model, policy: policy(() => ({ include: ['t/beta'], exclude: ['t/alpha'] })) });
      expect(out.activated).toEqual(['t/beta', 't/gamma']);
      expect(out.state.active.map((a) => a.source)).toEqual(['policy', 'model']);
      expect(model.requests[0]!.task!.options.map((o) => o.id)).toEqual(['t/gamma']);
      expect(out.policy).toEqual({ id: 'test-policy/1', boundary: 'planning', outcome: 'ok', include: ['t/beta'], exclude: ['t/alpha'] });
    });

    it('makes no model call when the policy decides everything', async () => {
      const candidates = await pinned(autos);
      const model = new ScriptedModel();
      const out = await activateSkills({ request: 'x', candidates, model, policy: policy(() => ({ exclude: ['t/alpha', 't/beta', 't/gamma'] })) });
      expect(out.activated).toEqual([]);
      expect(model.requests).toHaveLength(0);
    });

    it.each([
      ['an unknown identity', () => ({ include: ['t/zeta'] })],
      ['a non-auto identity', () => ({ include: ['t/always'] })],
      ['an id both included and excluded', () => ({ include: ['t/beta'], exclude: ['t/beta'] })],
      ['a non-array', () => ({ include: 't/beta' }) as never],
      ['null', () => null as never],
    ])('rejects %s as skill_activation_policy_invalid and skips auto activation', async (_label, decide) => {
      const candidates = await pinned([...autos, bind('t/always', { activation: 'always' })]);
      const model = new ScriptedModel();
      const out = await activateSkills({ request: 'x', candidates, model, policy: policy(decide) });
      expect(out.activated).toEqual(['t/always']);
      expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_policy_invalid', action: 'auto_activation_skipped' })]);
      expect(model.requests).toHaveLength(0);
    });

    it('reports a throwing policy as skill_activation_policy_failed', async () => {
      const candidates = await pinned(autos);
      const out = await activateSkills({
        request: 'x',
        candidates,
        model: new ScriptedModel(),
        policy: policy(() => {
          throw new Error('rules file missing');
        }),
      });
      expect(out.activated).toEqual([]);
      expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_activation_policy_failed', message: expect.stringContaining('rules file missing') })]);
    });
  });

  describe('hostile answers', () => {
    const hostile = [
      'x'.repeat(100_000),
      `{"activate":["t/beta"]}${' '.repeat(20_000)}`,
      '{"activate":[["t/beta"]]}',
      '{"activate":{"t/beta":true}}',
      '{"__proto__":{"activate":["t/beta"]}}',
      '{"activate":["t/beta"],"constructor":{"prototype":{"polluted":true}}}',
      '{"activate":["T/Beta"]}',
      '{"activate":[" t/beta"]}',
      '{"activate":["t/beta\\n"]}',
      '{"activate":["t/beta","t/beta"]}',
      '{"activate":["f/explicit"]}',
      '{"activate":["t/always"]}',
      '```json\n{"activate":["t/beta"]}\n```',
      '{"activate":["t/beta"]}\n{"activate":["t/alpha"]}',
      '{"activate":["../t/beta"]}',
      '{"activate":[null]}',
    ];

    it.each(hostile.map((h) => [h.slice(0, 60), h]))('never activates outside the pinned auto set and never throws: %s', async (_label, answer) => {
      const candidates = await pinned([...autos, bind('f/explicit', { activation: 'explicit' }), bind('t/always', { activation: 'always' })]);
      const model = new ScriptedModel({ activation: [answer, answer] });
      const out = await activateSkills({ request: 'x', candidates, model });
      expect(out.activated).toEqual(['t/always']);
      expect(out.diagnostics.map((d) => d.code)).toEqual(['skill_activation_selection_invalid']);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('property: for any answer, activated ⊆ pinned auto ∪ always ∪ trusted explicit, and no exception', async () => {
      const candidates = await pinned([...autos, bind('f/explicit', { activation: 'explicit' }), bind('f/other', { activation: 'explicit' }), bind('t/always', { activation: 'always' })]);
      const allowed = new Set(['t/alpha', 't/beta', 't/gamma', 't/always', 'f/explicit']);
      const ids = fc.constantFrom('t/alpha', 't/beta', 't/gamma', 'f/explicit', 'f/other', 't/always', 'T/ALPHA', ' t/beta', 'x/y', '__proto__', '');
      const answer = fc.oneof(
        fc.string(),
        fc.json(),
        fc.array(ids).map((list) => JSON.stringify({ activate: list })),
        fc.tuple(fc.array(ids), fc.constantFrom('```json\n', '', 'Sure: ', '{"activate":[]}')).map(([list, prefix]) => `${prefix}${JSON.stringify({ activate: list })}`),
      );
      await fc.assert(
        fc.asyncProperty(answer, answer, async (first, second) => {
          const model = new ScriptedModel({ activation: [first, second] });
          const out = await activateSkills({ request: 'x', candidates, model, trustedActivations: ['f/explicit'] });
          for (const id of out.activated) expect(allowed.has(id)).toBe(true);
          expect(out.activated).toContain('t/always');
          expect(out.activated).toContain('f/explicit');
          expect(out.activated).not.toContain('f/other');
        }),
        { numRuns: 300 },
      );
    });
  });
});

describe('continueActivation', () => {
  it('only adds skills: offers still-inactive auto candidates with the new context', async () => {
    const candidates = await pinned([...autos, bind('t/always', { activation: 'always' })]);
    const first = await activateSkills({ request: 'x', candidates, model: new ScriptedModel({ activation: ['{"activate":["t/alpha"]}'] }) });
    expect(first.activated).toEqual(['t/always', 't/alpha']);
    const model = new ScriptedModel({ activation: ['{"activate":["t/gamma"]}'] });
    const next = await continueActivation(first.state, { request: 'x', model, context: { objective: 'check the gamma results', priorResults: ['found gamma data'] } });
    expect(model.requests[0]!.task!.options.map((o) => o.id)).toEqual(['t/beta', 't/gamma']);
    expect(model.requests[0]!.messages[1]!.content).toContain('objective: check the gamma results');
    expect(next.activated).toEqual(['t/gamma']);
    expect(next.state.active.map((a) => [a.skill, a.boundary])).toEqual([
      ['t/always', 'planning'],
      ['t/alpha', 'planning'],
      ['t/gamma', 'continuation'],
    ]);
    // A model that names an already active skill at continuation cannot re-add or remove it.
    const again = await continueActivation(next.state, { request: 'x', model: new ScriptedModel({ activation: ['{"activate":["t/alpha"]}'] }) });
    expect(again.activated).toEqual([]);
    expect(again.state.active).toEqual(next.state.active);
    expect(again.diagnostics.map((d) => d.code)).toEqual(['skill_activation_selection_invalid']);
  });

  it('makes no call when no auto candidate is left', async () => {
    const candidates = await pinned([bind('t/alpha')]);
    const first = await activateSkills({ request: 'x', candidates, model: new ScriptedModel({ activation: ['{"activate":["t/alpha"]}'] }) });
    const model = new ScriptedModel();
    const next = await continueActivation(first.state, { request: 'x', model });
    expect(model.requests).toHaveLength(0);
    expect(next.state.active).toHaveLength(1);
  });
});
