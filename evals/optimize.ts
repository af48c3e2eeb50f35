/**
 * The description optimizer: rewrites a skill's catalog description against
 * the agent's real competing catalog, on several models at once, and proposes
 * a change only when held-out cases prove it better.
 *
 * 1. The skill's cases (activation examples plus extra cases) are split into
 *    train and held-out sets, stratified by should / should-not activate,
 *    with a recorded seed ({@link splitCases}, `optimizeSplit.ts`).
 * 2. The original description is scored on the train cases; each round the
 *    proposer sees the current description, the train failures with their
 *    traces and the catalog-budget headroom (never a held-out case), and
 *    proposes candidates. A candidate that fails validation, repeats an
 *    earlier description or pushes the catalog over its token budget is
 *    dropped with the reason; the others are evaluated on the train cases,
 *    against the controlled catalog, on every model, by the eval runner (its
 *    cache and resumable run folders included). The best by mean train
 *    accuracy across models goes forward when it beats the current one
 *    (`optimizeRounds.ts`).
 * 3. The winner is scored once on the held-out cases beside the original and
 *    compared with it case by case (McNemar, one pair per case, as `eval`).
 *    The verdict is `proven_gain` only when the winner is not worse on any
 *    model and better on at least one with the test saying so (p < alpha);
 *    otherwise `no_proven_gain`, and nothing is proposed (`optimizeHeldout.ts`).
 *
 * Nothing is published and no file is written except the run folders.
 */
import { randomBytes } from 'node:crypto';
import { dirname, relative } from 'node:path';
import { WorkbenchError } from '../core/errors';
import type { ModelClient } from '../core/models/types';
import { DEFAULT_AUTHORING_LIMITS } from '../core/package/limits';
import { skillKey } from '../core/package/types';
import { formatP } from '../core/report/format';
import type { SkillBinding } from '../core/selector/types';
import { readFileBounded } from '../core/workspace/read';
import { extraCasesPath } from '../core/workspace/targets';
import type { AnswerCache } from './cache';
import { prepareDraft, type PreparedDraft } from './catalog';
import { runHeldout } from './optimizeHeldout';
import type { CandidateReport, OptimizeEvent, OptimizeReport, RoundReport, RunRef, Winner } from './optimizeReport';
import { lineTokens, NOTHING_TO_EVALUATE, ORIGINAL, runTrainRounds } from './optimizeRounds';
import { heldoutPower, splitCases, type CaseCounts, type HeldoutPower } from './optimizeSplit';
import { planEval, type DraftTarget, type PlanProblem, type PlanStore } from './plan';
import type { CatalogLine, DescriptionProposer } from './proposers';
import { runEval, type EvalVariantPlan } from './runner';
import type { EvalCase } from './suite';

export type { AnswerChange, CandidateDrop, CandidateReport, HeldoutModel, ModelScore, OptimizeEvent, OptimizeReport, RoundReport, RunRef, Winner } from './optimizeReport';
export type { CaseCounts, CaseSplit, HeldoutPower, SplitCase } from './optimizeSplit';
export { bestMcNemarP, heldoutPower, splitCases } from './optimizeSplit';
export { answerChange, heldoutModel, judge } from './optimizeHeldout';

/** Defaults of {@link optimizeDescription}. */
export const OPTIMIZE_DEFAULTS = Object.freeze({ rounds: 3, holdout: 0.4, repeats: 1, candidatesPerRound: 3, alpha: 0.05, harmMargin: 0.05 });

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
  /** See {@link OptimizeReport.harm_margin} (default 0.05; 0 tolerates no harm at all). */
  harmMargin?: number;
  concurrency?: number;
  cache?: AnswerCache;
  /** Aborts the runs in flight; recorded cells are kept, so the same call resumes. */
  signal?: AbortSignal;
  /** Removes secrets from every cell the runs record (core/redact.ts). */
  redact?: (text: string) => string;
  onEvent?: (event: OptimizeEvent) => void;
}

/**
 * A skill whose held-out split cannot prove any gain: too few cases are held
 * out for McNemar's test to reach p < alpha even if the winner won every one.
 * `file` is the extra-cases file to add cases to.
 */
export interface TooFewCasesProblem extends Omit<PlanProblem, 'kind'> {
  kind: 'too_few_cases';
  power: HeldoutPower;
}

/** Why a skill cannot be optimized as given. */
export type OptimizeProblem = PlanProblem | TooFewCasesProblem;

/** Result of {@link optimizeDescription}: the report, or why the skill cannot be optimized as given. */
export type OptimizeResult = { ok: true; report: OptimizeReport } | { ok: false; problems: OptimizeProblem[] };

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
  const harmMargin = options.harmMargin ?? OPTIMIZE_DEFAULTS.harmMargin;
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new WorkbenchError('invalid_request', `rounds must be a positive integer, got ${rounds}`);
  if (!Number.isSafeInteger(perRound) || perRound < 1) throw new WorkbenchError('invalid_request', `candidates per round must be a positive integer, got ${perRound}`);
  if (!(alpha > 0 && alpha < 1)) throw new WorkbenchError('invalid_request', `alpha must be between 0 and 1 (exclusive), got ${alpha}`);
  if (!(harmMargin >= 0 && harmMargin < 1)) throw new WorkbenchError('invalid_request', `the harm margin must be at least 0 and below 1, got ${harmMargin}`);
  if (!(holdout > 0 && holdout < 1)) throw new WorkbenchError('invalid_request', `the held-out share must be between 0 and 1 (exclusive), got ${holdout}`);
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

  // Before any model is called: a split that cannot reach p < alpha would run every round for nothing.
  const counts: CaseCounts = { activate: skillPlan.cases.filter((c) => c.expect === 'activate').length, not_activate: skillPlan.cases.filter((c) => c.expect === 'not_activate').length };
  const power = heldoutPower(counts, holdout, alpha);
  if (!power.enough) {
    const file = casesFileOf(target, options.cwd);
    return { ok: false, problems: [{ kind: 'too_few_cases', skill: key, file, message: tooFewCasesMessage(key, counts, holdout, power, file), findings: [], power }] };
  }

  const draftPackage = await readDraft(options);
  const original = draftPackage.draft.package;

  const split = splitCases(skillPlan.cases, holdout, options.seed);
  emit({ type: 'split', split });
  const byId = new Map(skillPlan.cases.map((c) => [c.id, c]));
  const trainCases = split.train.map((c) => byId.get(c.id)!);
  const heldoutCases = split.heldout.map((c) => byId.get(c.id)!);

  const competitors = await competingLines(originalVariant, key);
  const { evaluate, runs } = evalRuns(options, key, repeats, emit);

  const train = await runTrainRounds({
    id,
    original,
    originalVariant,
    trainCases,
    models: options.models,
    proposer: options.proposer,
    competitors,
    catalog: { store, source: options.source, file: target.file, ...(options.bindings && { bindings: options.bindings }), ...(options.bindingsFile !== undefined && { bindingsFile: options.bindingsFile }) },
    rounds,
    perRound,
    repeats,
    evaluate: (round, variants) => evaluate('train', round, variants, trainCases),
    emit,
    ...(options.signal && { signal: options.signal }),
  });

  const base: Omit<OptimizeReport, 'verdict' | 'reason' | 'winner' | 'best' | 'heldout'> = {
    format: 'skillbench.optimize/v1',
    skill: key,
    file: target.file,
    seed: options.seed,
    models: options.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline })),
    proposer: { spec: options.proposer.spec, isBaseline: options.proposer.isBaseline },
    repeats,
    alpha,
    harm_margin: harmMargin,
    split,
    catalog: { budget: originalVariant.catalog.budget, source: options.source, competitors: competitors.map((c) => c.skill) },
    warnings: planned.warnings.map((w) => w.message),
    original: { description: original.description, catalog_tokens: originalVariant.catalog.tokens, line_tokens: lineTokens(id, original), train: train.original.scores, mean_train: train.original.mean },
    candidates: train.candidates,
    rounds: train.rounds,
    runs,
  };
  const leader = train.leader;
  if (leader.id === ORIGINAL) {
    const reason = noLeaderReason(train.candidates, train.rounds);
    emit({ type: 'finished', verdict: 'no_proven_gain', reason });
    return { ok: true, report: { ...base, verdict: 'no_proven_gain', reason, winner: null, best: null, heldout: null } };
  }

  const heldout = await runHeldout({ winner: leader.variant, original: originalVariant, alpha, harmMargin, evaluate: (variants) => evaluate('heldout', rounds + 1, variants, heldoutCases) });
  const best = { candidate: leader.id, description: leader.description, mean_train: leader.scored.mean };
  const winner: Winner | null =
    heldout.verdict === 'proven_gain'
      ? {
          candidate: leader.id,
          description: leader.description,
          patch: [
            { op: 'test', path: '/description', value: draftPackage.sourceDescription ?? original.description },
            { op: 'replace', path: '/description', value: leader.description },
          ],
          catalog_tokens: leader.catalogTokens,
        }
      : null;
  emit({ type: 'finished', verdict: heldout.verdict, reason: heldout.reason });
  return { ok: true, report: { ...base, verdict: heldout.verdict, reason: heldout.reason, winner, best, heldout: heldout.models } };
}

/**
 * The optimizer's eval runs: each its own resumable run folder (the runner's
 * cache and `.skillbench/runs` layout), recorded in `runs` for the report;
 * throws `cancelled` when one was stopped before its last cell.
 */
function evalRuns(options: OptimizeOptions, key: string, repeats: number, emit: (event: OptimizeEvent) => void) {
  const runs: RunRef[] = [];
  const evaluate = async (phase: 'train' | 'heldout', round: number, variants: EvalVariantPlan[], cases: readonly EvalCase[]) => {
    const result = await runEval(
      {
        models: options.models,
        skills: [{ skill: key, cases: [...cases], variants }],
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
  return { evaluate, runs };
}

/** Why no candidate went to the held-out cases, pointing only at what happened. */
function noLeaderReason(candidates: readonly CandidateReport[], rounds: readonly RoundReport[]): string {
  if (candidates.some((c) => c.status === 'evaluated')) return 'no proven gain: no candidate scored higher than the original on the train cases, so nothing was tried on the held-out cases';
  if (candidates.length > 0) return `no proven gain: no candidate could be evaluated: ${candidates.length === 1 ? 'the one proposed was' : `all ${candidates.length} proposed were`} dropped (see the reason given for each)`;
  const notes = [...new Set(rounds.flatMap((r) => r.notes).filter((n) => n !== NOTHING_TO_EVALUATE))];
  return `no proven gain: the proposer proposed no candidate${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** The extra-cases file of the target, relative to `cwd`: where cases are added. */
function casesFileOf(target: DraftTarget, cwd: string): string {
  const file = target.extras ?? extraCasesPath(dirname(dirname(target.abs)), target.id);
  return file !== undefined ? relative(cwd, file) : `skills/evals/${target.id.namespace}/${target.id.name}.json`;
}

/** Why a split cannot prove a gain, and the fewest cases that would let it. */
export function tooFewCasesMessage(key: string, counts: CaseCounts, holdout: number, power: HeldoutPower, file: string): string {
  const n = counts.activate + counts.not_activate;
  const plural = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const held =
    power.heldout === 0
      ? 'hold out none (a kind needs two cases before one can be held out)'
      : `hold out ${power.heldout} at the ${holdout} share, and the smallest p-value ${plural(power.heldout, 'held-out case')} can reach is ${formatP(power.best_p)}, not below alpha ${power.alpha}`;
  const add = power.add!;
  const kinds = [add.activate > 0 && plural(add.activate, 'should-activate case'), add.not_activate > 0 && plural(add.not_activate, 'should-not-activate case')].filter(Boolean).join(' and ');
  return (
    `${key} cannot prove a gain: its ${plural(n, 'case')} (${counts.activate} should, ${counts.not_activate} should-not activate) ${held}. ` +
    `A proven gain needs at least ${power.needed} held-out cases: add ${plural(add.activate + add.not_activate, 'case')} (${kinds}) to ${file}` +
    `${power.holdout !== undefined ? `, or hold out a larger share (${power.holdout})` : ''}.`
  );
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
