/**
 * Planning an evaluation: from what the user named (targets) to the skills,
 * cases, variants and pinned catalogs the runner executes.
 *
 * - A draft target is validated and served by an overlay in place of its
 *   stored revision; a stored target is the published revision in the store.
 * - Each skill's cases are its activation examples plus its extra cases.
 * - With `comparePublished`, a draft is also run as its published revision,
 *   in a catalog where the other drafts still stand in for theirs.
 *
 * Nothing here prints: invalid inputs come back as problems with located
 * findings, doubts about a catalog as warnings, and a request that cannot be
 * planned at all as a thrown `WorkbenchError` with a store-taxonomy code.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { WorkbenchError } from '../core/errors';
import { skillKey, type Finding, type SkillId, type SkillPackage } from '../core/package/types';
import { formatBindingIssue, parseBindings, type BindingIssue } from '../core/selector/bindings';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../core/selector/limits';
import type { SkillBinding } from '../core/selector/types';
import { isStoreError } from '../core/store/errors';
import type { SkillRegistryReader, SkillRevisionReader, StoredRevision } from '../core/store/types';
import { PACKAGE_FILE_MAX_BYTES, SIDE_FILE_MAX_BYTES, readFileBounded, readTextBounded } from '../core/workspace/read';
import type { Target } from '../core/workspace/targets';
import { withAdjacentNegatives } from './adjacentNegatives';
import { buildCatalog, createDraftOverlay, prepareDraft, type PreparedDraft } from './catalog';
import type { EvalSkillPlan, EvalVariantPlan } from './runner';
import { buildSuite, parseExtraCases, type EvalCase } from './suite';

export type { DraftTarget, StoredTarget, Target } from '../core/workspace/targets';
export { resolveTargets } from '../core/workspace/targets';

/** The store a plan reads: the catalog, and the revisions of the skills under test. */
export type PlanStore = SkillRegistryReader & SkillRevisionReader;

/** Why a skill cannot be evaluated as given. */
export interface PlanProblem {
  /**
   * `invalid_package`: the draft does not validate; `invalid_cases`: its
   * extra-cases file has errors; `no_cases`: nothing to evaluate.
   */
  kind: 'invalid_package' | 'invalid_cases' | 'no_cases';
  /** `namespace/name` of the skill. */
  skill: string;
  /** The file at fault, relative to the working directory (absent for `no_cases`). */
  file?: string;
  message: string;
  /** The errors, with JSON Pointer, line and column. */
  findings: Finding[];
}

/** Something the user should know before trusting the run, that does not stop it. */
export interface PlanWarning {
  /**
   * `catalog`: a binding could not be pinned or does not measure the skill;
   * `no_published_revision`: nothing to compare a draft with;
   * `pinned_revision`: the bindings pin the skill under test to a revision
   * other than the published one, and its stored variant runs that revision.
   */
  code: 'catalog' | 'no_published_revision' | 'pinned_revision';
  skill: string;
  /** The variant whose catalog it concerns. */
  variant?: string;
  message: string;
}

/** A plan: ready to run, or the problems that prevent it. */
export type PlanResult = { ok: true; skills: EvalSkillPlan[]; warnings: PlanWarning[] } | { ok: false; problems: PlanProblem[] };

/** Options of {@link planEval}. */
export interface PlanOptions {
  /** The store holding the catalog and the published revisions. */
  store: PlanStore;
  /** Base of the relative file names in problems. */
  cwd: string;
  /** The agent's binding list; absent means every skill of the skill's namespace, bound auto. */
  bindings?: readonly SkillBinding[];
  /** Where `bindings` came from, as given (recorded with each catalog). */
  bindingsFile?: string;
  /** Also run each draft's published revision. */
  comparePublished: boolean;
  /** Secret-free name of the store, recorded with each catalog. */
  source: string;
  /** Selector limits the catalogs are measured against (default: guide 9.10). */
  limits?: SelectorLimits;
  /**
   * Run each skill's should-activate examples as should-not cases of the other
   * skills under test in its catalog (evals/adjacentNegatives.ts); default true.
   */
  adjacentNegatives?: boolean;
}

/**
 * Reads the published revision of `id`, or undefined when the skill has none.
 * Any other store failure is thrown.
 */
export async function getPublished(store: Pick<SkillRevisionReader, 'getPublished'>, id: SkillId): Promise<StoredRevision | undefined> {
  try {
    return await store.getPublished(id);
  } catch (error) {
    if (isStoreError(error, 'not_found')) return undefined;
    throw error;
  }
}

/**
 * Reads an agent's binding list (`TRUVAG3_SKILL_BINDINGS_JSON`) from a file,
 * relative to `cwd`. Throws `invalid_request` when the file cannot be read
 * (`details.reason: 'unreadable'`) or the list is invalid (`details.issues`).
 */
export async function readBindingsFile(file: string, options: { cwd: string; maxBindings?: number }): Promise<SkillBinding[]> {
  let text: string;
  try {
    text = await readTextBounded(resolve(options.cwd, file), SIDE_FILE_MAX_BYTES, file);
  } catch (error) {
    const message = error instanceof WorkbenchError && error.code === 'not_found' ? `cannot read ${file}: no such file` : (error as Error).message;
    throw new WorkbenchError('invalid_request', message, { cause: error, details: { file, reason: 'unreadable' } });
  }
  const result = parseBindings(text, { maxBindings: options.maxBindings ?? DEFAULT_SELECTOR_LIMITS.maxBindings });
  if (!result.ok) {
    const issues: BindingIssue[] = result.issues;
    throw new WorkbenchError('invalid_request', `invalid bindings:\n${issues.map((i) => `  ${file}: ${formatBindingIssue(i)}`).join('\n')}`, { details: { file, reason: 'invalid', issues } });
  }
  return result.bindings;
}

/**
 * Builds the skills, variants and catalogs of a run. Returns the problems
 * instead when a draft or an extra-cases file is invalid or a skill has no
 * case. Throws `invalid_request` when a draft file cannot be read, `not_found`
 * when a stored target or a skill under test is not in the store, and
 * `unavailable` when the store cannot answer.
 */
export async function planEval(targets: readonly Target[], options: PlanOptions): Promise<PlanResult> {
  const { store } = options;
  const problems: PlanProblem[] = [];
  const drafts: PreparedDraft[] = [];
  const packages = new Map<string, SkillPackage>();
  const stored = new Map<string, StoredRevision>();
  for (const t of targets) {
    const key = skillKey(t.id);
    if (t.kind === 'draft') {
      let bytes: Uint8Array;
      try {
        bytes = await readFileBounded(t.abs, PACKAGE_FILE_MAX_BYTES, t.file);
      } catch (error) {
        throw new WorkbenchError('invalid_request', (error as Error).message, { cause: error, details: { file: t.file } });
      }
      const prepared = await prepareDraft(t.id, bytes, { file: t.file });
      if (!prepared.ok) {
        problems.push({ kind: 'invalid_package', skill: key, file: t.file, message: `${t.file} is not a valid package`, findings: prepared.errors });
        continue;
      }
      drafts.push(prepared.draft);
      packages.set(key, prepared.draft.package);
    } else {
      const revision = await store.getPublished(t.id);
      stored.set(key, revision);
      packages.set(key, revision.package);
    }
  }
  const cases = new Map<string, EvalCase[]>();
  const extrasShown = new Map<string, string>();
  for (const t of targets) {
    const key = skillKey(t.id);
    const pkg = packages.get(key);
    if (!pkg) continue;
    let extras: EvalCase[] = [];
    if (t.extras) {
      // Relative when it lies under the working directory; a file elsewhere (the example workspace) by its whole path.
      const rel = relative(options.cwd, t.extras);
      const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? t.extras : rel;
      let text: string;
      try {
        text = await readTextBounded(t.extras, SIDE_FILE_MAX_BYTES, shown);
      } catch (error) {
        throw new WorkbenchError('invalid_request', (error as Error).message, { cause: error, details: { file: shown } });
      }
      const parsed = parseExtraCases(t.id, text, pkg);
      const errors = parsed.findings.filter((f) => f.severity === 'error');
      if (errors.length > 0) {
        problems.push({ kind: 'invalid_cases', skill: key, file: shown, message: `${shown} has invalid cases`, findings: errors });
        continue;
      }
      extras = parsed.cases;
      extrasShown.set(key, shown);
    }
    const suite = buildSuite(t.id, pkg, extras);
    if (suite.cases.length === 0) {
      problems.push({ kind: 'no_cases', skill: key, message: `${key} has no activation examples and no extra cases to evaluate`, findings: [] });
      continue;
    }
    cases.set(key, suite.cases);
  }
  if (problems.length > 0) return { ok: false, problems };

  const warnings: PlanWarning[] = [];
  const overlay = await createDraftOverlay(store, drafts, { revisions: store });
  const draftKeys = new Set(drafts.map((d) => skillKey(d.id)));
  const skills: EvalSkillPlan[] = [];
  for (const t of targets) {
    const key = skillKey(t.id);
    const variants: EvalVariantPlan[] = [];
    /**
     * Builds the catalog of one variant. A stored variant is recorded as the
     * revision its catalog pinned, which is the one every cell runs against:
     * the bindings may pin an exact revision other than the published one.
     */
    const add = async (label: string, registry: SkillRegistryReader, draftSet: Set<string>, draft?: { manifest_hash: string; file: string }, published?: number) => {
      const catalog = await buildCatalog({
        registry,
        skill: t.id,
        ...(options.bindings && { bindings: options.bindings }),
        drafts: draftSet,
        source: options.source,
        ...(options.bindingsFile !== undefined && { bindingsFile: options.bindingsFile }),
        ...(options.limits && { limits: options.limits }),
      });
      for (const w of catalog.warnings) warnings.push({ code: 'catalog', skill: key, variant: label, message: `catalog of ${key} (${label}): ${w}` });
      const own = catalog.record.entries.find((e) => e.under_test)!;
      const info: EvalVariantPlan['info'] = draft
        ? { label, skill: key, version: 'draft', manifest_hash: draft.manifest_hash, file: draft.file }
        : { label, skill: key, version: own.version, manifest_hash: own.manifest_hash };
      if (!draft && published !== undefined && own.version !== published) {
        warnings.push({
          code: 'pinned_revision',
          skill: key,
          variant: label,
          message: `the bindings pin ${key} to revision ${String(own.version)} while ${published} is published: the ${label} variant runs revision ${String(own.version)}, as the agent would`,
        });
      }
      variants.push({ info, registry: catalog.registry, bindings: catalog.bindings, catalog: catalog.record });
    };
    if (t.kind === 'draft') {
      const draft = drafts.find((d) => skillKey(d.id) === key)!;
      await add('draft', overlay, draftKeys, { manifest_hash: draft.manifest_hash, file: t.file });
      if (options.comparePublished) {
        const published = await getPublished(store, t.id);
        if (!published) {
          warnings.push({ code: 'no_published_revision', skill: key, message: `${key} has no published revision in ${options.source}: nothing to compare the draft with` });
        } else {
          const others = drafts.filter((d) => skillKey(d.id) !== key);
          const without = await createDraftOverlay(store, others, { versions: overlay.draftVersions });
          await add('published', without, new Set([...draftKeys].filter((k) => k !== key)), undefined, published.version);
        }
      }
    } else {
      await add('published', overlay, draftKeys, undefined, stored.get(key)!.version);
    }
    const extrasFile = extrasShown.get(key);
    skills.push({ skill: key, cases: cases.get(key)!, variants, ...(extrasFile !== undefined && { extras: extrasFile }) });
  }
  return { ok: true, skills: options.adjacentNegatives === false ? skills : withAdjacentNegatives(skills), warnings };
}
