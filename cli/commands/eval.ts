/**
 * `skillbench eval`: activation accuracy of skills across models, through the
 * runtime selector pipeline, with resumable runs, reports and CI gates.
 */
import { createReadStream } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { WorkbenchError } from '../../core/errors';
import { closeSharedDispatcher, openModel } from '../../core/models/index';
import type { ModelClient } from '../../core/models/types';
import type { SkillStore } from '../../core/store/types';
import { AnswerCache } from '../../evals/cache';
import { planEval, readBindingsFile, resolveTargets } from '../../evals/plan';
import { writeHtmlReport, writeJsonReport, writeJunitReport, writeMarkdownReport } from '../../evals/reports/index';
import { DEFAULT_CONCURRENCY, runEval, type RunProgress, type RunResult } from '../../evals/runner';
import type { EvalSummary } from '../../evals/types';
import type { GateOptions } from '../../evals/verdict';
import { asUsage, fraction, modelSpecs, normalizeJsonArg, parse, positiveInt } from '../args';
import { EXIT, UsageError } from '../exit';
import { checkOutputDir, checkOutputFile } from '../outputPath';
import { type CliIo, canRedraw, say } from '../io';
import type { Command } from '../main';
import { connectionLabel, formatFinding, openCliStore, reportFailure } from '../store';

const usage = `Usage: skillbench eval PATH_OR_ID... --model SPEC... [options]

Runs labelled requests through the runtime selector for every model and
reports activation accuracy per skill. PATH_OR_ID is a package file (a draft;
its identity comes from .../<namespace>/<name>.json and extra cases from the
sibling skills/evals/<namespace>/<name>.json), a workspace folder (every
package in it), or <namespace>/<name> (the published revision in --from).

The run is recorded in a folder (default .skillbench/runs/<config_hash>/) one
cell at a time; running the same command again resumes it, redoing nothing.

  --model SPEC             model to evaluate, repeatable (openai:fast, baseline:lexical, ...)
  --from CONN              store holding the catalog and published revisions
                           (default: the local registry, seeded with the examples)
  --bindings FILE          the agent's TRUVAG3_SKILL_BINDINGS_JSON list; default: every
                           skill of the skill's namespace as an optional auto binding
  --repeats N              runs of each case per model (default 1; seeds 0..N-1)
  --concurrency N          calls in flight per provider (default ${DEFAULT_CONCURRENCY}); halved on rate limits
  --timeout MS             per-attempt model timeout in milliseconds (default 60000)
  --out DIR                run folder (default .skillbench/runs/<config_hash>)
  --no-cache               do not answer from or write to the answer cache (.skillbench/cache)
  --compare-published      also run each draft's published revision and compare them
  --json F                 JSON report to file F ('-' or no value: stdout)
  --junit F                JUnit XML report
  --markdown F             Markdown report
  --html F                 standalone HTML report
  --min-accuracy X         fail (exit 1) when a skill's accuracy is below X (0..1)
  --min-recall X           fail when recall is below X
  --min-precision X        fail when precision is below X
  --fail-on-regression     fail when a draft is worse than its published revision
                           (implies --compare-published; see docs/eval-runs.md)

Exit codes: 0 ok, 1 gate failed or invalid input package, 2 usage, 5 skill not
found, 6 every cell of a model errored (model unavailable), 130 interrupted.`;

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

function printSummary(io: CliIo, summary: EvalSummary): void {
  const rows: string[][] = [['model', 'skill', 'variant', 'cells', 'acc', 'prec', 'recall', 'F1', 'TP', 'FP', 'TN', 'FN', 'err', 'inv', 'flaky']];
  for (const m of summary.models) {
    for (const s of m.skills) {
      rows.push([m.model, s.skill, s.variant, String(s.cells), rate(s.accuracy), rate(s.precision), rate(s.recall), rate(s.f1), String(s.tp), String(s.fp), String(s.tn), String(s.fn), String(s.errors), String(s.invalid), String(s.flaky_cases.length)]);
    }
  }
  say(io, '');
  for (const line of table(rows)) say(io, line);
  say(io, '');
  for (const m of summary.models) {
    const cost = m.cost_usd === null ? 'cost unknown' : `cost $${m.cost_usd.toFixed(4)}`;
    const latency = m.latency_p50_ms === null ? 'no answers' : `latency p50 ${m.latency_p50_ms} ms, p95 ${m.latency_p95_ms} ms`;
    say(io, `${m.model}${m.isBaseline ? ' (baseline, not a language model)' : ''}: ${latency}, tokens ${m.input_tokens} in / ${m.output_tokens} out, ${cost}, ${m.cached ?? 0} cached, ${m.errors} error${m.errors === 1 ? '' : 's'}`);
    for (const s of m.skills) {
      const stolen = Object.entries(s.stolen_by ?? {});
      if (stolen.length > 0) say(io, `  ${s.skill} (${s.variant}) missed requests went to: ${stolen.map(([k, n]) => `${k} (${n})`).join(', ')}`);
      if (s.resource_accuracy !== null) say(io, `  ${s.skill} (${s.variant}) resource selection: ${rate(s.resource_accuracy)} over ${s.resource_cases} case${s.resource_cases === 1 ? '' : 's'}`);
    }
  }
  for (const c of summary.comparisons) {
    const who = c.kind === 'variant' ? `${c.model} ${c.skill}` : `${c.skill} (${c.variant})`;
    const verdict = c.test.significant ? 'significant' : 'not significant';
    const left = c.cases.length - c.pairs;
    const leftOut = left > 0 ? `, ${left} left out (${c.flaky_a + c.flaky_b > 0 ? `flaky: ${c.flaky_a} on ${c.a}, ${c.flaky_b} on ${c.b}` : ''}${c.flaky_a + c.flaky_b > 0 && c.unanswered > 0 ? '; ' : ''}${c.unanswered > 0 ? `${c.unanswered} unanswered` : ''})` : '';
    const trigger = c.mean_abs_trigger_rate_difference === null ? '' : `; mean per-case trigger-rate difference ${c.mean_abs_trigger_rate_difference.toFixed(3)}`;
    say(io, `compare ${who}: ${c.a} ${rate(c.accuracy_a)} vs ${c.b} ${rate(c.accuracy_b)} on ${c.pairs} paired case${c.pairs === 1 ? '' : 's'}${leftOut}, McNemar p=${c.test.pValue.toPrecision(3)} (${verdict})${trigger}`);
  }
  for (const w of summary.verdict.warnings) if (w.code !== 'cell_errors') say(io, `warning: ${w.message}`);
  for (const g of summary.gates) say(io, `gate ${g.gate}: ${g.passed ? 'pass' : 'FAIL'}: ${g.message}`);
}

async function writeReports(io: CliIo, result: RunResult, files: { json?: string; junit?: string; markdown?: string; html?: string }): Promise<void> {
  const { header, summary, cellsFile, runDir } = result;
  const at = (f: string) => resolve(io.cwd, f);
  if (files.json !== undefined) {
    if (files.json === '-') {
      const file = join(runDir, 'report.json');
      await writeJsonReport(file, header, summary, cellsFile);
      await pipeline(createReadStream(file), io.stdout, { end: false });
    } else {
      await writeJsonReport(at(files.json), header, summary, cellsFile);
      say(io, `JSON report: ${files.json}`);
    }
  }
  if (files.junit !== undefined) {
    await writeJunitReport(at(files.junit), header, summary, cellsFile);
    say(io, `JUnit report: ${files.junit}`);
  }
  if (files.markdown !== undefined) {
    await writeMarkdownReport(at(files.markdown), header, summary);
    say(io, `Markdown report: ${files.markdown}`);
  }
  if (files.html !== undefined) {
    await writeHtmlReport(at(files.html), header, summary, cellsFile);
    say(io, `HTML report: ${files.html}`);
  }
}

async function run(rawArgs: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(normalizeJsonArg(rawArgs), {
    model: { type: 'string', multiple: true },
    from: { type: 'string' },
    bindings: { type: 'string' },
    repeats: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    out: { type: 'string' },
    'no-cache': { type: 'boolean' },
    'compare-published': { type: 'boolean' },
    json: { type: 'string' },
    junit: { type: 'string' },
    markdown: { type: 'string' },
    html: { type: 'string' },
    'min-accuracy': { type: 'string' },
    'min-recall': { type: 'string' },
    'min-precision': { type: 'string' },
    'fail-on-regression': { type: 'boolean' },
  });
  if (positionals.length === 0) throw new UsageError('give at least one package file, workspace folder or <namespace>/<name>');
  const specs = modelSpecs(values.model);
  const repeats = positiveInt(values.repeats, '--repeats') ?? 1;
  const concurrency = positiveInt(values.concurrency, '--concurrency') ?? DEFAULT_CONCURRENCY;
  const timeoutMs = positiveInt(values.timeout, '--timeout') ?? 60_000;
  const gates: GateOptions = {};
  const minAccuracy = fraction(values['min-accuracy'], '--min-accuracy');
  const minRecall = fraction(values['min-recall'], '--min-recall');
  const minPrecision = fraction(values['min-precision'], '--min-precision');
  if (minAccuracy !== undefined) gates.minAccuracy = minAccuracy;
  if (minRecall !== undefined) gates.minRecall = minRecall;
  if (minPrecision !== undefined) gates.minPrecision = minPrecision;
  if (values['fail-on-regression']) gates.failOnRegression = true;
  const comparePublished = values['compare-published'] === true || values['fail-on-regression'] === true;
  for (const flag of ['json', 'junit', 'markdown', 'html'] as const) {
    const v = values[flag];
    if (v !== undefined && v.trim() === '') throw new UsageError(`--${flag} needs a file name`);
    if (v === '-' && flag !== 'json') throw new UsageError(`--${flag} writes a file; only --json can go to stdout`);
    // Checked before the run, so a typo does not cost the run's calls.
    if (v !== undefined && v !== '-') await checkOutputFile(`--${flag}`, v, io.cwd);
  }
  if (values.out !== undefined) await checkOutputDir('--out', values.out, io.cwd);
  const { targets, skipped } = await asUsage(resolveTargets(positionals, { cwd: io.cwd }));
  for (const entry of skipped) say(io, `skillbench eval: ${entry.file}: ${entry.message} (skipped)`);
  const bindings = values.bindings !== undefined ? await asUsage(readBindingsFile(values.bindings, { cwd: io.cwd }), '--bindings') : undefined;
  const source = connectionLabel(values.from, io);

  let store: SkillStore | undefined;
  const models: ModelClient[] = [];
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
    const plans = await planEval(targets, {
      store,
      cwd: io.cwd,
      ...(bindings && { bindings, bindingsFile: values.bindings! }),
      comparePublished,
      source,
    });
    if (!plans.ok) {
      for (const problem of plans.problems) {
        say(io, `skillbench eval: ${problem.message}${problem.findings.length > 0 ? ':' : ''}`);
        for (const f of problem.findings) say(io, formatFinding(problem.file ?? problem.skill, f));
      }
      return EXIT.invalid;
    }
    for (const w of plans.warnings) say(io, `warning: ${w.message}`);
    for (const spec of specs) models.push(await openModel(spec, { env: io.env, timeoutMs, retries: { retryOn: ['server'] } }));
    const cache = values['no-cache'] ? undefined : new AnswerCache(join(io.cwd, '.skillbench', 'cache'));

    process.on('SIGINT', onSigint);
    const result = await runEval(
      {
        models,
        skills: plans.skills,
        repeats,
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
    printSummary(io, summary);
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
    await Promise.allSettled(models.map((m) => m.close?.()));
    await store?.close();
    await closeSharedDispatcher();
  }
}

/** The `eval` command. */
export const command: Command = { summary: 'Evaluate skill activation accuracy across models (resumable, CI gates)', usage, run };
