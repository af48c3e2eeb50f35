/**
 * The description optimizer: rewrites a skill's catalog description against
 * the agent's real competing catalog, on several models at once, and proposes
 * a change only when held-out cases prove it better.
 *
 * 1. The skill's cases (activation examples plus extra cases) are split into
 *    train and held-out sets, stratified by should / should-not activate,
 *    with a recorded seed ({@link splitCases}).
 * 2. The original description is scored on the train cases; each round the
 *    proposer sees the current description, the train failures with their
 *    traces and the catalog-budget headroom (never a held-out case), and
 *    proposes candidates. A candidate that fails validation, repeats an
 *    earlier description or pushes the catalog over its token budget is
 *    dropped with the reason; the others are evaluated on the train cases,
 *    against the controlled catalog, on every model, by the eval runner (its
 *    cache and resumable run folders included). The best by mean train
 *    accuracy across models goes forward when it beats the current one.
 * 3. The winner is scored once on the held-out cases beside the original and
 *    compared with it case by case (McNemar, one pair per case, as `eval`).
 *    The verdict is `proven_gain` only when the winner is not worse on any
 *    model and better on at least one with the test saying so (p < alpha);
 *    otherwise `no_proven_gain`, and nothing is proposed.
 *
 * Nothing is published and no file is written except the run folders.
 */
import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { WorkbenchError } from '../core/errors';
import type { ModelClient } from '../core/models/types';
import type { JsonPatchOperation } from '../core/package/jsonPatch';
import { estimateTokens } from '../core/package/tokens';
import { skillKey, type SkillId, type SkillPackage } from '../core/package/types';
import { DEFAULT_AUTHORING_LIMITS } from '../core/package/limits';
import { activationEntry } from '../core/selector/render';
import { safeJson } from '../core/selector/util';
import type { SkillBinding } from '../core/selector/types';
import { readFileBounded } from '../core/workspace/read';
import type { AnswerCache } from './cache';
import { buildCatalog, createDraftOverlay, nextVersion, prepareDraft, type PreparedDraft } from './catalog';
import type { Expectation } from './metrics';
import { planEval, type DraftTarget, type PlanProblem, type PlanStore } from './plan';
import type { CatalogLine, DescriptionProposer, ProposerInput, TrainCase, TrainFailure } from './proposers';
import { readCells } from './reports/cells';
import { runEval, type EvalVariantPlan, type RunProgress } from './runner';
import type { EvalCase } from './suite';
import type { CellRecord, ModelInfo, PairedComparison } from './types';

/** Defaults of {@link optimizeDescription}. */
export const OPTIMIZE_DEFAULTS = Object.freeze({ rounds: 3, holdout: 0.4, repeats: 1, candidatesPerRound: 3, alpha: 0.05 });

/** The label of the original description's variant in every run. */
const ORIGINAL = 'original';
/** The label of the winner in the held-out run (the runner compares `draft` against the other variants). */
const WINNER = 'draft';
const MAX_FAILURE_ANSWER_CHARS = 500;

// ---------------------------------------------------------------------------
// Split

/** A case as the split records it. */
export interface SplitCase {
  id: string;
  request: string;
  expect: Expectation;
  source: EvalCase['source'];
}

/** The train / held-out split of a skill's cases. */
export interface CaseSplit {
  seed: number;
  /** Share of each stratum held out (as asked). */
  holdout: number;
  train: SplitCase[];
  heldout: SplitCase[];
}

/** mulberry32: a small, well-mixed 32-bit generator; the same seed gives the same split everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Splits cases into train and held-out sets, stratified by expectation:
 * each stratum is ordered by case id (content-derived, so reordering the
 * examples changes nothing), shuffled with the seed, and its first
 * `round(n · holdout)` cases are held out, keeping at least one case on each
 * side of a stratum of two or more. The same cases and seed give the same
 * split. Throws `invalid_request` when nothing can be held out.
 */
export function splitCases(cases: readonly EvalCase[], holdout: number, seed: number): CaseSplit {
  if (!(holdout > 0 && holdout < 1)) throw new WorkbenchError('invalid_request', `the held-out share must be between 0 and 1 (exclusive), got ${holdout}`);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) throw new WorkbenchError('invalid_request', `the seed must be an integer from 0 to 4294967295, got ${seed}`);
  const next = random(seed);
  const split: CaseSplit = { seed, holdout, train: [], heldout: [] };
  for (const expect of ['activate', 'not_activate'] as const) {
    const stratum = cases.filter((c) => c.expect === expect).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (let i = stratum.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [stratum[i], stratum[j]] = [stratum[j]!, stratum[i]!];
    }
    const n = stratum.length;
    const held = n < 2 ? 0 : Math.min(n - 1, Math.max(1, Math.round(n * holdout)));
    const view = (c: EvalCase): SplitCase => ({ id: c.id, request: c.request, expect: c.expect, source: c.source });
    split.heldout.push(...stratum.slice(0, held).map(view));
    split.train.push(...stratum.slice(held).map(view));
  }
  if (split.heldout.length === 0) {
    throw new WorkbenchError('invalid_request', `${cases.length} case${cases.length === 1 ? '' : 's'} cannot be split: hold-out needs at least two cases of one kind (should or should-not activate); add activation examples or extra cases`);
  }
  return split;
}

// ---------------------------------------------------------------------------
// Report

/** A description's score on one model. */
export interface ModelScore {
  model: string;
  /** Share of answered cells that were right; null when no cell was answered. */
  accuracy: number | null;
  correct: number;
  answered: number;
  errors: number;
}

/** Why a candidate was not evaluated. */
export type CandidateDrop = 'validation_failed' | 'over_budget' | 'duplicate' | 'too_many';

/** One proposed description and what became of it. */
export interface CandidateReport {
  /** `r<round>c<n>`. */
  id: string;
  round: number;
  description: string;
  rationale: string;
  status: 'evaluated' | 'dropped';
  reason?: CandidateDrop;
  /** Why it was dropped, for a person. */
  message?: string;
  /** Estimated tokens of the whole activation catalog with this description (absent when it did not validate). */
  catalog_tokens?: number;
  /** Estimated tokens of this skill's own catalog line. */
  line_tokens: number;
  train?: ModelScore[];
  /** Mean train accuracy across models; null when a model answered no train cell. */
  mean_train?: number | null;
  /** Warnings of the package with this description (quality advice, not blocking). */
  warnings?: string[];
}

/** What a round did. */
export interface RoundReport {
  round: number;
  /** The description the round started from (`original` or a candidate id). */
  from: string;
  proposed: number;
  evaluated: number;
  /** The best evaluated candidate of the round, and whether it went forward. */
  best: string | null;
  advanced: boolean;
  notes: string[];
}

/** The held-out comparison on one model: winner (`a`) against the original (`b`). */
export interface HeldoutModel {
  model: string;
  winner: ModelScore;
  original: ModelScore;
  /** The per-case comparison, exactly as `eval` reports it. */
  comparison: PairedComparison;
  /** Right on more disagreeing cases than the original, and significant. */
  better: boolean;
  /** The original was right on more disagreeing cases. */
  worse: boolean;
}

/** The proposed description and how to apply it. */
export interface Winner {
  candidate: string;
  description: string;
  /** RFC 6902 patch for the package file: a `test` of the current description, then a `replace`. */
  patch: JsonPatchOperation[];
  catalog_tokens: number;
}

/** Where a run's cells are kept. */
export interface RunRef {
  phase: 'train' | 'heldout';
  round: number;
  /** Run folder, relative to the working directory. */
  run_dir: string;
  config_hash: string;
}

/** The optimizer's report (`--json` writes it whole). */
export interface OptimizeReport {
  format: 'skillbench.optimize/v1';
  skill: string;
  file: string;
  seed: number;
  verdict: 'proven_gain' | 'no_proven_gain';
  /** One sentence explaining the verdict. */
  reason: string;
  /** The proposed description, only with `proven_gain`. */
  winner: Winner | null;
  /** The best description by train score, whatever the verdict (null when none beat the original). */
  best: { candidate: string; description: string; mean_train: number | null } | null;
  models: ModelInfo[];
  proposer: { spec: string; isBaseline: boolean };
  repeats: number;
  alpha: number;
  split: CaseSplit;
  catalog: { budget: number; source: string; competitors: string[] };
  /** Doubts about the catalog (a binding that could not be pinned, ...). */
  warnings: string[];
  original: { description: string; catalog_tokens: number; line_tokens: number; train: ModelScore[]; mean_train: number | null };
  candidates: CandidateReport[];
  rounds: RoundReport[];
  /** The held-out comparison of the best candidate, when one beat the original on train. */
  heldout: HeldoutModel[] | null;
  runs: RunRef[];
}

// ---------------------------------------------------------------------------
// Options and progress

/** What the optimizer is doing, for a progress display. */
export type OptimizeEvent =
  | { type: 'split'; split: CaseSplit }
  | { type: 'run_started'; phase: 'train' | 'heldout'; round: number; variants: string[]; cells: number; resumed: number }
  | { type: 'cell'; phase: 'train' | 'heldout'; round: number; progress: RunProgress }
  | { type: 'proposed'; round: number; candidates: CandidateReport[] }
  | { type: 'round_finished'; round: RoundReport }
  | { type: 'finished'; verdict: OptimizeReport['verdict']; reason: string };

/** Options of {@link optimizeDescription}. */
export interface OptimizeOptions {
  /** The package file whose description is optimized. */
  target: DraftTarget;
  /** Store holding the competing catalog. */
  store: PlanStore;
  cwd: string;
  /** Secret-free name of the store. */
  source: string;
  bindings?: readonly SkillBinding[];
  bindingsFile?: string;
  /** Evaluated models (the caller opens and closes them). */
  models: ModelClient[];
  proposer: DescriptionProposer;
  seed: number;
  rounds?: number;
  holdout?: number;
  repeats?: number;
  candidatesPerRound?: number;
  alpha?: number;
  concurrency?: number;
  cache?: AnswerCache;
  /** Aborts the runs in flight; recorded cells are kept, so the same call resumes. */
  signal?: AbortSignal;
  /** Removes secrets from every cell the runs record (core/redact.ts). */
  redact?: (text: string) => string;
  onEvent?: (event: OptimizeEvent) => void;
}

/** Result of {@link optimizeDescription}: the report, or why the skill cannot be optimized as given. */
export type OptimizeResult = { ok: true; report: OptimizeReport } | { ok: false; problems: PlanProblem[] };

// ---------------------------------------------------------------------------
// The loop

interface Scored {
  scores: ModelScore[];
  mean: number | null;
  /** Per train case, each model's outcome. */
  train: TrainCase[];
  failures: TrainFailure[];
}

const lineTokens = (id: SkillId, pkg: SkillPackage) =>
  estimateTokens(safeJson(activationEntry({ id: skillKey(id), namespace: id.namespace, name: id.name, activation: 'auto', required: false, requested: 'published', version: 0, manifest_hash: '', display_name: pkg.display_name, description: pkg.description, domains: pkg.domains, tags: pkg.tags })));

function mean(scores: readonly ModelScore[]): number | null {
  if (scores.length === 0 || scores.some((s) => s.accuracy === null)) return null;
  return scores.reduce((sum, s) => sum + s.accuracy!, 0) / scores.length;
}

function cellRight(cell: CellRecord): boolean | null {
  if (cell.outcome === 'error') return null;
  return (cell.outcome === 'activated') === (cell.expect === 'activate');
}

/**
 * Runs the optimizer (see the module comment). Throws `invalid_request` for
 * settings it cannot honour or cases it cannot split, `unavailable` when a
 * model answers no train cell of the original, and `cancelled` when
 * `signal` aborts (the recorded cells stay: the same call resumes).
 */
export async function optimizeDescription(options: OptimizeOptions): Promise<OptimizeResult> {
  const rounds = options.rounds ?? OPTIMIZE_DEFAULTS.rounds;
  const holdout = options.holdout ?? OPTIMIZE_DEFAULTS.holdout;
  const repeats = options.repeats ?? OPTIMIZE_DEFAULTS.repeats;
  const perRound = options.candidatesPerRound ?? OPTIMIZE_DEFAULTS.candidatesPerRound;
  const alpha = options.alpha ?? OPTIMIZE_DEFAULTS.alpha;
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new WorkbenchError('invalid_request', `rounds must be a positive integer, got ${rounds}`);
  if (!Number.isSafeInteger(perRound) || perRound < 1) throw new WorkbenchError('invalid_request', `candidates per round must be a positive integer, got ${perRound}`);
  const emit = (event: OptimizeEvent) => options.onEvent?.(event);
  const { target, store } = options;
  const id = target.id;
  const key = skillKey(id);

  const planned = await planEval([target], {
    store,
    cwd: options.cwd,
    comparePublished: false,
    source: options.source,
    ...(options.bindings && { bindings: options.bindings }),
    ...(options.bindingsFile !== undefined && { bindingsFile: options.bindingsFile }),
  });
  if (!planned.ok) return { ok: false, problems: planned.problems };
  const skillPlan = planned.skills[0]!;
  const planVariant = skillPlan.variants[0]!;
  const originalVariant: EvalVariantPlan = { ...planVariant, info: { ...planVariant.info, label: ORIGINAL } };
  const budget = originalVariant.catalog.budget;

  const draftPackage = await readDraft(options);
  const original = draftPackage.draft.package;

  const split = splitCases(skillPlan.cases, holdout, options.seed);
  emit({ type: 'split', split });
  const byId = new Map(skillPlan.cases.map((c) => [c.id, c]));
  const trainCases = split.train.map((c) => byId.get(c.id)!);
  const heldoutCases = split.heldout.map((c) => byId.get(c.id)!);

  const competitors = await competingLines(originalVariant, key);
  const runs: RunRef[] = [];

  const evaluate = async (phase: 'train' | 'heldout', round: number, variants: EvalVariantPlan[], cases: EvalCase[]) => {
    const result = await runEval(
      {
        models: options.models,
        skills: [{ skill: key, cases, variants }],
        repeats,
        cwd: options.cwd,
        ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
        ...(options.cache && { cache: options.cache }),
        ...(options.signal && { signal: options.signal }),
        ...(options.redact && { redact: options.redact }),
      },
      {
        onStart: ({ header, progress }) => emit({ type: 'run_started', phase, round, variants: header.variants.map((v) => v.label), cells: progress.total, resumed: progress.resumed }),
        onCell: (_cell, progress) => emit({ type: 'cell', phase, round, progress }),
      },
    );
    if (!result.complete) throw new WorkbenchError('cancelled', 'the optimizer was interrupted; run the same command again to resume it');
    runs.push({ phase, round, run_dir: relative(options.cwd, result.runDir) || '.', config_hash: result.header.config_hash });
    return result;
  };

  /** Scores every variant of a train run, with the outcomes and failures a proposer is shown. */
  const scoreTrain = async (round: number, variants: EvalVariantPlan[]): Promise<Map<string, Scored>> => {
    const result = await evaluate('train', round, variants, trainCases);
    const out = new Map<string, Scored>();
    for (const v of variants) {
      const scores = result.summary.models.map((m): ModelScore => {
        const s = m.skills.find((x) => x.variant === v.info.label)!;
        const answered = s.tp + s.fp + s.tn + s.fn;
        return { model: m.model, accuracy: answered === 0 ? null : (s.tp + s.tn) / answered, correct: s.tp + s.tn, answered, errors: s.errors };
      });
      out.set(v.info.label, { scores, mean: mean(scores), train: [], failures: [] });
    }
    const tallies = new Map<string, Map<string, { activated: number; answered: number; errors: number }>>();
    for await (const cell of readCells(result.cellsFile)) {
      const scored = out.get(cell.variant);
      const c = byId.get(cell.case);
      if (!scored || !c) continue;
      const perCase = tallies.get(`${cell.variant}|${cell.case}`) ?? new Map();
      tallies.set(`${cell.variant}|${cell.case}`, perCase);
      const t = perCase.get(cell.model) ?? { activated: 0, answered: 0, errors: 0 };
      perCase.set(cell.model, t);
      const right = cellRight(cell);
      if (right === null) {
        t.errors++;
        continue;
      }
      t.answered++;
      if (cell.outcome === 'activated') t.activated++;
      if (!right) {
        const call = cell.trace.calls.find((x) => x.kind === 'activation');
        scored.failures.push({
          case: c.id,
          request: c.request,
          expect: c.expect,
          model: cell.model,
          repeat: cell.repeat,
          activated_instead: cell.activated.filter((s) => s !== key),
          answer: call?.raw === undefined || call.raw === null ? null : call.raw.slice(0, MAX_FAILURE_ANSWER_CHARS),
        });
      }
    }
    for (const [label, scored] of out) {
      scored.train = trainCases.map((c) => ({
        id: c.id,
        request: c.request,
        expect: c.expect,
        outcomes: options.models.map((m) => ({ model: m.spec, ...(tallies.get(`${label}|${c.id}`)?.get(m.spec) ?? { activated: 0, answered: 0, errors: 0 }) })),
      }));
      scored.failures.sort((a, b) => (a.case < b.case ? -1 : a.case > b.case ? 1 : 0) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) || a.repeat - b.repeat);
    }
    return out;
  };

  const originalScore = (await scoreTrain(0, [originalVariant])).get(ORIGINAL)!;
  const unavailable = originalScore.scores.filter((s) => s.answered === 0);
  if (unavailable.length > 0) {
    throw new WorkbenchError('unavailable', `model unavailable: ${unavailable.map((s) => s.model).join(', ')} answered none of the ${trainCases.length * repeats} train cells of the original description`);
  }

  const versions = new Map([[key, await nextVersion(id, store, store)]]);
  const candidates: CandidateReport[] = [];
  const variantsById = new Map<string, EvalVariantPlan>([[ORIGINAL, originalVariant]]);
  const seen = new Set([original.description]);
  const roundReports: RoundReport[] = [];
  let current = { id: ORIGINAL, description: original.description, scored: originalScore, catalogTokens: originalVariant.catalog.tokens };
  const scoredById = new Map<string, Scored>([[ORIGINAL, originalScore]]);
  const catalogTokensById = new Map<string, number>([[ORIGINAL, originalVariant.catalog.tokens]]);

  for (let round = 1; round <= rounds; round++) {
    const notes: string[] = [];
    const input: ProposerInput = {
      skill: key,
      round,
      current: { skill: key, display_name: original.display_name, description: current.description, domains: original.domains, tags: original.tags },
      competitors,
      train: current.scored.train,
      failures: current.scored.failures,
      headroom: { catalog_tokens: budget - current.catalogTokens, catalog_budget: budget, description_chars: DEFAULT_AUTHORING_LIMITS.maxDescriptionChars - current.description.length },
      maxCandidates: perRound,
    };
    let proposed;
    try {
      proposed = await options.proposer.propose(input, options.signal);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'answer_malformed') throw error;
      notes.push((error as Error).message);
      proposed = { candidates: [] };
    }
    notes.push(...(proposed.notes ?? []));
    const fresh: CandidateReport[] = [];
    const toRun: EvalVariantPlan[] = [];
    for (const [i, p] of proposed.candidates.entries()) {
      const candidate: CandidateReport = { id: `r${round}c${i + 1}`, round, description: p.description, rationale: p.rationale, status: 'dropped', line_tokens: 0 };
      fresh.push(candidate);
      const pkg: SkillPackage = { ...original, description: p.description };
      candidate.line_tokens = lineTokens(id, pkg);
      if (i >= perRound) {
        Object.assign(candidate, { reason: 'too_many', message: `only ${perRound} candidates per round are evaluated` });
        continue;
      }
      const prepared = await prepareDraft(id, JSON.stringify(pkg));
      if (!prepared.ok) {
        Object.assign(candidate, { reason: 'validation_failed', message: prepared.errors.map((f) => `${f.path || '(document)'}: ${f.message}`).join('; ') });
        continue;
      }
      candidate.description = prepared.draft.package.description;
      candidate.line_tokens = lineTokens(id, prepared.draft.package);
      if (prepared.warnings.length > 0) candidate.warnings = prepared.warnings.map((w) => `${w.code}: ${w.message}`);
      if (seen.has(candidate.description)) {
        Object.assign(candidate, { reason: 'duplicate', message: 'the same description was already evaluated' });
        continue;
      }
      seen.add(candidate.description);
      const variant = await candidateVariant(options, prepared.draft, candidate.id, versions);
      candidate.catalog_tokens = variant.catalog.tokens;
      if (variant.catalog.tokens > budget) {
        Object.assign(candidate, { reason: 'over_budget', message: `the catalog would be ${variant.catalog.tokens} estimated tokens, above its budget of ${budget}: the selector would skip automatic activation` });
        continue;
      }
      candidate.status = 'evaluated';
      variantsById.set(candidate.id, variant);
      catalogTokensById.set(candidate.id, variant.catalog.tokens);
      toRun.push(variant);
    }
    candidates.push(...fresh);
    emit({ type: 'proposed', round, candidates: fresh });

    let best: { id: string; scored: Scored } | undefined;
    if (toRun.length > 0) {
      const scored = await scoreTrain(round, toRun);
      for (const candidate of fresh.filter((c) => c.status === 'evaluated')) {
        const s = scored.get(candidate.id)!;
        scoredById.set(candidate.id, s);
        candidate.train = s.scores;
        candidate.mean_train = s.mean;
        // Strictly better only; a tie keeps the earlier candidate (and fewer catalog tokens first).
        if (s.mean !== null && (best === undefined || s.mean > best.scored.mean! || (s.mean === best.scored.mean && candidate.catalog_tokens! < catalogTokensById.get(best.id)!))) {
          best = { id: candidate.id, scored: s };
        }
      }
    } else notes.push('no candidate to evaluate');
    const advanced = best !== undefined && current.scored.mean !== null && best.scored.mean! > current.scored.mean;
    const report: RoundReport = { round, from: current.id, proposed: proposed.candidates.length, evaluated: toRun.length, best: best?.id ?? null, advanced, notes };
    roundReports.push(report);
    emit({ type: 'round_finished', round: report });
    if (advanced) {
      const c = candidates.find((x) => x.id === best!.id)!;
      current = { id: c.id, description: c.description, scored: best!.scored, catalogTokens: c.catalog_tokens! };
    }
    if (proposed.candidates.length === 0) break;
  }

  const base: Omit<OptimizeReport, 'verdict' | 'reason' | 'winner' | 'best' | 'heldout'> = {
    format: 'skillbench.optimize/v1',
    skill: key,
    file: target.file,
    seed: options.seed,
    models: options.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline })),
    proposer: { spec: options.proposer.spec, isBaseline: options.proposer.isBaseline },
    repeats,
    alpha,
    split,
    catalog: { budget, source: options.source, competitors: competitors.map((c) => c.skill) },
    warnings: planned.warnings.map((w) => w.message),
    original: { description: original.description, catalog_tokens: originalVariant.catalog.tokens, line_tokens: lineTokens(id, original), train: originalScore.scores, mean_train: originalScore.mean },
    candidates,
    rounds: roundReports,
    runs,
  };
  if (current.id === ORIGINAL) {
    const reason = candidates.some((c) => c.status === 'evaluated')
      ? 'no proven gain: no candidate scored higher than the original on the train cases, so nothing was tried on the held-out cases'
      : 'no proven gain: no candidate could be evaluated (see the reasons each was dropped)';
    emit({ type: 'finished', verdict: 'no_proven_gain', reason });
    return { ok: true, report: { ...base, verdict: 'no_proven_gain', reason, winner: null, best: null, heldout: null } };
  }

  // The held-out cases, scored once: the winner beside the original, compared case by case.
  const winnerVariant = variantsById.get(current.id)!;
  const heldoutRun = await evaluate('heldout', rounds + 1, [{ ...winnerVariant, info: { ...winnerVariant.info, label: WINNER } }, originalVariant], heldoutCases);
  const heldout: HeldoutModel[] = heldoutRun.summary.models.map((m) => {
    const score = (label: string): ModelScore => {
      const s = m.skills.find((x) => x.variant === label)!;
      const answered = s.tp + s.fp + s.tn + s.fn;
      return { model: m.model, accuracy: answered === 0 ? null : (s.tp + s.tn) / answered, correct: s.tp + s.tn, answered, errors: s.errors };
    };
    const comparison = heldoutRun.summary.comparisons.find((c) => c.kind === 'variant' && c.model === m.model && c.a === WINNER && c.b === ORIGINAL)!;
    const { aOnly, bOnly } = comparison.test;
    const test = { ...comparison.test, alpha, significant: comparison.test.pValue < alpha };
    return { model: m.model, winner: score(WINNER), original: score(ORIGINAL), comparison: { ...comparison, test }, better: aOnly > bOnly && test.significant, worse: bOnly > aOnly };
  });
  const verdict = judge(heldout, alpha);
  const best = { candidate: current.id, description: current.description, mean_train: current.scored.mean };
  const winner: Winner | null =
    verdict.verdict === 'proven_gain'
      ? {
          candidate: current.id,
          description: current.description,
          patch: [
            { op: 'test', path: '/description', value: draftPackage.sourceDescription ?? original.description },
            { op: 'replace', path: '/description', value: current.description },
          ],
          catalog_tokens: catalogTokensById.get(current.id)!,
        }
      : null;
  emit({ type: 'finished', verdict: verdict.verdict, reason: verdict.reason });
  return { ok: true, report: { ...base, verdict: verdict.verdict, reason: verdict.reason, winner, best, heldout } };
}

/**
 * The held-out verdict: `proven_gain` only when no model is worse (the
 * original right on more disagreeing cases), every model answered paired
 * cases, and at least one model is better with p < alpha.
 */
export function judge(heldout: readonly HeldoutModel[], alpha: number): { verdict: OptimizeReport['verdict']; reason: string } {
  const unpaired = heldout.filter((h) => h.comparison.pairs === 0);
  if (unpaired.length > 0) return { verdict: 'no_proven_gain', reason: `no proven gain: ${unpaired.map((h) => h.model).join(', ')} decided no held-out case on both sides, so nothing can be compared` };
  const worse = heldout.filter((h) => h.worse);
  if (worse.length > 0) {
    return {
      verdict: 'no_proven_gain',
      reason: `no proven gain: on the held-out cases the winner is worse than the original on ${worse.map((h) => `${h.model} (right on ${h.comparison.test.aOnly} case${h.comparison.test.aOnly === 1 ? '' : 's'} the original missed, wrong on ${h.comparison.test.bOnly} it got right)`).join(', ')}`,
    };
  }
  const better = heldout.filter((h) => h.better);
  if (better.length === 0) {
    const bestP = Math.min(...heldout.map((h) => h.comparison.test.pValue));
    return { verdict: 'no_proven_gain', reason: `no proven gain: the winner is not worse on any model, but no model shows a significant held-out gain (smallest McNemar p = ${bestP.toPrecision(3)}, alpha ${alpha}, ${heldout[0]?.comparison.pairs ?? 0} paired cases)` };
  }
  return { verdict: 'proven_gain', reason: `proven gain: not worse on any model and significantly better on ${better.map((h) => `${h.model} (p = ${h.comparison.test.pValue.toPrecision(3)})`).join(', ')}` };
}

/** The draft of the target file, and its description as written (for the patch's `test`). */
async function readDraft(options: OptimizeOptions): Promise<{ draft: PreparedDraft; sourceDescription?: string }> {
  const bytes = await readFileBounded(options.target.abs, DEFAULT_AUTHORING_LIMITS.maxPackageBytes, options.target.file);
  const prepared = await prepareDraft(options.target.id, bytes, { file: options.target.file });
  if (!prepared.ok) throw new WorkbenchError('validation_failed', `${options.target.file} is not a valid package`, { details: { errors: prepared.errors } });
  let sourceDescription: string | undefined;
  try {
    const raw = JSON.parse(new TextDecoder().decode(bytes)) as { description?: unknown };
    if (typeof raw.description === 'string') sourceDescription = raw.description;
  } catch {
    // The file validated, so it parses; a byte order mark is the only way here.
  }
  return { draft: prepared.draft, ...(sourceDescription !== undefined && { sourceDescription }) };
}

/** A candidate description as a variant of the run: its own overlay and pinned catalog. */
async function candidateVariant(options: OptimizeOptions, draft: PreparedDraft, label: string, versions: ReadonlyMap<string, number>): Promise<EvalVariantPlan> {
  const key = skillKey(draft.id);
  const overlay = await createDraftOverlay(options.store, [draft], { versions });
  const catalog = await buildCatalog({
    registry: overlay,
    skill: draft.id,
    drafts: new Set([key]),
    source: options.source,
    ...(options.bindings && { bindings: options.bindings }),
    ...(options.bindingsFile !== undefined && { bindingsFile: options.bindingsFile }),
  });
  return {
    info: { label, skill: key, version: 'draft', manifest_hash: draft.manifest_hash, file: options.target.file },
    registry: catalog.registry,
    bindings: catalog.bindings,
    catalog: catalog.record,
  };
}

/** The catalog lines of the other auto skills the skill under test competes with. */
async function competingLines(variant: EvalVariantPlan, key: string): Promise<CatalogLine[]> {
  const auto = variant.catalog.entries.filter((e) => e.activation === 'auto' && !e.under_test).map((e) => e.skill);
  const bindings = variant.bindings.filter((b) => auto.includes(`${b.namespace}/${b.name}`));
  const results = await variant.registry.resolveCandidates(bindings.map((b) => ({ namespace: b.namespace, name: b.name, version: b.version })));
  const lines: CatalogLine[] = [];
  for (const r of results) {
    if (r.status !== 'found') continue;
    const m = r.metadata;
    const skill = `${m.namespace}/${m.name}`;
    if (skill === key) continue;
    lines.push({ skill, display_name: m.display_name, description: m.description, domains: [...m.domains], tags: [...m.tags] });
  }
  return lines.sort((a, b) => (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
}

/** A seed for a run that names none: 32 random bits (recorded in the report, so the run can be repeated). */
export function freshSeed(): number {
  return randomBytes(4).readUInt32BE(0);
}
