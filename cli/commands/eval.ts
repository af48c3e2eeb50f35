/**
 * `skillbench eval`: activation accuracy of skills across models, through the
 * runtime selector pipeline, with resumable runs, reports and CI gates.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { WorkbenchError } from '../../core/errors';
import { closeSharedDispatcher } from '../../core/models/index';
import { describeCaseOrigins } from '../../core/report/cases';
import { exampleWorkspaceDir } from '../../core/store/seed';
import type { SkillStore } from '../../core/store/types';
import { AnswerCache } from '../../evals/cache';
import { readBindingsFile, resolveTargets } from '../../evals/plan';
import { DEFAULT_CONCURRENCY, type RunProgress, type RunResult } from '../../evals/runner';
import {
  MAX_EVAL_CONCURRENCY,
  MAX_EVAL_REPEATS,
  MAX_EVAL_TIMEOUT_MS,
  cellCauses,
  openEvaluationModels,
  planEvaluation,
  runEvaluation,
  writeEvaluationReport,
  type CellCause,
  type EvaluationSettings,
  type OpenedModels,
  type ReportFiles,
} from '../../evals/service';
import type { EvalSummary } from '../../evals/types';
import { DEFAULT_REGRESSION_MARGIN, MAX_REGRESSION_MARGIN, type GateOptions } from '../../evals/verdict';
import { asUsage, fraction, modelSpecs, normalizeJsonArg, parse, positiveInt } from '../args';
import { EXIT, UsageError } from '../exit';
import { checkOutputDir, checkOutputFile } from '../outputPath';
import { readLimitsArg } from '../selectorArgs';
import { type CliIo, canRedraw, say } from '../io';
import type { Command } from '../main';
import { connectionLabel, formatFinding, openCliStore, reportFailure } from '../store';

const usage = `Usage: skillbench eval PATH_OR_ID... --model SPEC... [options]

Runs labelled requests through the runtime selector for every model and
reports activation accuracy per skill. PATH_OR_ID is a package file (a draft),
a workspace folder (every package in it), or <namespace>/<name> (the published
revision in --from).

Each skill brings its activation examples plus the extra cases of its
workspace, skills/evals/<namespace>/<name>.json: for a package file, the
workspace it lies in; for <namespace>/<name>, --workspace (default: the working
directory when it holds skills/, else the example workspace the default
registry is seeded from, as \`skillbench serve\` opens it). The run prints and
records how many came from each ("11 activation examples + 8 extra cases").

The run is recorded in a folder (default .skillbench/runs/<config_hash>/) one
cell at a time; running the same command again resumes it, redoing nothing.

  --model SPEC             activation model to evaluate, repeatable: the matrix's
                           columns (openai:fast, baseline:lexical, ...)
  --resource-model SPEC    one resource-selection model for every --model (guide 9.4);
                           default: each model selects its own resources
  --from CONN              store holding the catalog and published revisions
                           (default: the local registry, seeded with the examples)
  --workspace DIR          workspace whose skills/evals serves <namespace>/<name> targets
  --bindings FILE          the agent's TRUVAG3_SKILL_BINDINGS_JSON list; default: every
                           skill of the skill's namespace as an optional auto binding
  --limits FILE_OR_JSON    selector limits (guide 9.10) as a JSON object, as select takes them
  --repeats N              runs of each case per model, 1..${MAX_EVAL_REPEATS} (default 1; seeds 0..N-1)
  --concurrency N          calls in flight per provider, 1..${MAX_EVAL_CONCURRENCY} (default ${DEFAULT_CONCURRENCY}); halved on rate limits
  --timeout MS             per-attempt model timeout in milliseconds (default 60000)
  --out DIR                run folder (default .skillbench/runs/<config_hash>)
  --no-cache               do not answer from or write to the answer cache (.skillbench/cache)
  --compare-published      also run each draft's published revision and compare them
  --no-adjacent-negatives  do not run each skill's should-activate examples as should-not
                           cases of the other skills under test in its catalog (counted
                           apart as "adjacent"; see docs/catalog-health.md)
  --json F                 JSON report to file F ('-' or no value: stdout)
  --junit F                JUnit XML report
  --markdown F             Markdown report
  --html F                 standalone HTML report
  --min-accuracy X         fail (exit 1) when a skill's accuracy is below X (0..1)
  --min-recall X           fail when recall is below X
  --min-precision X        fail when precision is below X
  --fail-on-regression     fail unless each draft is shown non-inferior to its published
                           revision (implies --compare-published; see docs/eval-runs.md)
  --regression-margin X    the loss in paired accuracy tolerated, 0..${MAX_REGRESSION_MARGIN} (default ${DEFAULT_REGRESSION_MARGIN}):
                           fail when the upper 95 % bound of the loss exceeds X
  --reference-model SPEC   fail unless every other --model is non-inferior to SPEC (one of --model)
  --max-error-rate R       share of a model's cells that may end in an error (default 0);
                           above it the run reaches no verdict (exit 9)
  --max-invalid-rate R     share of a model's answers that may be unusable (default 0; exit 9)
  --allow-skipped-activation
                           measure a catalog the selector skips (over budget) on purpose:
                           a selector that never asked the model is not exit 9

Rates count usable answers only: error cells and unusable answers (the runtime
rejected them) are their own outcomes, shown next to every rate.

Exit codes: 0 ok, 1 gate failed or invalid input package, 2 usage, 5 skill not
found, 6 every cell of a model errored (model unavailable), 9 incomplete: no
verdict (error cells or unusable answers above the limits, or the selector never
asked the model), 130 interrupted.`;

/** Exit code of an interrupted run (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;
const PROGRESS_LINE_MS = 5_000;
const PROGRESS_TTY_MS = 100;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Progress on stderr: a redrawn bar on a terminal, a plain line every few seconds otherwise. */
class ProgressDisplay {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly io: CliIo,
    private progress: RunProgress,
  ) {}

  update(progress: RunProgress, force = false): void {
    this.progress = progress;
    const now = performance.now();
    const every = canRedraw(this.io) ? PROGRESS_TTY_MS : PROGRESS_LINE_MS;
    if (!force && now - this.last < every) return;
    this.last = now;
    const p = progress;
    const eta = p.etaMs === null ? Infinity : p.etaMs / 1000;
    const text = `${p.done}/${p.total} cells, ${p.rate.toFixed(1)}/s, ETA ${duration(eta)}, ${p.errors} error${p.errors === 1 ? '' : 's'}`;
    if (canRedraw(this.io)) {
      const width = 24;
      const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
      this.io.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\u001b[K`);
      this.drawn = true;
    } else {
      say(this.io, `eval: ${text}`);
    }
  }

  /** Ends the bar's line so the next message starts clean. */
  close(): void {
    if (this.drawn) this.io.stderr.write('\n');
    this.drawn = false;
  }

  /** Prints a message above the bar. */
  note(line: string): void {
    if (this.drawn) this.io.stderr.write('\r\u001b[K');
    say(this.io, line);
    this.drawn = false;
    this.update(this.progress, true);
  }
}

const rate = (x: number | null) => (x === null ? '  n/a' : x.toFixed(3));

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd());
}

/** `17/19`: the usable answers a row's rates rest on, out of its cells. */
const usable = (s: { cells: number; errors: number; invalid: number }) => `${s.cells - s.errors - s.invalid}/${s.cells}`;

function printSummary(io: CliIo, summary: EvalSummary, causes: Map<string, CellCause[]>): void {
  const rows: string[][] = [['model', 'skill', 'variant', 'usable', 'acc', 'prec', 'recall', 'F1', 'TP', 'FP', 'TN', 'FN', 'err', 'unusable', 'flaky']];
  for (const m of summary.models) {
    for (const s of m.skills) {
      rows.push([m.model, s.skill, s.variant, usable(s), rate(s.accuracy), rate(s.precision), rate(s.recall), rate(s.f1), String(s.tp), String(s.fp), String(s.tn), String(s.fn), String(s.errors), String(s.invalid), String(s.flaky_cases.length)]);
    }
  }
  say(io, '');
  for (const line of table(rows)) say(io, line);
  say(io, '(rates over the usable answers only: errors and unusable answers count in no rate)');
  say(io, '');
  for (const m of summary.models) {
    const cost = m.cost_usd === null ? 'cost unknown' : `cost $${m.cost_usd.toFixed(4)}`;
    const latency = m.latency_p50_ms === null ? 'no answers' : `latency p50 ${m.latency_p50_ms} ms, p95 ${m.latency_p95_ms} ms`;
    say(io, `${m.model}${m.isBaseline ? ' (baseline, not a language model)' : ''}: ${latency}, tokens ${m.input_tokens} in / ${m.output_tokens} out, ${cost}, ${m.cached ?? 0} cached, ${m.errors} error${m.errors === 1 ? '' : 's'}, ${m.invalid} unusable`);
    for (const s of m.skills) {
      const stolen = Object.entries(s.stolen_by ?? {});
      if (stolen.length > 0) say(io, `  ${s.skill} (${s.variant}) missed requests went to: ${stolen.map(([k, n]) => `${k} (${n})`).join(', ')}`);
      if (s.resource_accuracy !== null) say(io, `  ${s.skill} (${s.variant}) resource selection: ${rate(s.resource_accuracy)} over ${s.resource_cases} case${s.resource_cases === 1 ? '' : 's'}`);
    }
    // The first distinct causes, so "model unavailable" never hides "no API key" in cells.jsonl.
    for (const c of causes.get(m.model) ?? []) say(io, `  ${c.kind === 'error' ? 'error' : 'unusable answer'} (${c.cells} cell${c.cells === 1 ? '' : 's'}): ${c.message}`);
  }
  for (const c of summary.comparisons) {
    const who = c.kind === 'variant' ? `${c.model} ${c.skill}` : `${c.skill} (${c.variant})`;
    const verdict = c.test.significant ? 'significant' : 'not significant';
    const left = c.cases.length - c.pairs;
    const leftOut = left > 0 ? `, ${left} left out (${c.flaky_a + c.flaky_b > 0 ? `flaky: ${c.flaky_a} on ${c.a}, ${c.flaky_b} on ${c.b}` : ''}${c.flaky_a + c.flaky_b > 0 && c.unanswered > 0 ? '; ' : ''}${c.unanswered > 0 ? `${c.unanswered} unanswered` : ''})` : '';
    const trigger = c.mean_abs_trigger_rate_difference === null ? '' : `; mean per-case trigger-rate difference ${c.mean_abs_trigger_rate_difference.toFixed(3)}`;
    say(io, `compare ${who}: ${c.a} ${rate(c.accuracy_a)} vs ${c.b} ${rate(c.accuracy_b)} on ${c.pairs} paired case${c.pairs === 1 ? '' : 's'}${leftOut}, McNemar p=${c.test.pValue.toPrecision(3)} (${verdict})${trigger}`);
  }
  // Every warning, error cells included: as loud here as in the HTML report.
  for (const w of summary.verdict.warnings) say(io, `warning: ${w.message}`);
  for (const g of summary.gates) say(io, `gate ${g.gate}: ${g.passed ? 'pass' : 'FAIL'}: ${g.message}`);
  for (const r of summary.verdict.reasons ?? []) say(io, `NO VERDICT: ${r.message}`);
}

/** The report files, written by the evaluation service; `--json -` goes to stdout. */
async function writeReports(io: CliIo, result: RunResult, files: ReportFiles): Promise<void> {
  const at = (f: string) => resolve(io.cwd, f);
  const names = { json: 'JSON', junit: 'JUnit', markdown: 'Markdown', html: 'HTML' } as const;
  for (const format of ['json', 'junit', 'markdown', 'html'] as const) {
    const file = files[format];
    if (file === undefined) continue;
    if (format === 'json' && file === '-') {
      const copy = join(result.runDir, 'report.json');
      await writeEvaluationReport('json', copy, result);
      await pipeline(createReadStream(copy), io.stdout, { end: false });
      continue;
    }
    await writeEvaluationReport(format, at(file), result);
    say(io, `${names[format]} report: ${file}`);
  }
}

/** Whether `dir` is a workspace: it holds `skills/packages` or `skills/evals`. */
async function isWorkspace(dir: string): Promise<boolean> {
  for (const sub of ['packages', 'evals']) {
    try {
      if ((await stat(join(dir, 'skills', sub))).isDirectory()) return true;
    } catch {
      // Not there: try the other.
    }
  }
  return false;
}

/**
 * The evaluating workspace: whose `skills/evals` serves a `<namespace>/<name>`
 * target. `--workspace DIR`; else the working directory when it is a
 * workspace; else the example workspace, the one the default registry is
 * seeded from and `skillbench serve` opens, so the README's eval and the
 * workbench's Evaluate of a published example skill bring the same cases.
 */
async function evaluatingWorkspace(value: string | undefined, io: CliIo): Promise<string> {
  if (value !== undefined) {
    if (value.trim() === '') throw new UsageError('--workspace needs a folder');
    const dir = resolve(io.cwd, value);
    const isDir = await stat(dir).then(
      (st) => st.isDirectory(),
      () => false,
    );
    if (!isDir) throw new UsageError(`--workspace: ${value} is not a folder`);
    return dir;
  }
  return (await isWorkspace(io.cwd)) ? io.cwd : exampleWorkspaceDir();
}

async function run(rawArgs: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(normalizeJsonArg(rawArgs), {
    model: { type: 'string', multiple: true },
    'resource-model': { type: 'string' },
    from: { type: 'string' },
    workspace: { type: 'string' },
    bindings: { type: 'string' },
    limits: { type: 'string' },
    repeats: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    out: { type: 'string' },
    'no-cache': { type: 'boolean' },
    'compare-published': { type: 'boolean' },
    'no-adjacent-negatives': { type: 'boolean' },
    json: { type: 'string' },
    junit: { type: 'string' },
    markdown: { type: 'string' },
    html: { type: 'string' },
    'min-accuracy': { type: 'string' },
    'min-recall': { type: 'string' },
    'min-precision': { type: 'string' },
    'fail-on-regression': { type: 'boolean' },
    'regression-margin': { type: 'string' },
    'reference-model': { type: 'string' },
    'max-error-rate': { type: 'string' },
    'max-invalid-rate': { type: 'string' },
    'allow-skipped-activation': { type: 'boolean' },
  });
  if (positionals.length === 0) throw new UsageError('give at least one package file, workspace folder or <namespace>/<name>');
  const specs = modelSpecs(values.model);
  const resourceModel = values['resource-model'];
  if (resourceModel !== undefined) modelSpecs([resourceModel], '--resource-model');
  const repeats = positiveInt(values.repeats, '--repeats', MAX_EVAL_REPEATS) ?? 1;
  const concurrency = positiveInt(values.concurrency, '--concurrency', MAX_EVAL_CONCURRENCY) ?? DEFAULT_CONCURRENCY;
  const timeoutMs = positiveInt(values.timeout, '--timeout', MAX_EVAL_TIMEOUT_MS) ?? 60_000;
  const gates: GateOptions = {};
  const minAccuracy = fraction(values['min-accuracy'], '--min-accuracy');
  const minRecall = fraction(values['min-recall'], '--min-recall');
  const minPrecision = fraction(values['min-precision'], '--min-precision');
  if (minAccuracy !== undefined) gates.minAccuracy = minAccuracy;
  if (minRecall !== undefined) gates.minRecall = minRecall;
  if (minPrecision !== undefined) gates.minPrecision = minPrecision;
  if (values['fail-on-regression']) gates.failOnRegression = true;
  const margin = fraction(values['regression-margin'], '--regression-margin');
  if (margin !== undefined) {
    if (margin > MAX_REGRESSION_MARGIN) throw new UsageError(`--regression-margin must be a number from 0 to ${MAX_REGRESSION_MARGIN}, got '${values['regression-margin']}'`);
    gates.regressionMargin = margin;
  }
  const reference = values['reference-model'];
  if (reference !== undefined) {
    if (!specs.includes(reference)) throw new UsageError(`--reference-model must be one of the --model specs, got '${reference}'`);
    if (specs.length < 2) throw new UsageError('--reference-model needs at least one other --model to compare with it');
    gates.referenceModel = reference;
  }
  const maxErrorRate = fraction(values['max-error-rate'], '--max-error-rate');
  const maxInvalidRate = fraction(values['max-invalid-rate'], '--max-invalid-rate');
  if (maxErrorRate !== undefined) gates.maxErrorRate = maxErrorRate;
  if (maxInvalidRate !== undefined) gates.maxInvalidRate = maxInvalidRate;
  if (values['allow-skipped-activation']) gates.allowSkippedActivation = true;
  const comparePublished = values['compare-published'] === true || values['fail-on-regression'] === true;
  for (const flag of ['json', 'junit', 'markdown', 'html'] as const) {
    const v = values[flag];
    if (v !== undefined && v.trim() === '') throw new UsageError(`--${flag} needs a file name`);
    if (v === '-' && flag !== 'json') throw new UsageError(`--${flag} writes a file; only --json can go to stdout`);
    // Checked before the run, so a typo does not cost the run's calls.
    if (v !== undefined && v !== '-') await checkOutputFile(`--${flag}`, v, io.cwd);
  }
  if (values.out !== undefined) await checkOutputDir('--out', values.out, io.cwd);
  const limits = await readLimitsArg(values.limits, io);
  const workspace = await evaluatingWorkspace(values.workspace, io);
  const { targets, skipped } = await asUsage(resolveTargets(positionals, { cwd: io.cwd, workspace }));
  for (const entry of skipped) say(io, `skillbench eval: ${entry.file}: ${entry.message} (skipped)`);
  const bindings = values.bindings !== undefined ? await asUsage(readBindingsFile(values.bindings, { cwd: io.cwd }), '--bindings') : undefined;
  const settings: EvaluationSettings = {
    models: specs,
    ...(resourceModel !== undefined && { resourceModel }),
    repeats,
    comparePublished,
    ...(bindings && { bindings, bindingsSource: values.bindings! }),
    ...(limits && { limits: limits.given }),
    ...(values['no-adjacent-negatives'] === true && { adjacentNegatives: false }),
  };
  const source = connectionLabel(values.from, io);

  let store: SkillStore | undefined;
  let models: OpenedModels | undefined;
  const stop = new AbortController();
  const hard = new AbortController();
  let interrupts = 0;
  let display: ProgressDisplay | undefined;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      stop.abort();
      const line = 'interrupted: finishing the cells in flight (press Ctrl-C again to abort them)';
      if (display) display.note(line);
      else say(io, line);
    } else hard.abort();
  };
  try {
    store = await openCliStore(values.from, io);
    const plan = await planEvaluation(targets, settings, { store, source, cwd: io.cwd });
    if (!plan.ok) {
      for (const problem of plan.problems) {
        say(io, `skillbench eval: ${problem.message}${problem.findings.length > 0 ? ':' : ''}`);
        for (const f of problem.findings) say(io, formatFinding(problem.file ?? problem.skill, f));
      }
      return EXIT.invalid;
    }
    for (const w of plan.warnings) say(io, `warning: ${w.message}`);
    for (const c of plan.cases) say(io, `cases of ${c.skill}: ${describeCaseOrigins(c, c.extras)}`);
    models = await openEvaluationModels(settings, { env: io.env, timeoutMs });
    const cache = values['no-cache'] ? undefined : new AnswerCache(join(io.cwd, '.skillbench', 'cache'));

    process.on('SIGINT', onSigint);
    const result = await runEvaluation(
      plan,
      models,
      {
        concurrency,
        cwd: io.cwd,
        ...(values.out !== undefined && { runDir: resolve(io.cwd, values.out) }),
        ...(cache && { cache }),
        gates,
        ...(io.redact && { redact: io.redact }),
        stopSignal: stop.signal,
        signal: hard.signal,
      },
      {
        onStart({ header, runDir, progress, tornLine }) {
          const shown = relative(io.cwd, runDir) || runDir;
          const what = `${header.models.length} model${header.models.length === 1 ? '' : 's'} x ${header.cases.length} case${header.cases.length === 1 ? '' : 's'} x ${repeats} repeat${repeats === 1 ? '' : 's'} (${progress.total} cells)`;
          say(io, progress.resumed > 0 ? `resuming run ${header.config_hash} in ${shown}: ${progress.resumed} of ${progress.total} cells already recorded` : `run ${header.config_hash}: ${what} in ${shown}`);
          if (tornLine) say(io, 'the last cell of the previous attempt was cut off mid-write; it will be redone');
          display = new ProgressDisplay(io, progress);
        },
        onCell(_cell, progress) {
          display?.update(progress, progress.done === progress.total);
        },
        onRateLimit({ provider, concurrency: now, waitMs }) {
          display?.note(`rate limited by ${provider}: concurrency now ${now}, retrying in ${Math.round(waitMs)} ms`);
        },
      },
    );
    display?.close();
    if (!result.complete) {
      const shown = relative(io.cwd, result.runDir) || result.runDir;
      say(io, `interrupted: ${result.progress.done} of ${result.progress.total} cells recorded in ${shown}; run the same command again to resume`);
      return EXIT_INTERRUPTED;
    }
    const { summary } = result;
    printSummary(io, summary, await cellCauses(result.cellsFile));
    if (result.cache && (result.cache.hits > 0 || result.cache.misses > 0)) say(io, `answer cache: ${result.cache.hits} hit${result.cache.hits === 1 ? '' : 's'}, ${result.cache.misses} miss${result.cache.misses === 1 ? '' : 'es'}`);
    await writeReports(io, result, {
      ...(values.json !== undefined && { json: values.json }),
      ...(values.junit !== undefined && { junit: values.junit }),
      ...(values.markdown !== undefined && { markdown: values.markdown }),
      ...(values.html !== undefined && { html: values.html }),
    });
    const { verdict } = summary;
    if (verdict.status === 'unavailable') {
      say(io, `skillbench eval: ${verdict.message}`);
      return EXIT.unavailable;
    }
    if (verdict.status === 'incomplete') {
      say(io, `skillbench eval: INCOMPLETE, no verdict reached (exit ${EXIT.incomplete}): ${verdict.message.replace(/^incomplete: /, '')}`);
      return EXIT.incomplete;
    }
    if (verdict.status === 'failed') {
      say(io, `skillbench eval: ${verdict.gates_failed} gate${verdict.gates_failed === 1 ? '' : 's'} failed`);
      return EXIT.invalid;
    }
    return EXIT.ok;
  } catch (error) {
    display?.close();
    if (error instanceof WorkbenchError && error.code === 'invalid_request') throw new UsageError(error.message);
    return reportFailure(io, 'eval', error, { json: false });
  } finally {
    process.off('SIGINT', onSigint);
    await models?.close();
    await store?.close();
    await closeSharedDispatcher();
  }
}

/** The `eval` command. */
export const command: Command = { summary: 'Evaluate skill activation accuracy across models (resumable, CI gates)', usage, run };
