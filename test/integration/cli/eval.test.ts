/**
 * `skillbench eval` as a user runs it: the CLI (in process; the real binary in a
 * child process where a signal ends it), the
 * default local registry (seeded with the examples), and models that are the
 * lexical baseline, a tiny in-process llama.cpp model, or an emulated
 * OpenAI-compatible endpoint (a local HTTP server replaying the Chat
 * Completions wire format).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliRun, type CliOptions } from '../../helpers/cli';
import type { CellRecord, EvalSummary, RunHeader } from '../../../evals/types';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { writeTinyLlamaGguf } from '../../helpers/gguf';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

type Run = CliRun;

let work: string;
const endpoints: ChatEndpoint[] = [];

const options = (cwd = work): CliOptions => ({ cwd, env: { SKILLBENCH_HOME: join(work, 'home'), NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' } });

/** The real binary in a child process, for the runs a signal stops. */
function start(args: string[], cwd = work): { child: ChildProcess; done: Promise<Run> } {
  return startCli(['eval', ...args], options(cwd));
}

const cli = (args: string[], cwd?: string) => runCli(['eval', ...args], options(cwd));

async function endpoint(answer: Parameters<typeof startChatEndpoint>[0]): Promise<ChatEndpoint> {
  const e = await startChatEndpoint(answer);
  endpoints.push(e);
  return e;
}

async function lines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** A workspace copy of the examples, to edit drafts in. */
async function workspace(name: string): Promise<string> {
  const dir = join(work, name);
  await cp(join(EXAMPLES, 'skills'), join(dir, 'skills'), { recursive: true });
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-eval-'));
});
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await rm(work, { recursive: true, force: true });
});

describe('skillbench eval', { timeout: 180_000 }, () => {
  it('runs baseline:lexical over the example workspace end to end, with a JSON report on stdout', async () => {
    const run = await cli([EXAMPLES, '--model', 'baseline:lexical', '--json', '--out', 'lexical']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { run: RunHeader; summary: EvalSummary; cells: CellRecord[] };
    expect(report.run.models).toEqual([{ spec: 'baseline:lexical', isBaseline: true }]);
    const skills = [...new Set(report.run.cases.map((c) => c.skill))].sort();
    expect(skills).toHaveLength(8);
    expect(report.cells).toHaveLength(report.run.cases.length);
    expect(report.summary.totals).toMatchObject({ cells: report.run.cases.length, errors: 0 });
    // Every draft is served under the next revision number and recorded as a draft in its catalog.
    const catalog = report.run.catalogs['draft|travel/weather-assessment']!;
    expect(catalog.entries.find((e) => e.under_test)).toMatchObject({ skill: 'travel/weather-assessment', version: 'draft' });
    expect(catalog.entries.map((e) => e.skill).every((s) => s.startsWith('travel/'))).toBe(true);
    expect(catalog.tokens).toBeGreaterThan(0);
    expect(catalog.tokens).toBe(report.cells.find((c) => c.skill === 'travel/weather-assessment')!.trace.calls[0]!.catalogTokens);
    // The summary is a recount of the cells; adjacent negatives (other skills' examples) are counted apart.
    const adjacent = new Set(report.run.cases.filter((c) => c.source === 'adjacent').map((c) => c.id));
    expect(adjacent.size).toBeGreaterThan(0);
    for (const s of report.summary.models[0]!.skills) {
      const mine = report.cells.filter((c) => c.skill === s.skill && !adjacent.has(c.case));
      const theirs = report.cells.filter((c) => c.skill === s.skill && adjacent.has(c.case));
      expect(s.adjacent?.cells ?? 0).toBe(theirs.length);
      expect(s.adjacent?.fp ?? 0).toBe(theirs.filter((c) => c.outcome === 'activated').length);
      const tp = mine.filter((c) => c.expect === 'activate' && c.outcome === 'activated').length;
      expect([s.cells, s.tp]).toEqual([mine.length, tp]);
    }
    expect(run.stderr).toMatch(/baseline:lexical\s+travel\/weather-assessment\s+draft\s+\d+/);
    expect(run.stderr).toContain('(baseline, not a language model)');
  });

  it('resumes after a SIGKILL mid-run: no cell is done twice and the final counts are complete', async () => {
    const e = await endpoint((q) => ({ text: selectorAnswer(q.kind, []), delayMs: 15 }));
    const spec = `openai-compatible:${e.baseUrl}#emu`;
    const args = [EXAMPLES, '--model', spec, '--repeats', '2', '--concurrency', '2', '--no-cache', '--out', 'killed'];
    const cells = join(work, 'killed', 'cells.jsonl');
    const first = start(args);
    while ((await lines(cells)).length < 12) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    await first.done;
    await new Promise((r) => setTimeout(r, 100));
    const recorded = (await lines(cells)).filter((l) => {
      try {
        JSON.parse(l);
        return true;
      } catch {
        return false;
      }
    }).length;
    const header = JSON.parse(await readFile(join(work, 'killed', 'header.json'), 'utf8')) as RunHeader;
    const total = header.cases.length * 2;
    expect(recorded).toBeGreaterThanOrEqual(12);
    expect(recorded).toBeLessThan(total);
    const before = e.count;
    const second = await cli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`resuming run ${header.config_hash}`);
    // Nothing activates: one model call per cell, so exactly the missing cells were run.
    expect(e.count - before).toBe(total - recorded);
    const final = (await lines(cells)).map((l) => JSON.parse(l) as CellRecord);
    expect(final).toHaveLength(total);
    expect(new Set(final.map((c) => c.key)).size).toBe(total);
    const summary = JSON.parse(await readFile(join(work, 'killed', 'summary.json'), 'utf8')) as EvalSummary;
    expect(summary.totals).toMatchObject({ cells: total, errors: 0 });
  });

  it('stops on SIGINT after the cells in flight, exits 130 and says how to resume', async () => {
    const e = await endpoint((q) => ({ text: selectorAnswer(q.kind, []), delayMs: 40 }));
    const args = [EXAMPLES, '--model', `openai-compatible:${e.baseUrl}#emu`, '--no-cache', '--out', 'interrupted'];
    const cells = join(work, 'interrupted', 'cells.jsonl');
    const run = start(args);
    while ((await lines(cells)).length < 4) await new Promise((r) => setTimeout(r, 10));
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('finishing the cells in flight');
    expect(result.stderr).toMatch(/interrupted: \d+ of \d+ cells recorded in interrupted; run the same command again to resume/);
    // Every cell in flight finished and was written whole: no torn line.
    const text = await readFile(cells, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const recorded = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as CellRecord);
    expect(e.count).toBe(recorded.length);
    const resumed = await cli(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`${recorded.length} of`);
  });

  it('answers a rerun from the cache: zero model calls', async () => {
    const e = await endpoint((q) => ({ text: selectorAnswer(q.kind, q.kind === 'activation' && /weather|rain|snow/i.test(q.request) ? ['travel/weather-assessment'] : []) }));
    const spec = `openai-compatible:${e.baseUrl}#emu`;
    const file = join(EXAMPLES, 'skills/packages/travel/weather-assessment.json');
    const first = await cli([file, '--model', spec, '--out', 'cache-1']);
    expect(first.code, first.stderr).toBe(0);
    const calls = e.count;
    expect(calls).toBeGreaterThan(0);
    const second = await cli([file, '--model', spec, '--out', 'cache-2']);
    expect(second.code, second.stderr).toBe(0);
    expect(e.count).toBe(calls);
    expect(second.stderr).toMatch(/answer cache: \d+ hits, 0 misses/);
    const cells = (await lines(join(work, 'cache-2', 'cells.jsonl'))).map((l) => JSON.parse(l) as CellRecord);
    expect(cells.every((c) => c.cached)).toBe(true);
  });

  it('keeps errors and timeouts apart, and exits 6 when every cell of a model errored', async () => {
    const broken = await endpoint(() => ({ status: 500, message: 'emulated outage' }));
    const hanging = await endpoint(() => ({ hang: true }));
    const fine = await endpoint((q) => ({ text: selectorAnswer(q.kind, []) }));
    const file = join(EXAMPLES, 'skills/packages/travel/currency-conversion.json');
    const run = await cli([
      file,
      '--model',
      `openai-compatible:${broken.baseUrl}#broken`,
      '--model',
      `openai-compatible:${hanging.baseUrl}#hanging`,
      '--model',
      `openai-compatible:${fine.baseUrl}#fine`,
      // Far above a loaded machine's slowest local answer, so only the hanging model reaches it.
      '--timeout',
      '4000',
      // The three models share a provider: room for all 24 cells at once, so the hanging
      // model's cells time out together in one wave instead of queueing behind each other.
      '--concurrency',
      '24',
      '--no-cache',
      '--out',
      'errors',
      '--json',
      'errors.json',
    ]);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/model unavailable \(every cell errored\): .*#broken.*#hanging/);
    const report = JSON.parse(await readFile(join(work, 'errors.json'), 'utf8')) as { summary: EvalSummary; cells: CellRecord[] };
    const byModel = (name: string) => report.summary.models.find((m) => m.model.endsWith(`#${name}`))!;
    expect(byModel('broken')).toMatchObject({ errors: 8, cells: 8 });
    expect(byModel('hanging')).toMatchObject({ errors: 8, cells: 8 });
    expect(byModel('fine')).toMatchObject({ errors: 0, cells: 8 });
    const brokenSkill = byModel('broken').skills[0]!;
    expect([brokenSkill.tp, brokenSkill.fn, brokenSkill.tn, brokenSkill.fp, brokenSkill.accuracy]).toEqual([0, 0, 0, 0, null]);
    expect(report.cells.find((c) => c.model.endsWith('#hanging'))!.error).toMatch(/no answer within 4000 ms/);
    expect(report.cells.find((c) => c.model.endsWith('#broken'))!.error).toMatch(/HTTP 500/);
  });

  it('exits 1 when a gate fails, 0 when gates pass, 2 for a bad threshold', async () => {
    const file = join(EXAMPLES, 'skills/packages/travel/currency-conversion.json');
    const failing = await cli([file, '--model', 'baseline:lexical', '--min-accuracy', '0.99', '--min-precision', '0.5', '--junit', 'gates.xml', '--markdown', 'gates.md', '--html', 'gates.html']);
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stderr).toMatch(/gate min-accuracy: FAIL: baseline:lexical travel\/currency-conversion \(draft\): accuracy 0\.\d+ < 0\.99/);
    expect(failing.stderr).toMatch(/gate min-precision: pass/);
    expect(await readFile(join(work, 'gates.xml'), 'utf8')).toContain('<testsuite');
    expect(await readFile(join(work, 'gates.md'), 'utf8')).toContain('currency-conversion');
    expect(await readFile(join(work, 'gates.html'), 'utf8')).toContain('<html');
    const passing = await cli([file, '--model', 'baseline:lexical', '--min-accuracy', '0.1']);
    expect(passing.code, passing.stderr).toBe(0);
    const usage = await cli([file, '--model', 'baseline:lexical', '--min-accuracy', '1.5']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--min-accuracy must be a number from 0 to 1');
    const noModel = await cli([file]);
    expect(noModel.code).toBe(2);
  });

  it('compares a draft with its published revision and fails a regression', async () => {
    const ws = await workspace('regress');
    const file = join(ws, 'skills/packages/travel/weather-assessment.json');
    const pkg = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    // A draft whose catalog text no longer matches its own requests.
    pkg['display_name'] = 'Quarterly ledger reconciliation';
    pkg['description'] = 'Use when an accountant reconciles invoices, ledgers and quarterly tax filings.';
    pkg['tags'] = ['accounting'];
    pkg['domains'] = ['finance'];
    await writeFile(file, JSON.stringify(pkg, null, 2));
    const run = await cli([file, '--model', 'baseline:lexical', '--fail-on-regression', '--json', 'regress.json']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/gate regression: FAIL: baseline:lexical travel\/weather-assessment: draft \S+ vs published \S+/);
    const report = JSON.parse(await readFile(join(work, 'regress.json'), 'utf8')) as { run: RunHeader; summary: EvalSummary };
    expect(report.run.variants.map((v) => [v.label, v.version])).toEqual([
      ['draft', 'draft'],
      ['published', 1],
    ]);
    const comparison = report.summary.comparisons.find((c) => c.kind === 'variant')!;
    expect(comparison.test.bOnly).toBeGreaterThan(comparison.test.aOnly);
    // The published variant's catalog holds the stored revision, not the draft.
    expect(report.run.catalogs['published|travel/weather-assessment']!.entries.find((e) => e.under_test)!.version).toBe(1);

    const same = await cli([join(EXAMPLES, 'skills/packages/travel/weather-assessment.json'), '--model', 'baseline:lexical', '--compare-published', '--fail-on-regression']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/compare baseline:lexical travel\/weather-assessment: draft (\S+) vs published \1/);
  });

  it('reports an invalid draft and invalid extra cases with their locations', async () => {
    const ws = await workspace('invalid');
    await writeFile(join(ws, 'skills/packages/travel/currency-conversion.json'), '{\n  "display_name": "Currency",\n  "description": 7\n}\n');
    await writeFile(join(ws, 'skills/evals/travel/weather-assessment.json'), '{\n  "cases": [\n    { "request": "x", "expect": "maybe" }\n  ]\n}\n');
    const run = await cli([join(ws, 'skills/packages/travel/currency-conversion.json'), join(ws, 'skills/packages/travel/weather-assessment.json'), '--model', 'baseline:lexical']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid\/skills\/packages\/travel\/currency-conversion\.json:3:\d+: error /);
    expect(run.stderr).toMatch(/invalid\/skills\/evals\/travel\/weather-assessment\.json:3:\d+: error eval_case_expect/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const missing = await cli(['travel/no-such-skill', '--model', 'baseline:lexical']);
    expect(missing.code).toBe(5);
  });

  it('refuses an extra-cases file that is a folder or a FIFO, as it refuses such a package file, before any cell runs', async () => {
    const ws = await workspace('odd-extras');
    const extras = join(ws, 'skills/evals/travel/weather-assessment.json');
    await rm(extras);
    await mkdir(extras);
    const folder = await cli([join(ws, 'skills/packages/travel/weather-assessment.json'), '--model', 'baseline:lexical', '--out', 'odd-folder']);
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr).toContain('skills/evals/travel/weather-assessment.json is a folder, not a regular file');
    await rm(extras, { recursive: true });
    execFileSync('mkfifo', [extras]);
    // The published skill brings the same file when that workspace evaluates it.
    const fifo = await cli(['travel/weather-assessment', '--workspace', ws, '--model', 'baseline:lexical', '--out', 'odd-fifo']);
    expect(fifo.code, fifo.stderr).toBe(2);
    expect(fifo.stderr).toContain('skills/evals/travel/weather-assessment.json is a FIFO, not a regular file');
    expect(await lines(join(work, 'odd-folder', 'cells.jsonl'))).toEqual([]);
    expect(await lines(join(work, 'odd-fifo', 'cells.jsonl'))).toEqual([]);
  });

  it('bounds --repeats: a usage error naming the bound, not an internal error', async () => {
    const run = await cli(['travel/weather-assessment', '--model', 'baseline:lexical', '--repeats', '1000000000']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain("--repeats must be a positive integer up to 100, got '1000000000'");
  });

  it('runs an in-process llama.cpp model on a few cases, seeded per repeat and cached on rerun', async () => {
    const model = await writeTinyLlamaGguf(join(work, 'models', 'tiny.gguf'), { seed: 3, contextLength: 8192 });
    const ws = join(work, 'llama');
    const pkg = JSON.parse(await readFile(join(EXAMPLES, 'skills/packages/travel/currency-conversion.json'), 'utf8')) as { activation_examples: { should_activate: string[]; should_not_activate: string[] } };
    pkg.activation_examples = { should_activate: pkg.activation_examples.should_activate.slice(0, 2), should_not_activate: pkg.activation_examples.should_not_activate.slice(0, 1) };
    await mkdir(join(ws, 'skills/packages/solo'), { recursive: true });
    await writeFile(join(ws, 'skills/packages/solo/currency-conversion.json'), JSON.stringify(pkg));
    const spec = `llama-cpp:${model.path}?grammar=1`;
    const run = await cli([ws, '--model', spec, '--repeats', '2', '--out', 'llama-run', '--json', 'llama.json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(work, 'llama.json'), 'utf8')) as { summary: EvalSummary; cells: CellRecord[] };
    expect(report.cells).toHaveLength(6);
    expect(report.summary.totals.errors).toBe(0);
    for (const cell of report.cells) {
      const activation = cell.trace.calls.find((c) => c.kind === 'activation')!;
      expect(activation.provider).toBe('llama-cpp');
      expect(activation.usage.inputTokens).toBeGreaterThan(0);
      // Grammar decoding: the answer always decodes to offered candidates.
      expect(activation.decision).not.toBeNull();
      expect(cell.invalid).toBe(false);
    }
    // Each repeat is its own model call (seed = repeat index, its own cache entry): every call was a miss.
    const calls = report.cells.reduce((n, c) => n + c.trace.calls.reduce((k, call) => k + call.attempts.length, 0), 0);
    expect(calls).toBeGreaterThanOrEqual(6);
    expect(run.stderr).toContain(`answer cache: 0 hits, ${calls} misses`);
    const m = report.summary.models[0]!;
    expect(m.isBaseline).toBe(false);
    expect(m.input_tokens).toBeGreaterThan(0);
    const s = m.skills[0]!;
    expect(s.tp + s.fn + s.fp + s.tn).toBe(6);
    const again = await cli([ws, '--model', spec, '--repeats', '2', '--out', 'llama-run-2']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/answer cache: \d+ hits, 0 misses/);
  });
});
