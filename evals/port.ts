/**
 * The eval engine behind the WorkbenchApi's `evals.*` methods: planning
 * (cells, estimated calls and cost, catalogs against their budget), live runs
 * with per-model progress and stop, resume of an interrupted run, the runs
 * found in the run folder, and the run's cells, traces, summary and reports.
 *
 * - A run lives in `<runs>/<config_hash>/` (the CLI's layout: `header.json`,
 *   `cells.jsonl`, `summary.json`) plus `request.json`, the request that
 *   started it, so a later session can resume it. `<runs>` is `runs` in the
 *   app-data folder: a workspace may be a shipped or shared folder, never
 *   written to by a run.
 * - Every number comes from the engine: the runner's progress snapshot and
 *   the aggregator's summary over the recorded cells; nothing is re-derived.
 * - Progress events are batched: at most one `evals.progressed` per tick
 *   (default 100 ms) with the cells recorded since the last one.
 *
 * Node-only.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type {
  EvalCatalogView,
  EvalCell,
  EvalModelProgress,
  EvalPlanView,
  EvalProgress,
  EvalRunDetail,
  EvalRunView,
  WorkbenchErrorData,
  WorkbenchParsedParams,
} from '../core/api/contract';
import { evalRequestSchema } from '../core/api/contract';
import { toErrorData } from '../core/api/errors';
import type { EvalsHost, EvalsPort } from '../core/api/evalsPort';
import type { Handler } from '../core/api/router';
import { WorkbenchError } from '../core/errors';
import { writeFileAtomic } from '../core/fs/atomic';
import { openModel } from '../core/models/index';
import { catalogConsequence } from '../core/report/catalog';
import type { SkillStore } from '../core/store/types';
import { expectInside } from '../core/workspace/confine';
import { resolveTargets, workspaceExtraCases, type Target } from '../core/workspace/targets';
import { AnswerCache } from './cache';
import { type ModelProgress, type RunProgress } from './runner';
import { RUN_FILES, readHeader, scanCells } from './runFiles';
import {
  checkSettings,
  estimateEvaluation,
  openEvaluationModels,
  planEvaluation,
  renderEvaluationReport,
  runEvaluation,
  summarizeRunFolder,
  type EvaluationPlan,
  type EvaluationSettings,
  type OpenedModels,
} from './service';
import type { CatalogRecord, CellRecord, EvalSummary, RunHeader } from './types';
import { optimizeHandlers, type LiveOptimize } from './optimizePort';
import { catalogHealthHandler } from './catalogHealthMethod';
import type { GateOptions } from './verdict';

type EvalRequest = WorkbenchParsedParams['evals.start'];

/** Options of {@link createEvalsPort}. */
export interface EvalsPortOptions {
  /** The run folder; default: `runs` in the app-data folder. */
  runsDir?: string;
  /** Milliseconds between progress events of a live run (default 100). */
  tickMs?: number;
  /** Opens a model client (tests may wrap the engine's). */
  openModel?: typeof openModel;
}

/** A file the port adds to a run folder: the request that started the run. */
const REQUEST_FILE = 'request.json';
/** Bound on a request file read back (a request is small). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

interface LiveRun {
  id: string;
  header: RunHeader;
  request: EvalRequest;
  status: EvalRunView['status'];
  stop: AbortController;
  hard: AbortController;
  modelStops: Map<string, AbortController>;
  snapshot: () => RunProgress;
  pending: EvalCell[];
  timer?: ReturnType<typeof setInterval>;
  done: Promise<void>;
  error?: WorkbenchErrorData;
}

/** A cell without its trace, as the matrix and the events carry it. */
export function cellView(cell: CellRecord): EvalCell {
  const { trace: _trace, ...rest } = cell;
  return rest;
}

function progressView(p: Pick<RunProgress, 'done' | 'total' | 'errors' | 'rate' | 'etaMs'>): EvalProgress {
  return { done: p.done, total: p.total, errors: p.errors, rate: p.rate, eta_ms: p.etaMs };
}

function modelView(m: ModelProgress, isBaseline: boolean): EvalModelProgress {
  return { spec: m.spec, isBaseline, ...progressView(m), status: m.status };
}

function catalogView(c: CatalogRecord): EvalCatalogView {
  return {
    entries: c.entries.map((e) => ({ ...e })),
    tokens: c.tokens,
    budget: c.budget,
    consequence: catalogConsequence(c),
    source: c.source,
    ...(c.auto_candidates !== undefined && { auto_candidates: c.auto_candidates }),
    ...(c.max_auto_candidates !== undefined && { max_auto_candidates: c.max_auto_candidates }),
  };
}

/** The gates of a request, as the engine's verdict takes them. */
export function gateOptions(request: Pick<EvalRequest, 'gates'>): GateOptions {
  const g = request.gates;
  return {
    ...(g.min_accuracy !== undefined && { minAccuracy: g.min_accuracy }),
    ...(g.min_recall !== undefined && { minRecall: g.min_recall }),
    ...(g.min_precision !== undefined && { minPrecision: g.min_precision }),
    ...(g.fail_on_regression === true && { failOnRegression: true }),
    ...(g.regression_margin !== undefined && { regressionMargin: g.regression_margin }),
    ...(g.reference_model !== undefined && { referenceModel: g.reference_model }),
    ...(g.max_error_rate !== undefined && { maxErrorRate: g.max_error_rate }),
    ...(g.max_invalid_rate !== undefined && { maxInvalidRate: g.max_invalid_rate }),
    ...(g.allow_skipped_activation === true && { allowSkippedActivation: true }),
  };
}

/** The settings of a request, as the evaluation service takes them. */
function settingsOf(request: EvalRequest): EvaluationSettings {
  return {
    models: request.models,
    ...(request.resource_model !== undefined && { resourceModel: request.resource_model }),
    repeats: request.repeats,
    comparePublished: request.compare_published,
    ...(request.bindings && { bindings: request.bindings.map((b) => ({ ...b })), bindingsSource: 'the given bindings' }),
    ...(request.limits && { limits: request.limits }),
    ...(!request.adjacent_negatives && { adjacentNegatives: false }),
  };
}

/** Cells the run records in all: repeats × (cases × their skill's variants) × models. */
function expectedTotal(header: RunHeader): number {
  const variantsOf = new Map<string, number>();
  for (const v of header.variants) variantsOf.set(v.skill, (variantsOf.get(v.skill) ?? 0) + 1);
  const units = header.cases.reduce((n, c) => n + (variantsOf.get(c.skill) ?? 0), 0);
  return header.repeats * units * header.models.length;
}

/** Creates the engine's implementation of the `evals.*` methods. */
export function createEvalsPort(options: EvalsPortOptions = {}): EvalsPort {
  const live = new Map<string, LiveRun>();
  const optimizing = new Map<string, LiveOptimize>();
  const tickMs = options.tickMs ?? 100;
  const open = options.openModel ?? openModel;
  const runsDirOf = (dataDir: string) => (options.runsDir ? resolve(options.runsDir) : join(dataDir, 'runs'));

  return {
    runsDir: runsDirOf,

    async close() {
      for (const run of live.values()) {
        run.stop.abort();
        run.hard.abort();
      }
      for (const run of optimizing.values()) run.abort.abort();
      await Promise.allSettled([...live.values()].map((r) => r.done));
      await Promise.allSettled([...optimizing.values()].map((r) => r.done));
    },

    handlers(host: EvalsHost) {
      const runsDir = () => runsDirOf(host.dataDir);
      const runDir = (id: string) => join(runsDir(), id);

      /**
       * Resolves the request's targets to the engine's, writing drafts to
       * `scratch` for the planner. The cases each brings follow the one rule
       * of core/workspace/targets.ts, with the open workspace as the
       * evaluating workspace: the same cases as `skillbench eval --workspace`.
       */
      const targetsOf = async (request: EvalRequest, scratch: () => Promise<string>): Promise<Target[]> => {
        const ws = host.workspace();
        const out: Target[] = [];
        for (const [i, t] of request.targets.entries()) {
          const pointer = `/targets/${i}`;
          if (t.kind === 'published') {
            const extras = ws ? await workspaceExtraCases(ws, t.skill) : undefined;
            out.push({ kind: 'stored', id: t.skill, ...(extras && { extras }) });
          } else if (t.kind === 'file') {
            if (!ws) throw new WorkbenchError('invalid_request', `no workspace is open to read ${t.path} from`, { details: { pointer } });
            const resolved = await resolveTargets([t.path], { cwd: ws });
            // The engine opens these files itself: none may be reached through a link leading out of the workspace.
            for (const target of resolved.targets) {
              if (target.kind !== 'draft') continue;
              await expectInside(ws, target.abs, target.file);
              if (target.extras) await expectInside(ws, target.extras, relative(ws, target.extras));
            }
            out.push(...resolved.targets);
          } else {
            if (!host.draft) throw new WorkbenchError('not_implemented', 'this host keeps no drafts to evaluate', { details: { pointer } });
            const draft = await host.draft(t.draft);
            if (!draft) throw new WorkbenchError('not_found', `no draft '${t.draft}'`, { details: { pointer } });
            const file = join(await scratch(), `${i}.json`);
            await writeFile(file, draft.text);
            const extras = ws ? await workspaceExtraCases(ws, draft.skill) : undefined;
            out.push({ kind: 'draft', id: draft.skill, file: draft.path ?? `draft ${t.draft}`, abs: file, ...(extras && { extras }) });
          }
        }
        return out;
      };

      const plan = async (request: EvalRequest): Promise<EvaluationPlan> => {
        const settings = settingsOf(request);
        checkSettings(settings);
        const reference = request.gates.reference_model;
        if (reference !== undefined && (!request.models.includes(reference) || request.models.length < 2)) {
          throw new WorkbenchError('invalid_request', `the reference model must be one of at least two models, got '${reference}'`, { details: { pointer: '/gates/reference_model' } });
        }
        let dir: string | undefined;
        const scratch = async () => (dir ??= await mkdtemp(join(tmpdir(), 'skillbench-eval-plan-')));
        try {
          const targets = await targetsOf(request, scratch);
          return await host.useStore(request.connection, (store: SkillStore, label: string) => planEvaluation(targets, settings, { store, source: label, cwd: host.workspace() ?? host.dataDir }));
        } finally {
          if (dir) await rm(dir, { recursive: true, force: true });
        }
      };

      /** A run's view from its folder (a run not live in this process). */
      const storedView = async (id: string, header: RunHeader): Promise<EvalRunView> => {
        const total = expectedTotal(header);
        const perModel = new Map(header.models.map((m) => [m.spec, { done: 0, errors: 0 }]));
        const seen = new Set<string>();
        await scanCells(join(runDir(id), RUN_FILES.cells), (cell) => {
          const column = perModel.get(cell.model);
          if (!column || seen.has(cell.key)) return;
          seen.add(cell.key);
          column.done++;
          if (cell.outcome === 'error') column.errors++;
        });
        const modelTotal = header.models.length === 0 ? 0 : total / header.models.length;
        const models: EvalModelProgress[] = header.models.map((m) => {
          const c = perModel.get(m.spec)!;
          const complete = c.done >= modelTotal;
          return { spec: m.spec, isBaseline: m.isBaseline, done: c.done, total: modelTotal, errors: c.errors, rate: 0, eta_ms: complete ? 0 : null, status: complete ? 'complete' : c.done === 0 ? 'pending' : 'stopped' };
        });
        const done = models.reduce((n, m) => n + m.done, 0);
        const errors = models.reduce((n, m) => n + m.errors, 0);
        return {
          run: id,
          config_hash: header.config_hash,
          started_at: header.started_at,
          status: done >= total ? 'complete' : 'incomplete',
          progress: { done, total, errors, rate: 0, eta_ms: done >= total ? 0 : null },
          models,
          skills: [...new Set(header.variants.map((v) => v.skill))],
          variants: [...new Set(header.variants.map((v) => v.label))],
          repeats: header.repeats,
        };
      };

      const liveView = (run: LiveRun): EvalRunView => {
        const p = run.snapshot();
        const baseline = new Map(run.header.models.map((m) => [m.spec, m.isBaseline]));
        return {
          run: run.id,
          config_hash: run.header.config_hash,
          started_at: run.header.started_at,
          status: run.status,
          progress: progressView(p),
          models: p.models.map((m) => modelView(m, baseline.get(m.spec) ?? false)),
          skills: [...new Set(run.header.variants.map((v) => v.skill))],
          variants: [...new Set(run.header.variants.map((v) => v.label))],
          repeats: run.header.repeats,
          ...(run.error && { error: run.error }),
        };
      };

      const headerOf = async (id: string): Promise<RunHeader> => {
        const header = await readHeader(runDir(id)).catch((error: unknown) => {
          throw new WorkbenchError('conflict', `run ${id} cannot be read: ${(error as Error).message}`, { cause: error });
        });
        if (!header) throw new WorkbenchError('not_found', `no run '${id}' in the run folder`, { details: { pointer: '/run' } });
        return header;
      };

      const viewOf = async (id: string): Promise<EvalRunView> => {
        const run = live.get(id);
        return run ? liveView(run) : storedView(id, await headerOf(id));
      };

      const requestOf = async (id: string): Promise<EvalRequest | undefined> => {
        const run = live.get(id);
        if (run) return run.request;
        try {
          const text = await readFile(join(runDir(id), REQUEST_FILE), 'utf8');
          if (text.length > MAX_REQUEST_BYTES) return undefined;
          // The file is written from a parsed request; checking it again with the same schema means an edited
          // or damaged one is unreadable, never resumed with settings the API would have refused.
          const parsed = evalRequestSchema.safeParse(JSON.parse(text));
          return parsed.success ? parsed.data : undefined;
        } catch {
          return undefined;
        }
      };

      const summaryOf = async (id: string, header: RunHeader): Promise<EvalSummary | null> => {
        const request = await requestOf(id);
        return summarizeRunFolder(runDir(id), header, request ? gateOptions(request) : {});
      };

      /** Starts (or resumes) the run of `request`; resolves once its header is written. */
      const start = async (request: EvalRequest, expectId?: string): Promise<EvalRunView> => {
        const planned = await plan(request);
        if (!planned.ok) {
          const first = planned.problems[0]!;
          throw new WorkbenchError('validation_failed', planned.problems.map((p) => p.message).join('; '), {
            details: { problems: planned.problems, ...(first.file !== undefined && { file: first.file }) },
          });
        }
        const id = planned.configHash;
        if (expectId !== undefined && id !== expectId) {
          throw new WorkbenchError('conflict', `run ${expectId} cannot be resumed: its skills, catalog or cases changed since it started (the same request now plans run ${id})`, { details: { run: expectId, now: id } });
        }
        const already = live.get(id);
        if (already) return liveView(already);
        const models: OpenedModels = await openEvaluationModels(planned.settings, { env: host.env, timeoutMs: request.timeout_ms, open });
        // Opening models awaits: another start of the same run may have won meanwhile.
        const existing = live.get(id);
        if (existing) {
          await models.close();
          return liveView(existing);
        }
        const dir = runDir(id);
        const stop = new AbortController();
        const hard = new AbortController();
        const modelStops = new Map(request.models.map((s) => [s, new AbortController()]));
        let started!: (run: LiveRun) => void;
        let failed!: (error: unknown) => void;
        const ready = new Promise<LiveRun>((res, rej) => {
          started = res;
          failed = rej;
        });
        let run: LiveRun | undefined;
        const flush = () => {
          if (!run) return;
          const p = run.snapshot();
          const baseline = new Map(run.header.models.map((m) => [m.spec, m.isBaseline]));
          const cells = run.pending;
          run.pending = [];
          host.emit('evals.progressed', { run: run.id, progress: progressView(p), models: p.models.map((m) => modelView(m, baseline.get(m.spec) ?? false)), cells });
        };
        const cache = request.cache ? new AnswerCache(join(host.dataDir, 'cache')) : undefined;
        const done = (async () => {
          try {
            await writeFileAtomic(join(await ensureDir(dir), REQUEST_FILE), `${JSON.stringify(request, null, 2)}\n`);
            const result = await runEvaluation(
              planned,
              models,
              {
                concurrency: request.concurrency,
                runDir: dir,
                ...(cache && { cache }),
                gates: gateOptions(request),
                stopSignal: stop.signal,
                signal: hard.signal,
                modelStopSignals: new Map([...modelStops].map(([s, c]) => [s, c.signal])),
                redact: host.redact,
              },
              {
                onStart({ header, snapshot }) {
                  run = { id, header, request, status: 'running', stop, hard, modelStops, snapshot, pending: [], done: Promise.resolve() };
                  live.set(id, run);
                  run.timer = setInterval(() => {
                    if (run && run.pending.length > 0) flush();
                  }, tickMs);
                  host.emit('evals.started', { run: liveView(run) });
                  started(run);
                },
                onCell(cell) {
                  run?.pending.push(cellView(cell));
                },
              },
            );
            if (run) {
              clearInterval(run.timer);
              flush();
              run.status = result.complete ? 'complete' : 'incomplete';
            }
          } catch (error) {
            if (run) {
              clearInterval(run.timer);
              flush();
              run.status = 'failed';
              run.error = toErrorData(error, { redact: host.redact });
            } else failed(error);
          } finally {
            await models.close();
          }
          if (!run) return;
          const view = liveView(run);
          const header = run.header;
          live.delete(id);
          const summary = await summaryOf(id, header).catch(() => null);
          host.emit('evals.finished', { run: view, summary });
        })();
        const r = await ready;
        r.done = done;
        return liveView(r);
      };

      const handlers: { [M in 'evals.plan' | 'evals.start' | 'evals.stop' | 'evals.resume' | 'evals.list' | 'evals.get' | 'evals.cells' | 'evals.trace' | 'evals.export']: Handler<M> } = {
        'evals.plan': async (request) => {
          const planned = await plan(request);
          if (!planned.ok) {
            return { ok: false, problems: planned.problems, warnings: [], config_hash: null, cells: 0, estimated_calls: 0, estimated_cost_usd: null, models: [], skills: [], resumable: null };
          }
          const estimate = estimateEvaluation(planned, host.env);
          const id = planned.configHash;
          let resumable: EvalPlanView['resumable'] = null;
          if (!live.has(id)) {
            const header = await readHeader(runDir(id)).catch(() => undefined);
            if (header && header.config_hash === id) {
              const view = await storedView(id, header);
              if (view.status === 'incomplete') resumable = { run: id, done: view.progress.done, total: view.progress.total };
            }
          }
          return {
            ok: true,
            problems: [],
            warnings: planned.warnings.map((w) => ({ ...w })),
            config_hash: id,
            cells: estimate.cells,
            estimated_calls: estimate.calls,
            estimated_cost_usd: estimate.costUsd,
            models: estimate.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline, cells: m.cells, estimated_calls: m.calls, estimated_cost_usd: m.costUsd })),
            skills: planned.skills.map((s, i) => ({
              skill: s.skill,
              cases: s.cases.length,
              examples: planned.cases[i]!.examples,
              extra_cases: planned.cases[i]!.extra,
              adjacent_cases: planned.cases[i]!.adjacent,
              ...(s.extras !== undefined && { extras_file: s.extras }),
              variants: s.variants.map((v) => ({ label: v.info.label, version: v.info.version, manifest_hash: v.info.manifest_hash, catalog: catalogView(v.catalog) })),
            })),
            resumable,
          };
        },

        'evals.start': (request) => start(request),

        'evals.stop': async ({ run: id, model }) => {
          const run = live.get(id);
          if (!run) {
            const header = await headerOf(id);
            if (model !== undefined && !header.models.some((m) => m.spec === model)) throw new WorkbenchError('not_found', `run ${id} has no model '${model}'`, { details: { pointer: '/model' } });
            return storedView(id, header);
          }
          if (model !== undefined) {
            const stop = run.modelStops.get(model);
            if (!stop) throw new WorkbenchError('not_found', `run ${id} has no model '${model}'`, { details: { pointer: '/model' } });
            stop.abort();
          } else {
            run.status = 'stopping';
            run.stop.abort();
          }
          return liveView(run);
        },

        'evals.resume': async ({ run: id }) => {
          if (live.has(id)) return liveView(live.get(id)!);
          await headerOf(id);
          const request = await requestOf(id);
          if (!request) throw new WorkbenchError('conflict', `run ${id} has no readable ${REQUEST_FILE}: start it again from its setup`, { details: { run: id } });
          return start(request, id);
        },

        'evals.list': async () => {
          let names: string[];
          try {
            names = (await readdir(runsDir(), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { runs: [] };
            throw error;
          }
          const runs: EvalRunView[] = [];
          for (const name of names) {
            if (!/^[A-Za-z0-9._-]+$/.test(name)) continue;
            const run = live.get(name);
            if (run) {
              runs.push(liveView(run));
              continue;
            }
            const header = await readHeader(runDir(name)).catch(() => undefined);
            if (header) runs.push(await storedView(name, header));
          }
          runs.sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
          return { runs };
        },

        'evals.get': async ({ run: id }): Promise<EvalRunDetail> => {
          const header = live.get(id)?.header ?? (await headerOf(id));
          const summary = await summaryOf(id, header);
          return {
            run: await viewOf(id),
            cases: header.cases.map((c) => ({ ...c })),
            variants: header.variants.map((v) => ({ ...v })),
            catalogs: Object.fromEntries(Object.entries(header.catalogs).map(([k, c]) => [k, catalogView(c)])),
            ...(header.resource_model !== undefined && { resource_model: header.resource_model }),
            ...(header.extras && { extras: { ...header.extras } }),
            summary,
          };
        },

        'evals.cells': async ({ run: id, offset, limit }) => {
          if (!live.has(id)) await headerOf(id);
          const cells: EvalCell[] = [];
          let index = 0;
          let more = false;
          await scanCells(join(runDir(id), RUN_FILES.cells), (cell) => {
            if (index >= offset && cells.length < limit) cells.push(cellView(cell));
            else if (index >= offset) more = true;
            index++;
          });
          return { cells, next_offset: more ? offset + cells.length : null };
        },

        'evals.trace': async ({ run: id, key }) => {
          if (!live.has(id)) await headerOf(id);
          let found: CellRecord | undefined;
          await scanCells(join(runDir(id), RUN_FILES.cells), (cell) => {
            if (cell.key === key) found = cell;
          });
          if (!found) throw new WorkbenchError('not_found', `run ${id} has no cell '${key}'`, { details: { pointer: '/key' } });
          return found;
        },

        'evals.export': async ({ run: id, format }) => {
          const header = live.get(id)?.header ?? (await headerOf(id));
          const summary = await summaryOf(id, header);
          if (!summary) throw new WorkbenchError('conflict', `run ${id} has no recorded cell to report yet`, { details: { run: id } });
          const ext = { json: 'json', junit: 'junit.xml', markdown: 'md', html: 'html' }[format];
          const type = { json: 'application/json', junit: 'application/xml', markdown: 'text/markdown', html: 'text/html' }[format];
          const text = await renderEvaluationReport(format, { header, summary, cellsFile: join(runDir(id), RUN_FILES.cells) });
          return { format, filename: `skillbench-eval-${header.config_hash}.${ext}`, content_type: type, text };
        },
      };
      return { ...handlers, ...optimizeHandlers(host, optimizing, { tickMs, openModel: open }), 'catalog.health': catalogHealthHandler(host, runsDir) };
    },
  };
}

async function ensureDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return dir;
}
