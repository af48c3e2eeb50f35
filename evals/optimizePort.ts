/**
 * The description optimizer behind the WorkbenchApi's `optimize.*` methods:
 * `optimize.start` runs `optimizeDescription` (evals/optimize.ts) on a
 * package text or a draft, against the competing catalog of a connection,
 * and forwards the optimizer's own progress hooks as `optimize.progressed`
 * events (batched: at most one per tick, and one at every phase change);
 * `optimize.finished` carries the run with its report. `optimize.get` and
 * `optimize.stop` address runs of this session.
 *
 * The package text is written to a private scratch file for the optimizer to
 * read; its eval runs and the answer cache live in the open workspace's
 * `.skillbench` folder, else in the app-data folder's `optimize` folder, so a
 * rerun with the same seed answers from them. Nothing is published and no
 * package file is changed: the winner's patch is returned for the author to
 * apply.
 *
 * Node-only.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OptimizeProgress, OptimizeReportView, OptimizeRunView, WorkbenchParsedParams } from '../core/api/contract';
import { toErrorData } from '../core/api/errors';
import type { EvalsHost } from '../core/api/evalsPort';
import type { Handler } from '../core/api/router';
import { WorkbenchError } from '../core/errors';
import { openModel as openEngineModel, safeParseModelSpec } from '../core/models/index';
import type { ModelClient } from '../core/models/types';
import { skillKey, type SkillId } from '../core/package/types';
import { validatePackage } from '../core/package/validate';
import { workspaceExtraCases, type DraftTarget } from '../core/workspace/targets';
import { AnswerCache } from './cache';
import { freshSeed, optimizeDescription, type CandidateReport, type OptimizeEvent, type OptimizeReport } from './optimize';
import { openProposer, type DescriptionProposer } from './proposers';

type OptimizeRequest = WorkbenchParsedParams['optimize.start'];

/** Options of {@link optimizeHandlers}. */
export interface OptimizePortOptions {
  /** Milliseconds between progress events while cells land (default 100). */
  tickMs?: number;
  openModel?: typeof openEngineModel;
}

/** A run in flight. */
export interface LiveOptimize {
  view: OptimizeRunView;
  abort: AbortController;
  done: Promise<void>;
}

const candidateView = (c: CandidateReport): CandidateReport => structuredClone(c);

/** The report as the contract carries it (the file name and run folders stay on the host). */
function reportView(report: OptimizeReport): OptimizeReportView {
  const { format: _format, file: _file, runs: _runs, split, heldout, ...rest } = report;
  return {
    ...structuredClone(rest),
    split: { seed: split.seed, holdout: split.holdout, train: split.train.map((c) => ({ id: c.id, request: c.request, expect: c.expect })), heldout: split.heldout.map((c) => ({ id: c.id, request: c.request, expect: c.expect })) },
    heldout:
      heldout?.map((h) => ({
        model: h.model,
        winner: { ...h.winner },
        original: { ...h.original },
        better: h.better,
        worse: h.worse,
        answers: structuredClone(h.answers),
        comparison: {
          pairs: h.comparison.pairs,
          accuracy_a: h.comparison.accuracy_a,
          accuracy_b: h.comparison.accuracy_b,
          test: { aOnly: h.comparison.test.aOnly, bOnly: h.comparison.test.bOnly, concordant: h.comparison.test.concordant, pValue: h.comparison.test.pValue, significant: h.comparison.test.significant, alpha: h.comparison.test.alpha },
          cases: h.comparison.cases.map((c) => ({ ...c })),
        },
      })) ?? null,
  };
}

/** The `optimize.*` handlers over one host; `close` stops every live run and waits for it. */
export function optimizeHandlers(
  host: EvalsHost,
  live: Map<string, LiveOptimize>,
  options: OptimizePortOptions = {},
): { [M in 'optimize.start' | 'optimize.stop' | 'optimize.get']: Handler<M> } {
  const tickMs = options.tickMs ?? 100;
  const open = options.openModel ?? openEngineModel;
  const finished = new Map<string, OptimizeRunView>();

  const workDir = () => {
    const ws = host.workspace();
    return ws ?? join(host.dataDir, 'optimize');
  };

  const viewOf = (id: string): OptimizeRunView => {
    const run = live.get(id)?.view ?? finished.get(id);
    if (!run) throw new WorkbenchError('not_found', `no optimizer run '${id}' in this session`, { details: { pointer: '/run' } });
    return structuredClone(run);
  };

  const sourceOf = async (request: OptimizeRequest): Promise<{ skill: SkillId; text: string; file: string }> => {
    const s = request.source;
    if (s.kind === 'text') return { skill: s.skill, text: s.text, file: `${skillKey(s.skill)} (editor text)` };
    if (!host.draft) throw new WorkbenchError('not_implemented', 'this host keeps no drafts to optimize', { details: { pointer: '/source' } });
    const draft = await host.draft(s.draft);
    if (!draft) throw new WorkbenchError('not_found', `no draft '${s.draft}'`, { details: { pointer: '/source/draft' } });
    return { skill: draft.skill, text: draft.text, file: draft.path ?? `draft ${s.draft}` };
  };

  const start: Handler<'optimize.start'> = async (request) => {
    request.models.forEach((spec, i) => {
      const parsed = safeParseModelSpec(spec);
      if (!parsed.success) throw new WorkbenchError('invalid_request', parsed.error.message, { details: { pointer: `/models/${i}` } });
    });
    const source = await sourceOf(request);
    // An invalid package is refused here, located, before any model is opened.
    const check = validatePackage(new TextEncoder().encode(source.text), { id: source.skill });
    if (!check.valid) {
      const first = check.errors[0];
      throw new WorkbenchError('validation_failed', `${source.file} is not a valid package${first ? `: ${first.path || '(document)'}: ${first.message}` : ''}; fix it before optimizing`, {
        details: { errors: check.errors, warnings: check.warnings },
      });
    }
    const seed = request.seed ?? freshSeed();
    const cwd = workDir();
    await mkdir(cwd, { recursive: true });
    const cache = request.cache ? new AnswerCache(join(cwd, '.skillbench', 'cache')) : undefined;
    const opened: ModelClient[] = [];
    let proposer: DescriptionProposer;
    const models: ModelClient[] = [];
    try {
      proposer = await openProposer(request.proposer, { env: host.env, timeoutMs: request.timeout_ms, open, ...(cache && { cache }) }, opened);
      for (const [i, spec] of request.models.entries()) {
        try {
          const model = await open(spec, { env: host.env, timeoutMs: request.timeout_ms, retries: { retryOn: ['server'] } });
          opened.push(model);
          models.push(model);
        } catch (error) {
          throw new WorkbenchError('invalid_request', `${spec}: ${toErrorData(error).message}`, { cause: error, details: { pointer: `/models/${i}` } });
        }
      }
    } catch (error) {
      await Promise.allSettled(opened.map((m) => m.close?.()));
      throw error;
    }

    const id = randomBytes(8).toString('hex');
    const abort = new AbortController();
    const view: OptimizeRunView = {
      run: id,
      skill: skillKey(source.skill),
      status: 'running',
      seed,
      models: [...request.models],
      proposer: proposer.spec,
      started_at: new Date().toISOString(),
      progress: { phase: 'starting', round: 0, done: 0, total: 0, errors: 0, message: 'reading the catalog and splitting the cases' },
      candidates: [],
      report: null,
    };

    let dirty = false;
    let fresh: CandidateReport[] | undefined;
    const flush = () => {
      dirty = false;
      const payload = { run: id, progress: { ...view.progress }, ...(fresh && { candidates: fresh }) };
      fresh = undefined;
      host.emit('optimize.progressed', payload);
    };
    const timer = setInterval(() => {
      if (dirty) flush();
    }, tickMs);
    const setProgress = (p: Partial<OptimizeProgress>, now: boolean) => {
      view.progress = { ...view.progress, ...p };
      dirty = true;
      if (now) flush();
    };
    const onEvent = (event: OptimizeEvent) => {
      switch (event.type) {
        case 'split':
          setProgress({ message: `split: ${event.split.train.length} train cases, ${event.split.heldout.length} held out (seed ${event.split.seed})` }, true);
          return;
        case 'run_started': {
          const what = event.phase === 'heldout' ? 'held-out run: the winner against the original' : event.round === 0 ? 'scoring the original on the train cases' : `round ${event.round}: scoring ${event.variants.length} candidate${event.variants.length === 1 ? '' : 's'} on the train cases`;
          setProgress({ phase: event.phase, round: event.round, done: event.resumed, total: event.cells, errors: 0, message: what }, true);
          return;
        }
        case 'cell':
          setProgress({ done: event.progress.done, total: event.progress.total, errors: event.progress.errors }, false);
          return;
        case 'proposed': {
          const list = event.candidates.map(candidateView);
          view.candidates.push(...list);
          const dropped = list.filter((c) => c.status === 'dropped').length;
          fresh = [...view.candidates];
          setProgress({ round: event.round, message: `round ${event.round}: ${list.length} candidate${list.length === 1 ? '' : 's'} proposed${dropped > 0 ? `, ${dropped} dropped` : ''}` }, true);
          return;
        }
        case 'round_finished':
          fresh = [...view.candidates];
          setProgress({ message: `round ${event.round.round} finished: ${event.round.advanced ? `${event.round.best} goes forward` : 'nothing beat the current description'}` }, true);
          return;
        case 'finished':
          setProgress({ phase: 'done', message: event.reason }, true);
          return;
      }
    };

    let scratch: string | undefined;
    const done = (async () => {
      try {
        scratch = await mkdtemp(join(tmpdir(), 'skillbench-optimize-'));
        const abs = join(scratch, `${source.skill.name}.json`);
        await writeFile(abs, source.text, { mode: 0o600 });
        const ws = host.workspace();
        const extras = ws ? await workspaceExtraCases(ws, source.skill) : undefined;
        const target: DraftTarget = { kind: 'draft', id: source.skill, file: source.file, abs, ...(extras && { extras }) };
        const result = await host.useStore(request.connection, (store, label) =>
          optimizeDescription({
            target,
            store,
            cwd,
            source: label,
            models,
            proposer,
            seed,
            rounds: request.rounds,
            candidatesPerRound: request.candidates,
            holdout: request.holdout,
            repeats: request.repeats,
            harmMargin: request.harm_margin,
            ...(cache && { cache }),
            signal: abort.signal,
            redact: host.redact,
            onEvent,
          }),
        );
        if (!result.ok) {
          view.status = 'failed';
          view.problems = result.problems.map((p) => structuredClone(p));
          view.error = toErrorData(new WorkbenchError('validation_failed', result.problems.map((p) => p.message).join('; ')));
        } else {
          view.report = reportView(result.report);
          view.candidates = view.report.candidates;
          view.status = 'finished';
        }
      } catch (error) {
        view.status = abort.signal.aborted ? 'stopped' : 'failed';
        if (!abort.signal.aborted) view.error = toErrorData(error, { redact: host.redact });
        view.progress = { ...view.progress, phase: 'done', message: abort.signal.aborted ? 'stopped; a rerun with the same seed answers from the recorded cells' : view.error?.message ?? 'failed' };
      } finally {
        clearInterval(timer);
        await Promise.allSettled(opened.map((m) => m.close?.()));
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }
      live.delete(id);
      finished.set(id, view);
      host.emit('optimize.finished', { run: structuredClone(view) });
    })();
    live.set(id, { view, abort, done });
    return structuredClone(view);
  };

  return {
    'optimize.start': start,
    'optimize.stop': async ({ run }) => {
      const l = live.get(run);
      if (!l) return viewOf(run);
      l.view.status = 'stopping';
      l.abort.abort();
      return structuredClone(l.view);
    },
    'optimize.get': async ({ run }) => viewOf(run),
  };
}
