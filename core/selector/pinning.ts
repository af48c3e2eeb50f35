/**
 * Stage 1 of the runtime lifecycle (guide 7): resolve every binding in one
 * batch, pin exact versions and hashes, and classify what came back. Domain
 * compatibility (guide 9.3) is applied to the pinned set.
 *
 * Isomorphic: registry reads go through the {@link SkillRegistryReader} port.
 */
import type { CandidateRequest, CandidateResult, SkillRegistryReader } from '../store/types';
import { DEFAULT_SELECTOR_LIMITS } from './limits';
import type { DomainCompatibilityMode, PinnedCandidate, PinningRecord, SelectorDiagnostic, SkillBinding } from './types';
import { bounded, describeError, throwIfAborted } from './util';

/** Input of {@link pinCandidates}. */
export interface PinningInput {
  bindings: readonly SkillBinding[];
  registry: SkillRegistryReader;
  /** Per-operation registry timeout in ms (default 5000; 0 = none). */
  registryReadTimeoutMs?: number;
  /** The agent's domain (`PromptConfig.Domain`); empty disables the comparison. */
  domain?: string;
  /** Default `warn` (guide 9.3). */
  domainMode?: DomainCompatibilityMode;
  signal?: AbortSignal;
}

/** Result of {@link pinCandidates}. */
export interface PinningResult {
  /** Eligible pinned candidates, in binding order. */
  candidates: PinnedCandidate[];
  /** One record per binding, in binding order. */
  records: PinningRecord[];
  diagnostics: SelectorDiagnostic[];
  /** Set when a required binding could not be pinned: the request fails. */
  failure?: SelectorDiagnostic;
}

const HASH = /^sha256:[0-9a-f]{64}$/;

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Why a `found` result cannot be trusted for this binding, or undefined when it can. */
function inconsistency(binding: SkillBinding, result: CandidateResult): string | undefined {
  const req = result.request as Partial<CandidateRequest> | undefined;
  if (!req || req.namespace !== binding.namespace || req.name !== binding.name || req.version !== binding.version) {
    return 'the result answers a different request';
  }
  if (result.status !== 'found') return undefined;
  if (!Number.isSafeInteger(result.version) || result.version < 1) return `version ${String(result.version)} is not a positive integer`;
  if (typeof binding.version === 'number' && result.version !== binding.version) {
    return `revision ${binding.version} was requested but ${result.version} was returned`;
  }
  if (typeof result.manifest_hash !== 'string' || !HASH.test(result.manifest_hash)) return 'manifest_hash is not a sha256 identity';
  const m = result.metadata as Partial<typeof result.metadata> | undefined;
  if (!m || m.namespace !== binding.namespace || m.name !== binding.name) return 'metadata names a different skill';
  if (typeof m.display_name !== 'string' || typeof m.description !== 'string' || !isStringArray(m.domains) || !isStringArray(m.tags)) {
    return 'metadata is incomplete';
  }
  return undefined;
}

const KNOWN_STATUSES = new Set<unknown>(['found', 'not_found', 'version_unavailable', 'invalid']);

/** Turns a consistent `found` result into a candidate, applying domain compatibility (guide 9.3). */
function admitFound(
  binding: SkillBinding,
  id: string,
  result: Extract<CandidateResult, { status: 'found' }>,
  mode: DomainCompatibilityMode,
  domain: string,
  diagnostics: SelectorDiagnostic[],
): { record: PinningRecord; candidate?: PinnedCandidate; failure?: SelectorDiagnostic } {
  const m = result.metadata;
  const record: PinningRecord = {
    skill: id,
    requested: binding.version,
    activation: binding.activation,
    required: binding.required,
    status: 'pinned',
    version: result.version,
    manifest_hash: result.manifest_hash,
  };
  if (mode !== 'off' && domain !== '' && m.domains.length > 0 && !m.domains.includes(domain)) {
    const where = `${id} declares domains [${m.domains.join(', ')}], not the agent domain '${domain}'`;
    if (mode === 'enforce') {
      const d: SelectorDiagnostic = {
        code: 'skill_domain_mismatch',
        skill: id,
        action: binding.required ? 'request_failed' : 'omitted',
        message: `${where}; ${binding.required ? 'required binding fails' : 'omitted'} (enforce mode)`,
      };
      diagnostics.push(d);
      record.status = 'domain_omitted';
      return binding.required ? { record, failure: d } : { record };
    }
    diagnostics.push({ code: 'skill_domain_mismatch', skill: id, action: 'allowed', message: `${where}; kept (warn mode)` });
  }
  const candidate: PinnedCandidate = {
    id,
    namespace: binding.namespace,
    name: binding.name,
    activation: binding.activation,
    required: binding.required,
    requested: binding.version,
    version: result.version,
    manifest_hash: result.manifest_hash,
    display_name: m.display_name,
    description: m.description,
    // A frozen list cannot change under the candidate: shared, it also lets the catalog line be rendered once (render.ts).
    domains: Object.isFrozen(m.domains) ? m.domains : m.domains.slice(),
    tags: Object.isFrozen(m.tags) ? m.tags : m.tags.slice(),
  };
  return { record, candidate };
}

/**
 * Resolves `bindings` with one `resolveCandidates` call. A registry failure or
 * timeout makes every binding unavailable (`skill_registry_unavailable`); an
 * absent result is `skill_candidate_result_missing`; a result that contradicts
 * its request is `skill_candidate_result_invalid`. A required binding that ends
 * up unavailable adds `skill_required_candidate_unavailable` and fails the
 * request; optional ones are left out, visible in `records`.
 */
export async function pinCandidates(input: PinningInput): Promise<PinningResult> {
  const { bindings } = input;
  const records: PinningRecord[] = [];
  const candidates: PinnedCandidate[] = [];
  const diagnostics: SelectorDiagnostic[] = [];
  let failure: SelectorDiagnostic | undefined;
  if (bindings.length === 0) return { candidates, records, diagnostics };

  const requests: CandidateRequest[] = bindings.map((b) => ({ namespace: b.namespace, name: b.name, version: b.version }));
  let results: unknown;
  let registryError: string | undefined;
  try {
    throwIfAborted(input.signal);
    const timeout = input.registryReadTimeoutMs ?? DEFAULT_SELECTOR_LIMITS.registryReadTimeoutMs;
    results = await bounded('resolveCandidates', timeout, () => input.registry.resolveCandidates(requests));
  } catch (error) {
    throwIfAborted(input.signal);
    registryError = describeError(error);
    diagnostics.push({
      code: 'skill_registry_unavailable',
      action: bindings.some((b) => b.required) ? 'request_failed' : 'omitted',
      message: `candidate resolution failed: ${registryError}`,
    });
  }
  if (registryError === undefined && !Array.isArray(results)) {
    diagnostics.push({ code: 'skill_candidate_result_invalid', action: 'omitted', message: 'the registry did not return a list of candidate results' });
    results = [];
  }
  const list = (results ?? []) as unknown[];

  const mode = input.domainMode ?? 'warn';
  const domain = input.domain?.trim().toLowerCase() ?? '';
  for (let index = 0; index < bindings.length; index++) {
    const binding = bindings[index]!;
    const id = `${binding.namespace}/${binding.name}`;
    let status: PinningRecord['status'];
    let why: string | undefined;
    if (registryError !== undefined) {
      status = 'registry_unavailable';
      why = 'the registry is unavailable';
    } else {
      const raw = list[index];
      if (raw === undefined || raw === null || typeof raw !== 'object') {
        status = 'missing';
        why = 'no candidate result';
        diagnostics.push({
          code: 'skill_candidate_result_missing',
          skill: id,
          action: binding.required ? 'request_failed' : 'omitted',
          message: `the registry returned no result for ${id}`,
        });
      } else {
        const result = raw as CandidateResult;
        const problem = KNOWN_STATUSES.has(result.status) ? inconsistency(binding, result) : `unknown status ${JSON.stringify(result.status)}`;
        if (problem !== undefined) {
          status = 'invalid';
          why = problem;
          diagnostics.push({
            code: 'skill_candidate_result_invalid',
            skill: id,
            action: binding.required ? 'request_failed' : 'omitted',
            message: `candidate result for ${id} is inconsistent: ${problem}`,
          });
        } else if (result.status !== 'found') {
          status = result.status;
          why = result.status === 'invalid' ? `the registry rejected the request (${result.reason})` : result.status.replace('_', ' ');
        } else {
          const outcome = admitFound(binding, id, result, mode, domain, diagnostics);
          records.push(outcome.record);
          if (outcome.candidate) candidates.push(outcome.candidate);
          if (outcome.failure) failure ??= outcome.failure;
          continue;
        }
      }
    }
    records.push({ skill: id, requested: binding.version, activation: binding.activation, required: binding.required, status });
    if (binding.required) {
      const d: SelectorDiagnostic = {
        code: 'skill_required_candidate_unavailable',
        skill: id,
        action: 'request_failed',
        message: `required skill ${id} is unavailable: ${why}`,
      };
      diagnostics.push(d);
      failure ??= d;
    }
  }
  return failure ? { candidates, records, diagnostics, failure } : { candidates, records, diagnostics };
}
