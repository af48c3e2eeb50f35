/**
 * The optimizer's train phase: the original description scored on the train
 * cases, then the proposal rounds. Each round the proposer is shown the
 * current description, the train cases and failures and the catalog headroom;
 * its candidates are vetted (validation, duplicates, the catalog budget), the
 * rest scored on the train cases on every model, and the best goes forward
 * when it beats the current description. No held-out case is in reach here:
 * this module is handed only the train cases.
 */
import { WorkbenchError } from '../core/errors';
import type { ModelClient } from '../core/models/types';
import { DEFAULT_AUTHORING_LIMITS } from '../core/package/limits';
import { estimateTokens } from '../core/package/tokens';
import { skillKey, type SkillId, type SkillPackage } from '../core/package/types';
import { activationEntry } from '../core/selector/render';
import type { SkillBinding } from '../core/selector/types';
import { safeJson } from '../core/selector/util';
import { buildCatalog, createDraftOverlay, nextVersion, prepareDraft, type PreparedDraft } from './catalog';
import type { CandidateReport, ModelScore, OptimizeEvent, RoundReport } from './optimizeReport';
import type { PlanStore } from './plan';
import type { CatalogLine, DescriptionProposer, ProposerInput, TrainCase, TrainFailure } from './proposers';
import { readCells } from './reports/cells';
import type { EvalVariantPlan, RunResult } from './runner';
import { cellCauses } from './service';
import type { EvalCase } from './suite';
import type { CellRecord } from './types';

/** The label of the original description's variant in every run. */
export const ORIGINAL = 'original';
const MAX_FAILURE_ANSWER_CHARS = 500;
/** The note of a round that had no candidate left to run. */
export const NOTHING_TO_EVALUATE = 'no candidate to evaluate';

/** A description scored on the train cases. */
export interface Scored {
  scores: ModelScore[];
  mean: number | null;
  /** Per train case, each model's outcome. */
  train: TrainCase[];
  failures: TrainFailure[];
}

/** Where candidate catalogs come from: the store and bindings of the original's catalog. */
export interface CandidateCatalog {
  store: PlanStore;
  source: string;
  bindings?: readonly SkillBinding[];
  bindingsFile?: string;
  /** The package file, as reports name it. */
  file: string;
}

/** What the train phase works with. */
export interface TrainSetup {
  id: SkillId;
  /** The validated package whose description is optimized. */
  original: SkillPackage;
  originalVariant: EvalVariantPlan;
  trainCases: readonly EvalCase[];
  models: readonly ModelClient[];
  proposer: DescriptionProposer;
  competitors: CatalogLine[];
  catalog: CandidateCatalog;
  rounds: number;
  perRound: number;
  repeats: number;
  /** Runs `variants` on the train cases (an eval run of its own, recorded as round `round`). */
  evaluate: (round: number, variants: EvalVariantPlan[]) => Promise<RunResult>;
  emit: (event: OptimizeEvent) => void;
  signal?: AbortSignal;
}

/** The description the train phase ended with. */
export interface TrainLeader {
  /** `original` or a candidate id. */
  id: string;
  description: string;
  scored: Scored;
  variant: EvalVariantPlan;
  catalogTokens: number;
}

/** What the train phase found. */
export interface TrainResult {
  original: Scored;
  candidates: CandidateReport[];
  rounds: RoundReport[];
  /** The best description by train score; the original when no candidate beat it. */
  leader: TrainLeader;
}

/** Estimated tokens of the skill's own catalog line with `pkg`'s metadata. */
export const lineTokens = (id: SkillId, pkg: SkillPackage) =>
  estimateTokens(safeJson(activationEntry({ id: skillKey(id), namespace: id.namespace, name: id.name, activation: 'auto', required: false, requested: 'published', version: 0, manifest_hash: '', display_name: pkg.display_name, description: pkg.description, domains: pkg.domains, tags: pkg.tags })));

function mean(scores: readonly ModelScore[]): number | null {
  if (scores.length === 0 || scores.some((s) => s.accuracy === null)) return null;
  return scores.reduce((sum, s) => sum + s.accuracy!, 0) / scores.length;
}

function cellRight(cell: CellRecord): boolean | null {
  if (cell.outcome === 'error') return null;
  return (cell.outcome === 'activated') === (cell.expect === 'activate');
}

/** Each model's score of the variant labelled `label` in a finished run (errors counted apart). */
export function variantScores(result: RunResult, label: string): ModelScore[] {
  return result.summary.models.map((m): ModelScore => {
    const s = m.skills.find((x) => x.variant === label)!;
    const answered = s.tp + s.fp + s.tn + s.fn;
    return { model: m.model, accuracy: answered === 0 ? null : (s.tp + s.tn) / answered, correct: s.tp + s.tn, answered, errors: s.errors };
  });
}

/** Scores every variant of a train run, with the outcomes and failures a proposer is shown. */
async function scoreTrain(setup: TrainSetup, round: number, variants: EvalVariantPlan[]): Promise<{ byLabel: Map<string, Scored>; cellsFile: string }> {
  const key = skillKey(setup.id);
  const result = await setup.evaluate(round, variants);
  const byId = new Map(setup.trainCases.map((c) => [c.id, c]));
  const out = new Map<string, Scored>();
  for (const v of variants) {
    const scores = variantScores(result, v.info.label);
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
    scored.train = setup.trainCases.map((c) => ({
      id: c.id,
      request: c.request,
      expect: c.expect,
      outcomes: setup.models.map((m) => ({ model: m.spec, ...(tallies.get(`${label}|${c.id}`)?.get(m.spec) ?? { activated: 0, answered: 0, errors: 0 }) })),
    }));
    scored.failures.sort((a, b) => (a.case < b.case ? -1 : a.case > b.case ? 1 : 0) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) || a.repeat - b.repeat);
  }
  return { byLabel: out, cellsFile: result.cellsFile };
}

/**
 * Scores the original, then runs the rounds (see the module comment). Throws
 * `unavailable` when a model answers no train cell of the original.
 */
export async function runTrainRounds(setup: TrainSetup): Promise<TrainResult> {
  const { id, original, originalVariant, perRound } = setup;
  const key = skillKey(id);
  const budget = originalVariant.catalog.budget;
  const originalRun = await scoreTrain(setup, 0, [originalVariant]);
  const originalScore = originalRun.byLabel.get(ORIGINAL)!;
  const unavailable = originalScore.scores.filter((s) => s.answered === 0);
  if (unavailable.length > 0) {
    // The first distinct causes per model: "model unavailable" alone hides "no API key" in cells.jsonl.
    const causes = await cellCauses(originalRun.cellsFile);
    const why = unavailable.map((s) => {
      const first = (causes.get(s.model) ?? []).map((c) => `${c.kind === 'error' ? '' : 'unusable answer: '}${c.message} (${c.cells} cell${c.cells === 1 ? '' : 's'})`);
      return `${s.model}${first.length > 0 ? `: ${first.join('; ')}` : ''}`;
    });
    throw new WorkbenchError('unavailable', `model unavailable: ${unavailable.map((s) => s.model).join(', ')} answered none of the ${setup.trainCases.length * setup.repeats} train cells of the original description. ${why.join('. ')}`);
  }

  const versions = new Map([[key, await nextVersion(id, setup.catalog.store, setup.catalog.store)]]);
  const candidates: CandidateReport[] = [];
  const seen = new Set([original.description]);
  const roundReports: RoundReport[] = [];
  let current: TrainLeader = { id: ORIGINAL, description: original.description, scored: originalScore, variant: originalVariant, catalogTokens: originalVariant.catalog.tokens };

  for (let round = 1; round <= setup.rounds; round++) {
    const notes: string[] = [];
    const input: ProposerInput = {
      skill: key,
      round,
      current: { skill: key, display_name: original.display_name, description: current.description, domains: original.domains, tags: original.tags },
      competitors: setup.competitors,
      train: current.scored.train,
      failures: current.scored.failures,
      headroom: { catalog_tokens: budget - current.catalogTokens, catalog_budget: budget, description_chars: DEFAULT_AUTHORING_LIMITS.maxDescriptionChars - current.description.length },
      maxCandidates: perRound,
    };
    let proposed;
    try {
      proposed = await setup.proposer.propose(input, setup.signal);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'answer_malformed') throw error;
      notes.push((error as Error).message);
      proposed = { candidates: [] };
    }
    notes.push(...(proposed.notes ?? []));
    const fresh: CandidateReport[] = [];
    const toRun: EvalVariantPlan[] = [];
    const variants = new Map<string, EvalVariantPlan>();
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
      const variant = await candidateVariant(setup.catalog, prepared.draft, candidate.id, versions);
      candidate.catalog_tokens = variant.catalog.tokens;
      if (variant.catalog.tokens > budget) {
        Object.assign(candidate, { reason: 'over_budget', message: `the catalog would be ${variant.catalog.tokens} estimated tokens, above its budget of ${budget}: the selector would skip automatic activation` });
        continue;
      }
      candidate.status = 'evaluated';
      variants.set(candidate.id, variant);
      toRun.push(variant);
    }
    candidates.push(...fresh);
    setup.emit({ type: 'proposed', round, candidates: fresh });

    let best: TrainLeader | undefined;
    if (toRun.length > 0) {
      const scored = (await scoreTrain(setup, round, toRun)).byLabel;
      for (const candidate of fresh.filter((c) => c.status === 'evaluated')) {
        const s = scored.get(candidate.id)!;
        candidate.train = s.scores;
        candidate.mean_train = s.mean;
        // Strictly better only; a tie keeps the earlier candidate (and fewer catalog tokens first).
        if (s.mean !== null && (best === undefined || s.mean > best.scored.mean! || (s.mean === best.scored.mean && candidate.catalog_tokens! < best.catalogTokens))) {
          best = { id: candidate.id, description: candidate.description, scored: s, variant: variants.get(candidate.id)!, catalogTokens: candidate.catalog_tokens! };
        }
      }
    } else notes.push(NOTHING_TO_EVALUATE);
    const advanced = best !== undefined && current.scored.mean !== null && best.scored.mean! > current.scored.mean;
    const report: RoundReport = { round, from: current.id, proposed: proposed.candidates.length, evaluated: toRun.length, best: best?.id ?? null, advanced, notes };
    roundReports.push(report);
    setup.emit({ type: 'round_finished', round: report });
    if (advanced) current = best!;
    if (proposed.candidates.length === 0) break;
  }
  return { original: originalScore, candidates, rounds: roundReports, leader: current };
}

/** A candidate description as a variant of the run: its own overlay and pinned catalog. */
async function candidateVariant(catalog: CandidateCatalog, draft: PreparedDraft, label: string, versions: ReadonlyMap<string, number>): Promise<EvalVariantPlan> {
  const key = skillKey(draft.id);
  const overlay = await createDraftOverlay(catalog.store, [draft], { versions });
  const built = await buildCatalog({
    registry: overlay,
    skill: draft.id,
    drafts: new Set([key]),
    source: catalog.source,
    ...(catalog.bindings && { bindings: catalog.bindings }),
    ...(catalog.bindingsFile !== undefined && { bindingsFile: catalog.bindingsFile }),
  });
  return {
    info: { label, skill: key, version: 'draft', manifest_hash: draft.manifest_hash, file: catalog.file },
    registry: built.registry,
    bindings: built.bindings,
    catalog: built.record,
  };
}
