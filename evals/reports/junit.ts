/**
 * The JUnit XML report, for CI systems that show test results: one
 * `<testsuite>` per model, one `<testcase>` per case (and variant) with its
 * repeats folded by majority, `<failure>` for a wrong activation, `<error
 * type="unusable_answer">` when the runtime could not use the model's answers
 * (never a pass, even on a should-not case), and `<error type="cell_error">`
 * when errors kept the case from a verdict.
 */
import type { CaseInfo, EvalSummary, RunHeader } from '../types';
import { readCells } from './cells';
import { escapeXmlAttr, escapeXmlText, truncate } from './escape';
import { runFacts } from './format';
import { CaseFolder, correctCount, describeCounts, isFlaky, orderBy, verdict, type CaseFold } from './fold';
import type { ReportWritten } from './json';
import { writeReportFile } from './sink';

/** Result of {@link writeJunitReport}. */
export interface JunitReportWritten extends ReportWritten {
  tests: number;
  failures: number;
  errors: number;
}

const NAME_REQUEST_CHARS = 100;

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function attrs(pairs: Record<string, string | number>): string {
  return Object.entries(pairs)
    .map(([k, v]) => ` ${k}="${escapeXmlAttr(String(v))}"`)
    .join('');
}

function outcomeLine(f: CaseFold): string {
  return `activated ${f.activated}/${f.n}, not activated ${f.notActivated}/${f.n}, unusable ${f.invalid}/${f.n}, errors ${f.errors}/${f.n}`;
}

function details(f: CaseFold, info: CaseInfo | undefined): string {
  const lines = [
    `expected: ${f.expect}`,
    `actual: ${outcomeLine(f)}`,
    `correct: ${correctCount(f)}/${f.n}`,
    `activated skills: ${f.activatedSkills.size > 0 ? describeCounts(f.activatedSkills) : '(none)'}`,
  ];
  if (f.invalid > 0) lines.push(`unusable answers: ${f.invalid} (the selector rejected them: strict decoding or revalidation)`);
  if (f.diagnostics.size > 0) lines.push(`diagnostics: ${describeCounts(f.diagnostics)}`);
  if (f.firstError !== undefined) lines.push(`first error: ${f.firstError}`);
  if (info) lines.push(`boundary: ${info.boundary}`, `request: ${info.request}`);
  lines.push(`cells: ${f.keys.join(', ')}${f.n > f.keys.length ? `, … (${f.n - f.keys.length} more)` : ''}`);
  return lines.join('\n');
}

function testcaseXml(f: CaseFold, info: CaseInfo | undefined, withVariant: boolean): string {
  const label = f.expect === 'activate' ? 'should activate' : 'should not activate';
  const request = info ? truncate(info.request.replace(/\s+/g, ' ').trim(), NAME_REQUEST_CHARS) : '(case not in the run header)';
  const name = `${withVariant ? `[${f.variant}] ` : ''}${label}: ${request} (${f.case})`;
  const open = `    <testcase${attrs({ classname: f.skill, name, time: seconds(f.latencyMs) })}`;
  const v = verdict(f);
  const correct = correctCount(f);
  if (v === 'pass') {
    const note = isFlaky(f) || f.errors > 0 || f.invalid > 0 ? `correct ${correct}/${f.n}${isFlaky(f) ? ' (flaky)' : ''}${f.invalid > 0 ? `; unusable ${f.invalid}/${f.n}` : ''}${f.errors > 0 ? `; errors ${f.errors}/${f.n}` : ''}` : '';
    return note ? `${open}>\n      <system-out>${escapeXmlText(`${note}\n${details(f, info)}`)}</system-out>\n    </testcase>\n` : `${open}/>\n`;
  }
  if (v === 'fail') {
    const wrongOutcome = f.expect === 'activate' ? 'not_activated' : 'activated';
    const wrong = f.expect === 'activate' ? f.notActivated : f.activated;
    const message = `expected ${f.expect}, got ${wrongOutcome} in ${wrong}/${f.n} repeats (correct ${correct}/${f.n})`;
    return `${open}>\n      <failure${attrs({ message, type: 'wrong_activation' })}>${escapeXmlText(details(f, info))}</failure>\n    </testcase>\n`;
  }
  if (v === 'invalid') {
    const message = `${f.invalid}/${f.n} answers were unusable: the runtime rejected them (correct ${correct}/${f.n})`;
    return `${open}>\n      <error${attrs({ message, type: 'unusable_answer' })}>${escapeXmlText(details(f, info))}</error>\n    </testcase>\n`;
  }
  const message = `${f.errors}/${f.n} repeats ended in an error (correct ${correct}/${f.n})${f.firstError !== undefined ? `: ${truncate(f.firstError, 200)}` : ''}`;
  return `${open}>\n      <error${attrs({ message, type: 'cell_error' })}>${escapeXmlText(details(f, info))}</error>\n    </testcase>\n`;
}

/**
 * The run's verdict as a testsuite `skillbench gates`: one testcase per gate
 * set, failed when the gate failed, one per unavailable model, and one per
 * reason no verdict was reached (`type="incomplete"`: too many error cells or
 * unusable answers, a selector never asked), so a CI dashboard shows why the
 * job failed. Absent when no gate is set, every model answered and the run
 * reached a verdict.
 */
function gatesXml(header: RunHeader, summary: EvalSummary): { xml: string; tests: number; failures: number } | undefined {
  const { gates, verdict: v } = summary;
  const reasons = (v.reasons ?? []).filter((r) => r.code !== 'cells_missing');
  if (gates.length === 0 && v.unavailable_models.length === 0 && reasons.length === 0) return undefined;
  const cases = [
    ...gates.map((g) => {
      const open = `    <testcase${attrs({ classname: 'skillbench.gates', name: `${g.gate} ${g.model} ${g.skill}`.trim(), time: '0' })}`;
      return g.passed ? `${open}/>\n` : `${open}>\n      <failure${attrs({ message: truncate(g.message, 500), type: 'gate_failed' })}>${escapeXmlText(g.message)}</failure>\n    </testcase>\n`;
    }),
    ...v.unavailable_models.map(
      (model) =>
        `    <testcase${attrs({ classname: 'skillbench.gates', name: `model available ${model}`, time: '0' })}>\n      <failure${attrs({ message: 'every cell of this model errored', type: 'model_unavailable' })}/>\n    </testcase>\n`,
    ),
    ...reasons.map(
      (r) =>
        `    <testcase${attrs({ classname: 'skillbench.gates', name: `verdict reached ${r.code.replace(/_/g, ' ')}${r.model ? ` ${r.model}` : ''}${r.catalog ? ` ${r.catalog}` : ''}`, time: '0' })}>\n      <failure${attrs({ message: truncate(r.message, 500), type: 'incomplete' })}>${escapeXmlText(r.message)}</failure>\n    </testcase>\n`,
    ),
  ];
  const failures = gates.filter((g) => !g.passed).length + v.unavailable_models.length + reasons.length;
  const xml =
    `  <testsuite${attrs({ name: 'skillbench gates', tests: cases.length, failures, errors: 0, skipped: 0, time: '0', timestamp: header.started_at })}>\n` +
    `    <properties>\n      <property${attrs({ name: 'verdict', value: v.status })}/>\n      <property${attrs({ name: 'verdict_message', value: v.message })}/>\n    </properties>\n` +
    `${cases.join('')}  </testsuite>\n`;
  return { xml, tests: cases.length, failures };
}

/**
 * Writes the JUnit XML report of a run to `path` (atomically). Memory grows
 * with models × variants × cases, not with repeats or traces.
 */
export async function writeJunitReport(path: string, header: RunHeader, summary: EvalSummary, cellsFile: string): Promise<JunitReportWritten> {
  const folder = new CaseFolder();
  let cells = 0;
  let tornLines = 0;
  for await (const cell of readCells(cellsFile, { onTornLine: () => tornLines++ })) {
    folder.add(cell);
    cells++;
  }
  const caseInfo = new Map(header.cases.map((c) => [c.id, c] as const));
  const caseOrder = header.cases.map((c) => c.id);
  const variantOrder = header.variants.map((v) => v.label);
  const folds = folder.all();
  const withVariant = new Set(folds.map((f) => f.variant)).size > 1;

  // Models of the header first (even those without cells), then any others the cells name.
  const baseline = new Map<string, boolean>();
  for (const m of header.models) baseline.set(m.spec, m.isBaseline);
  for (const m of summary.models) if (!baseline.has(m.model)) baseline.set(m.model, m.isBaseline);
  for (const f of folds) if (!baseline.has(f.model)) baseline.set(f.model, false);

  // Counts first (the suite elements carry them as attributes), then stream the testcases.
  const suites = [...baseline].map(([model, isBaseline]) => {
    const own = orderBy(
      orderBy(
        folds.filter((f) => f.model === model),
        (f) => f.case,
        caseOrder,
      ),
      (f) => f.variant,
      variantOrder,
    );
    const verdicts = own.map(verdict);
    return {
      model,
      isBaseline,
      folds: own,
      tests: own.length,
      failures: verdicts.filter((v) => v === 'fail').length,
      errors: verdicts.filter((v) => v === 'error' || v === 'invalid').length,
      ms: own.reduce((a, f) => a + f.latencyMs, 0),
    };
  });
  const gateSuite = gatesXml(header, summary);
  const tests = suites.reduce((a, x) => a + x.tests, 0) + (gateSuite?.tests ?? 0);
  const failures = suites.reduce((a, x) => a + x.failures, 0) + (gateSuite?.failures ?? 0);
  const errors = suites.reduce((a, x) => a + x.errors, 0);
  const totalMs = suites.reduce((a, x) => a + x.ms, 0);

  const bytes = await writeReportFile(path, async (sink) => {
    await sink.write('<?xml version="1.0" encoding="UTF-8"?>\n');
    await sink.write(`<testsuites${attrs({ name: `skillbench eval ${header.run_id}`, tests, failures, errors, skipped: 0, time: seconds(totalMs) })}>\n`);
    for (const suite of suites) {
      const props = [
        ['run_id', header.run_id],
        ['config_hash', header.config_hash],
        ['model', suite.model],
        ['baseline', suite.isBaseline ? 'true (not a language model)' : 'false'],
        ['repeats', String(header.repeats)],
        ['format', header.format],
        ['verdict', summary.verdict.status],
        ['verdict_message', summary.verdict.message],
        ...runFacts(header, summary).map(([k, v]) => [k.toLowerCase().replace(/ /g, '_'), v]),
        ...(summary.verdict.reasons ?? []).map((r) => ['no_verdict', r.message]),
        ...summary.verdict.warnings.map((w) => ['warning', w.message]),
      ]
        .map(([name, value]) => `      <property${attrs({ name: name!, value: value! })}/>\n`)
        .join('');
      const name = suite.isBaseline ? `${suite.model} (baseline, not a language model)` : suite.model;
      await sink.write(
        `  <testsuite${attrs({ name, tests: suite.tests, failures: suite.failures, errors: suite.errors, skipped: 0, time: seconds(suite.ms), timestamp: header.started_at })}>\n` +
          `    <properties>\n${props}    </properties>\n`,
      );
      for (const f of suite.folds) await sink.write(testcaseXml(f, caseInfo.get(f.case), withVariant));
      await sink.write('  </testsuite>\n');
    }
    if (gateSuite) await sink.write(gateSuite.xml);
    await sink.write('</testsuites>\n');
  });
  return { path, bytes, cells, tornLines, tests, failures, errors };
}
