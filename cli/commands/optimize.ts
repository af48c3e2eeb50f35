/**
 * `skillbench optimize FILE --model SPEC...`: the description optimizer
 * (evals/optimize.ts). Thin: parse, open the store, models and proposer,
 * call the optimizer, print and write its report.
 */
import { join } from 'node:path';
import { resolve } from 'node:path';
import { closeSharedDispatcher, openModel } from '../../core/models/index';
import type { ModelClient } from '../../core/models/types';
import type { SkillStore } from '../../core/store/types';
import { AnswerCache } from '../../evals/cache';
import { freshSeed, OPTIMIZE_DEFAULTS, optimizeDescription, type ModelScore, type OptimizeEvent, type OptimizeReport } from '../../evals/optimize';
import { readBindingsFile, resolveTargets } from '../../evals/plan';
import { KEYWORD_PROPOSER_SPEC, openProposer } from '../../evals/proposers';
import { writeOptimizeHtml } from '../../evals/reports/optimizeHtml';
import { writeReportFile } from '../../evals/reports/sink';
import { DEFAULT_CONCURRENCY } from '../../evals/runner';
import { asUsage, fraction, modelSpecs, normalizeJsonArg, parse, positiveInt } from '../args';
import { EXIT, UsageError } from '../exit';
import { checkOutputFile } from '../outputPath';
import { type CliIo, say } from '../io';
import type { Command } from '../main';
import { connectionLabel, formatFinding, openCliStore, reportFailure } from '../store';

const usage = `Usage: skillbench optimize FILE --model SPEC... [options]

Rewrites the catalog description of the package in FILE against its real
competing catalog, on every --model at once, and proposes the change only when
held-out cases prove it better. The cases (activation examples plus
skills/evals extras) are split into train and held-out sets by expectation
with a recorded seed; each round the proposer sees the current description,
the train failures with their traces and the catalog-budget headroom (never a
held-out case) and proposes candidates; candidates that fail validation or
push the catalog over its token budget are dropped with the reason; the rest
are evaluated on the train cases; the best by mean train accuracy goes
forward. The winner is scored once on the held-out cases against the original,
case by case (McNemar, as eval), and answer by answer: a gain is refused when
it costs any model answers (its false activations or wrong answers rise by more
than --harm-margin, or significantly by a signed-rank test), even where every
case keeps its majority. Nothing is published and FILE is not changed.

  --model SPEC          evaluated model, repeatable (baseline:lexical, openai:fast, ...)
  --proposer SPEC       ${KEYWORD_PROPOSER_SPEC} (default: mechanical suggestions, no model) or a
                        model spec (openai:smart, anthropic:smart, ...)
  --rounds N            proposal rounds (default ${OPTIMIZE_DEFAULTS.rounds})
  --candidates N        candidates evaluated per round (default ${OPTIMIZE_DEFAULTS.candidatesPerRound})
  --holdout X           share of each stratum held out (default ${OPTIMIZE_DEFAULTS.holdout})
  --repeats N           runs of each case per model (default 1)
  --harm-margin X       the most the winner may raise any model's false-activation
                        rate on held-out should-not cases, or lower its share of
                        right answers, before the gain is refused (default ${OPTIMIZE_DEFAULTS.harmMargin};
                        0 tolerates none)
  --seed S              split seed, 0..4294967295 (default: random, printed and recorded)
  --from CONN           store holding the competing catalog (default: the local registry)
  --bindings FILE       the agent's binding list (default: the skill's namespace)
  --concurrency N       calls in flight per provider (default ${DEFAULT_CONCURRENCY})
  --timeout MS          per-attempt model timeout in milliseconds (default 60000)
  --no-cache            do not answer from or write to the answer cache (.skillbench/cache)
  --json F              JSON report to F ('-' or no value: stdout):
                        {verdict, winner, candidates, split, seed, ...}
  --html F              standalone HTML report

Exit codes: 0 done (either verdict), 1 invalid package or cases (also too
few held-out cases to prove a gain: the message says how many to add),
2 usage, 5 not found, 6 a model unavailable, 130 interrupted (run again to
resume).`;

const EXIT_INTERRUPTED = 130;
const PROGRESS_LINE_MS = 5_000;

const rate = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));
const scores = (list: readonly ModelScore[] | undefined) => (list ?? []).map((s) => rate(s.accuracy)).join(' / ');

function seedArg(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(value) || Number(value) > 0xffffffff) throw new UsageError(`--seed must be an integer from 0 to 4294967295, got '${value}'`);
  return Number(value);
}

function holdoutArg(value: string | undefined): number | undefined {
  const x = fraction(value, '--holdout');
  if (x !== undefined && (x <= 0 || x >= 1)) throw new UsageError(`--holdout must be between 0 and 1 (exclusive), got '${value}'`);
  return x;
}

/** Progress on stderr: phases as they start, and cell counts every few seconds. */
function progressPrinter(io: CliIo): (event: OptimizeEvent) => void {
  let last = 0;
  return (event) => {
    switch (event.type) {
      case 'split':
        return;
      case 'run_started': {
        last = performance.now();
        const what = event.phase === 'heldout' ? 'held-out run' : event.round === 0 ? 'train run of the original' : `round ${event.round} train run`;
        say(io, `${what}: ${event.variants.length} description${event.variants.length === 1 ? '' : 's'}, ${event.cells} cells${event.resumed > 0 ? ` (${event.resumed} already recorded)` : ''}`);
        return;
      }
      case 'cell': {
        const now = performance.now();
        if (now - last < PROGRESS_LINE_MS && event.progress.done !== event.progress.total) return;
        last = now;
        if (event.progress.done !== event.progress.total) say(io, `  ${event.progress.done}/${event.progress.total} cells, ${event.progress.errors} errors`);
        return;
      }
      case 'proposed':
        for (const c of event.candidates) {
          if (c.status === 'dropped') say(io, `  ${c.id}  dropped (${c.reason}): ${c.message}`);
        }
        return;
      case 'round_finished':
      case 'finished':
        return;
    }
  };
}

function printReport(io: CliIo, report: OptimizeReport): void {
  const models = report.models.map((m) => m.spec).join(' / ');
  say(io, '');
  say(io, `${report.skill}: train accuracy per model (${models})`);
  say(io, `  original  ${scores(report.original.train)}  mean ${rate(report.original.mean_train)}  catalog ${report.original.catalog_tokens} tokens`);
  for (const c of report.candidates) {
    if (c.status !== 'evaluated') continue;
    const delta = c.catalog_tokens! - report.original.catalog_tokens;
    const forward = report.rounds.find((r) => r.round === c.round)?.advanced && report.rounds.find((r) => r.round === c.round)?.best === c.id;
    say(io, `  ${c.id.padEnd(8)}  ${scores(c.train)}  mean ${rate(c.mean_train)}  catalog ${c.catalog_tokens} tokens (${delta >= 0 ? '+' : ''}${delta})${forward ? '  went forward' : ''}`);
  }
  const dropped = report.candidates.filter((c) => c.status === 'dropped');
  if (dropped.length > 0) say(io, `  ${dropped.length} candidate${dropped.length === 1 ? '' : 's'} dropped: ${dropped.map((c) => `${c.id} (${c.reason})`).join(', ')}`);
  for (const r of report.rounds) for (const n of r.notes) say(io, `  round ${r.round}: ${n}`);
  if (report.heldout && report.best) {
    say(io, '');
    say(io, `held-out (${report.split.heldout.length} cases): ${report.best.candidate} against the original`);
    for (const h of report.heldout) {
      const t = h.comparison.test;
      const a = h.answers;
      say(io, `  ${h.model}  ${rate(h.winner.accuracy)} vs ${rate(h.original.accuracy)}`);
      say(io, `    by case: ${t.aOnly} won, ${t.bOnly} lost, ${h.comparison.pairs} paired, McNemar p=${t.pValue.toPrecision(3)}`);
      say(io, `    by answer: right ${rate(a.accuracy_winner)} vs ${rate(a.accuracy_original)}, false activations ${rate(a.false_activation.winner)} vs ${rate(a.false_activation.original)}, signed-rank p(worse)=${a.test.p_worse.toPrecision(3)}`);
      for (const harm of a.harm) say(io, `    WORSE: ${harm}`);
    }
  }
  say(io, '');
  say(io, `verdict: ${report.verdict === 'proven_gain' ? 'PROVEN GAIN' : 'no proven gain'}: ${report.reason.replace(/^(?:no )?proven gain: /, '')}`);
  if (report.winner) {
    say(io, `proposed description (${report.winner.candidate}):`);
    say(io, `  ${report.winner.description}`);
    say(io, `patch: ${JSON.stringify(report.winner.patch)}`);
  }
}

async function run(rawArgs: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(normalizeJsonArg(rawArgs), {
    model: { type: 'string', multiple: true },
    proposer: { type: 'string' },
    rounds: { type: 'string' },
    candidates: { type: 'string' },
    holdout: { type: 'string' },
    repeats: { type: 'string' },
    'harm-margin': { type: 'string' },
    seed: { type: 'string' },
    from: { type: 'string' },
    bindings: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    'no-cache': { type: 'boolean' },
    json: { type: 'string' },
    html: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('give exactly one package FILE');
  const specs = modelSpecs(values.model);
  const rounds = positiveInt(values.rounds, '--rounds');
  const candidates = positiveInt(values.candidates, '--candidates');
  const repeats = positiveInt(values.repeats, '--repeats');
  const concurrency = positiveInt(values.concurrency, '--concurrency');
  const timeoutMs = positiveInt(values.timeout, '--timeout') ?? 60_000;
  const holdout = holdoutArg(values.holdout);
  const harmMargin = fraction(values['harm-margin'], '--harm-margin');
  if (harmMargin !== undefined && harmMargin >= 1) throw new UsageError(`--harm-margin must be at least 0 and below 1, got '${values['harm-margin']}'`);
  const seed = seedArg(values.seed) ?? freshSeed();
  for (const flag of ['json', 'html'] as const) {
    const v = values[flag];
    if (v !== undefined && v.trim() === '') throw new UsageError(`--${flag} needs a file name`);
  }
  if (values.html === '-') throw new UsageError('--html writes a file; only --json can go to stdout');
  if (values.json !== undefined && values.json !== '-' && values.json.trim() !== '') await checkOutputFile('--json', values.json, io.cwd);
  if (values.html !== undefined && values.html.trim() !== '') await checkOutputFile('--html', values.html, io.cwd);
  const { targets } = await asUsage(resolveTargets(positionals, { cwd: io.cwd }));
  const target = targets[0]!;
  if (targets.length !== 1 || target.kind !== 'draft') throw new UsageError(`${positionals[0]}: give one package file (.../<namespace>/<name>.json), not a folder or an identity`);
  const bindings = values.bindings !== undefined ? await asUsage(readBindingsFile(values.bindings, { cwd: io.cwd }), '--bindings') : undefined;
  const source = connectionLabel(values.from, io);

  let store: SkillStore | undefined;
  const opened: ModelClient[] = [];
  const abort = new AbortController();
  const onSigint = () => {
    say(io, `interrupted: stopping; the recorded cells are kept: run the same command${values.seed === undefined ? ` with --seed ${seed}` : ''} to resume`);
    abort.abort();
  };
  try {
    const cache = values['no-cache'] ? undefined : new AnswerCache(join(io.cwd, '.skillbench', 'cache'));
    const proposer = await openProposer(values.proposer ?? KEYWORD_PROPOSER_SPEC, { env: io.env, timeoutMs, setting: '--proposer', ...(cache && { cache }) }, opened);
    const models: ModelClient[] = [];
    for (const spec of specs) {
      const model = await openModel(spec, { env: io.env, timeoutMs, retries: { retryOn: ['server'] } });
      opened.push(model);
      models.push(model);
    }
    store = await openCliStore(values.from, io);
    say(io, `optimize ${target.file}: models ${specs.join(', ')}; proposer ${proposer.spec}${proposer.isBaseline ? ' (mechanical suggestions, not a language model)' : ''}`);
    process.on('SIGINT', onSigint);
    const printer = progressPrinter(io);
    const result = await optimizeDescription({
      target,
      store,
      cwd: io.cwd,
      source,
      ...(bindings && { bindings, bindingsFile: values.bindings! }),
      models,
      proposer,
      seed,
      ...(rounds !== undefined && { rounds }),
      ...(candidates !== undefined && { candidatesPerRound: candidates }),
      ...(holdout !== undefined && { holdout }),
      ...(repeats !== undefined && { repeats }),
      ...(harmMargin !== undefined && { harmMargin }),
      ...(concurrency !== undefined && { concurrency }),
      ...(cache && { cache }),
      signal: abort.signal,
      ...(io.redact && { redact: io.redact }),
      onEvent(event) {
        if (event.type === 'split') {
          const s = event.split;
          const count = (list: typeof s.train, expect: string) => list.filter((c) => c.expect === expect).length;
          say(io, `split with seed ${s.seed} (--seed ${s.seed} repeats it and the verdict): ${s.train.length} train (${count(s.train, 'activate')} should, ${count(s.train, 'not_activate')} should-not), ${s.heldout.length} held out (${count(s.heldout, 'activate')} should, ${count(s.heldout, 'not_activate')} should-not)`);
        }
        printer(event);
      },
    });
    if (!result.ok) {
      for (const problem of result.problems) {
        say(io, `skillbench optimize: ${problem.message}${problem.findings.length > 0 ? ':' : ''}`);
        for (const f of problem.findings) say(io, formatFinding(problem.file ?? problem.skill, f));
      }
      return EXIT.invalid;
    }
    const report = result.report;
    for (const w of report.warnings) say(io, `warning: ${w}`);
    printReport(io, report);
    const json = `${JSON.stringify(report, null, 2)}\n`;
    if (values.json === '-') io.stdout.write(json);
    else if (values.json !== undefined) {
      await writeReportFile(resolve(io.cwd, values.json), (sink) => sink.write(json));
      say(io, `JSON report: ${values.json}`);
    }
    if (values.html !== undefined) {
      await writeOptimizeHtml(resolve(io.cwd, values.html), report);
      say(io, `HTML report: ${values.html}`);
    }
    return EXIT.ok;
  } catch (error) {
    if (abort.signal.aborted) return EXIT_INTERRUPTED;
    if (error instanceof Error && (error as { code?: unknown }).code === 'invalid_request') throw new UsageError(error.message);
    return reportFailure(io, 'optimize', error, { json: false });
  } finally {
    process.off('SIGINT', onSigint);
    await Promise.allSettled(opened.map((m) => m.close?.()));
    await store?.close();
    await closeSharedDispatcher();
  }
}

/** The `optimize` command. */
export const command: Command = { summary: 'Optimize a skill description across models; propose it only on a proven held-out gain', usage, run };
