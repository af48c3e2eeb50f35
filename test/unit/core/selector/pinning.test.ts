import { describe, expect, it } from 'vitest';
import { pinCandidates } from '../../../../core/selector/pinning';
import type { CandidateRequest, CandidateResult, SkillRegistryReader } from '../../../../core/store/types';
import { bind, pkg, registryOf } from './fixtures';

/** A registry whose batch answer is rewritten by `edit`, over a real memory registry. */
async function editedRegistry(edit: (results: CandidateResult[], requests: CandidateRequest[]) => unknown): Promise<SkillRegistryReader> {
  const real = await registryOf({ 't/a': pkg({ domains: ['travel'] }), 't/b': pkg({ domains: ['finance'] }), 't/c': pkg() });
  return {
    listMetadata: (f) => real.listMetadata(f),
    getManifest: (r) => real.getManifest(r),
    getResource: (r) => real.getResource(r),
    resolveCandidates: async (requests) => edit(await real.resolveCandidates(requests), requests) as CandidateResult[],
  };
}

describe('pinCandidates', () => {
  it('pins exact versions and hashes in one batch call', async () => {
    const registry = await registryOf({ 't/a': pkg(), 't/b': pkg() });
    let calls = 0;
    const counting: SkillRegistryReader = { ...registry, listMetadata: registry.listMetadata.bind(registry), getManifest: registry.getManifest.bind(registry), getResource: registry.getResource.bind(registry), resolveCandidates: (r) => (calls++, registry.resolveCandidates(r)) };
    const out = await pinCandidates({ bindings: [bind('t/a'), bind('t/b', { version: 1, activation: 'always' })], registry: counting });
    expect(calls).toBe(1);
    expect(out.candidates.map((c) => [c.id, c.version, c.activation])).toEqual([
      ['t/a', 1, 'auto'],
      ['t/b', 1, 'always'],
    ]);
    expect(out.candidates[0]!.manifest_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.records.map((r) => r.status)).toEqual(['pinned', 'pinned']);
  });

  it('leaves out optional unavailable bindings and fails the request for a required one', async () => {
    const registry = await registryOf({ 't/a': pkg() });
    const optional = await pinCandidates({ bindings: [bind('t/a'), bind('t/missing'), bind('t/a2', { version: 4 })], registry });
    expect(optional.candidates.map((c) => c.id)).toEqual(['t/a']);
    expect(optional.records.map((r) => r.status)).toEqual(['pinned', 'not_found', 'not_found']);
    expect(optional.failure).toBeUndefined();
    const pinnedOld = await pinCandidates({ bindings: [bind('t/a', { version: 4, required: true })], registry });
    expect(pinnedOld.records[0]!.status).toBe('version_unavailable');
    expect(pinnedOld.failure).toMatchObject({ code: 'skill_required_candidate_unavailable', skill: 't/a', action: 'request_failed' });
  });

  it('reports a throwing registry as skill_registry_unavailable', async () => {
    const registry = await editedRegistry(() => {
      throw new Error('connection refused');
    });
    const out = await pinCandidates({ bindings: [bind('t/a'), bind('t/b', { required: true })], registry });
    expect(out.candidates).toEqual([]);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['skill_registry_unavailable', 'skill_required_candidate_unavailable']);
    expect(out.failure?.skill).toBe('t/b');
    expect(out.records.map((r) => r.status)).toEqual(['registry_unavailable', 'registry_unavailable']);
  });

  it('times out a registry that does not answer', async () => {
    const registry = await editedRegistry(() => new Promise(() => undefined));
    const out = await pinCandidates({ bindings: [bind('t/a')], registry, registryReadTimeoutMs: 20 });
    expect(out.diagnostics).toEqual([expect.objectContaining({ code: 'skill_registry_unavailable', message: expect.stringContaining('20 ms') })]);
  });

  it('classifies absent and inconsistent results', async () => {
    const registry = await editedRegistry((results) => {
      const [a, b] = results as [CandidateResult, CandidateResult];
      const lying = a.status === 'found' ? { ...a, request: b.request } : a;
      return [lying, { ...b, version: 0 }];
    });
    const out = await pinCandidates({ bindings: [bind('t/a'), bind('t/b'), bind('t/c', { required: true })], registry });
    expect(out.candidates).toEqual([]);
    expect(out.diagnostics.map((d) => [d.code, d.skill])).toEqual([
      ['skill_candidate_result_invalid', 't/a'],
      ['skill_candidate_result_invalid', 't/b'],
      ['skill_candidate_result_missing', 't/c'],
      ['skill_required_candidate_unavailable', 't/c'],
    ]);
  });

  it('rejects a found result whose hash or pinned revision is wrong', async () => {
    const registry = await editedRegistry((results) =>
      results.map((r, i) => (r.status !== 'found' ? r : i === 0 ? { ...r, manifest_hash: 'sha256:short' } : { ...r, version: 2 })),
    );
    const out = await pinCandidates({ bindings: [bind('t/a'), bind('t/b', { version: 1 })], registry });
    expect(out.records.map((r) => r.status)).toEqual(['invalid', 'invalid']);
  });

  it('applies domain compatibility: off, warn (default), enforce', async () => {
    const registry = await registryOf({ 't/a': pkg({ domains: ['travel'] }), 't/b': pkg({ domains: ['finance'] }), 't/c': pkg() });
    const bindings = [bind('t/a'), bind('t/b'), bind('t/c')];
    const off = await pinCandidates({ bindings, registry, domain: 'travel', domainMode: 'off' });
    expect(off.diagnostics).toEqual([]);
    const warn = await pinCandidates({ bindings, registry, domain: 'travel' });
    expect(warn.candidates.map((c) => c.id)).toEqual(['t/a', 't/b', 't/c']);
    expect(warn.diagnostics).toEqual([expect.objectContaining({ code: 'skill_domain_mismatch', skill: 't/b', action: 'allowed' })]);
    const enforce = await pinCandidates({ bindings, registry, domain: 'travel', domainMode: 'enforce' });
    expect(enforce.candidates.map((c) => c.id)).toEqual(['t/a', 't/c']);
    expect(enforce.records[1]!.status).toBe('domain_omitted');
    const required = await pinCandidates({ bindings: [bind('t/b', { required: true })], registry, domain: 'travel', domainMode: 'enforce' });
    expect(required.failure).toMatchObject({ code: 'skill_domain_mismatch', action: 'request_failed' });
    const noDomain = await pinCandidates({ bindings, registry, domain: '', domainMode: 'enforce' });
    expect(noDomain.candidates).toHaveLength(3);
  });
});
