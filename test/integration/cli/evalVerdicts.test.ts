/**
 * Verdicts an evaluator can act on, planted from outside: the real CLI against
 * a scripted model (an emulated OpenAI-compatible Chat Completions endpoint on
 * a local HTTP server) whose exact answers each test chooses case by case.
 * The regression gate fails a 20-point drop and only gets stricter as the
 * draft loses more; error cells and unusable answers cannot pass an accuracy
 * gate; a catalog the selector skips names every reason and ends the run
 * without a verdict.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary, RunHeader } from '../../../evals/types';
import { readSelectorPrompt, selectorAnswer, startChatEndpoint, type ChatEndpoint, type EndpointReply, type SelectorPrompt } from '../../helpers/chatEndpoint';
import { runCli } from '../../helpers/cli';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const WEATHER = 'travel/weather-assessment';
const FILE = 'skills/packages/travel/weather-assessment.json';
/** A sentence only the draft's description carries, so the scripted model can tell the variants apart. */
const DRAFT_MARK = 'Draft wording under review.';

let work: string;
const endpoints: ChatEndpoint[] = [];
/** The cases of the weather skill with their labels, in suite order. */
let suite: { request: string; expect: 'activate' | 'not_activate' }[];

const cli = (args: string[]) => runCli(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The right activation answer for a request of the suite (the weather skill for its positives, nothing otherwise). */
function right(request: string): string[] {
  return suite.find((c) => c.request === request)?.expect === 'activate' ? [WEATHER] : [];
}

/** The wrong one. */
function wrong(request: string): string[] {
  return right(request).length > 0 ? [] : [WEATHER];
}

async function endpoint(answer: (q: SelectorPrompt, request: string, draft: boolean) => EndpointReply): Promise<string> {
  const e = await startChatEndpoint((q) => {
    if (q.kind === 'resource') return { text: selectorAnswer('resource', []) };
    const request = decode(q.request);
    const entry = q.entries[WEATHER];
    return answer(q, request, entry !== undefined && String(entry['description']).includes(DRAFT_MARK));
  });
  endpoints.push(e);
  return `openai-compatible:${e.baseUrl}#scripted`;
}

/**
 * A model that answers the published revision right on every case except
 * `publishedWrong`, and the draft right except on `draftWrong` (indexes into
 * the suite).
 */
function planted(draftWrong: number[], publishedWrong: number[] = []): Promise<string> {
  return endpoint((_q, request, draft) => {
    const i = suite.findIndex((c) => c.request === request);
    const miss = (draft ? draftWrong : publishedWrong).includes(i);
    return { text: selectorAnswer('activation', miss ? wrong(request) : right(request)) };
  });
}

async function report(file: string): Promise<{ run: RunHeader; summary: EvalSummary }> {
  return JSON.parse(await readFile(join(work, file), 'utf8')) as { run: RunHeader; summary: EvalSummary };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-verdicts-'));
  await cp(join(EXAMPLES, 'skills'), join(work, 'skills'), { recursive: true });
  const pkg = JSON.parse(await readFile(join(work, FILE), 'utf8')) as { description: string; activation_examples: { should_activate: string[]; should_not_activate: string[] } };
  const extras = JSON.parse(await readFile(join(work, 'skills/evals/travel/weather-assessment.json'), 'utf8')) as { cases: { request: string; expect: 'activate' | 'not_activate' }[] };
  suite = [
    ...pkg.activation_examples.should_activate.map((request) => ({ request, expect: 'activate' as const })),
    ...pkg.activation_examples.should_not_activate.map((request) => ({ request, expect: 'not_activate' as const })),
    ...extras.cases.map((c) => ({ request: c.request, expect: c.expect })),
  ];
  pkg.description = `${pkg.description} ${DRAFT_MARK}`;
  await writeFile(join(work, FILE), JSON.stringify(pkg, null, 2));
});
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await rm(work, { recursive: true, force: true });
});

describe('eval verdicts, planted through a scripted model', { timeout: 300_000 }, () => {
  it('fails a 20-point drop, and gets only stricter as the draft loses more cases', async () => {
    expect(suite.length).toBeGreaterThanOrEqual(16);
    const codes: number[] = [];
    // The draft loses 0, 1, 4 and 5 cases the published revision gets right.
    for (const lost of [0, 1, 4, 5]) {
      const spec = await planted(Array.from({ length: lost }, (_, i) => i));
      const run = await cli(['eval', FILE, '--model', spec, '--fail-on-regression', '--no-cache', '--out', `drop-${lost}`, '--json', `drop-${lost}.json`]);
      codes.push(run.code ?? -1);
      const gate = (await report(`drop-${lost}.json`)).summary.gates.find((g) => g.gate === 'regression')!;
      expect(gate.passed, `${lost} lost: ${gate.message}`).toBe(run.code === 0);
      if (lost > 0) expect(run.stderr, run.stderr).toMatch(/gate regression: FAIL: .*upper 95 % bound [\d.]+ > margin 0\.05.*: regression/);
    }
    // A loss of one case in 16 is already above the 5-point margin; four (a 25-point drop) and five fail as well.
    expect(codes).toEqual([0, 1, 1, 1]);

    // The audit's pair: alone right on 1 and wrong on 4 fails as the draft alone wrong on 5 does.
    const mixed = await planted([1, 2, 3, 4], [0]);
    const pair = await cli(['eval', FILE, '--model', mixed, '--fail-on-regression', '--no-cache', '--out', 'mixed', '--json', 'mixed.json']);
    expect(pair.code, pair.stderr).toBe(1);
    const comparison = (await report('mixed.json')).summary.comparisons.find((c) => c.kind === 'variant')!;
    expect(comparison.test).toMatchObject({ aOnly: 1, bOnly: 4 });
  });

  it('cannot pass an accuracy gate with 20 % error cells: no verdict (exit 9), the cause printed per model', async () => {
    // Every fifth case: HTTP 500 on every attempt. The other cases answered right.
    const failing = new Set(suite.filter((_, i) => i % 5 === 0).map((c) => c.request));
    const spec = await endpoint((_q, request) => (failing.has(request) ? { status: 500, message: 'planted outage' } : { text: selectorAnswer('activation', right(request)) }));
    const run = await cli(['eval', FILE, '--model', spec, '--min-accuracy', '0.9', '--no-cache', '--out', 'errors', '--json', 'errors.json', '--junit', 'errors.xml']);
    expect(run.code, run.stderr).toBe(9);
    const { summary } = await report('errors.json');
    const m = summary.models[0]!;
    expect(m.errors).toBe(failing.size);
    // Every answered cell was right, and still: no pass.
    expect(m.skills[0]!.accuracy).toBe(1);
    expect(summary.verdict.status).toBe('incomplete');
    expect(summary.verdict.reasons!.map((r) => r.code)).toEqual(['error_rate']);
    expect(run.stderr).toContain(`warning: ${spec}: ${failing.size} of ${suite.length} cells ended in an error`);
    expect(run.stderr).toMatch(/NO VERDICT: .*above --max-error-rate 0/);
    expect(run.stderr).toMatch(/INCOMPLETE, no verdict reached \(exit 9\)/);
    expect(run.stderr).toMatch(/error \(\d+ cells?\): .*planted outage/);
    expect(await readFile(join(work, 'errors.xml'), 'utf8')).toContain('type="incomplete"');

    // Allowed explicitly, the same answers pass the gate.
    const allowed = await cli(['eval', FILE, '--model', spec, '--min-accuracy', '0.9', '--max-error-rate', '0.25', '--no-cache', '--out', 'errors-allowed']);
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it('gives unusable answers no free true negatives: prose and code-fenced JSON cannot pass, in any format', async () => {
    const prose = await endpoint(() => ({ text: 'The weather skill seems relevant to this request.' }));
    const fenced = await endpoint((_q, request) => ({ text: `\`\`\`json\n${selectorAnswer('activation', right(request))}\n\`\`\`` }));
    for (const [name, spec] of [
      ['prose', prose],
      ['fenced', fenced],
    ] as const) {
      const run = await cli(['eval', FILE, '--model', spec, '--min-accuracy', '0.5', '--no-cache', '--out', name, '--json', `${name}.json`, '--junit', `${name}.xml`, '--html', `${name}.html`, '--markdown', `${name}.md`]);
      expect(run.code, run.stderr).toBe(9);
      const { summary } = await report(`${name}.json`);
      const s = summary.models[0]!.skills[0]!;
      expect([s.tp, s.fp, s.tn, s.fn, s.invalid]).toEqual([0, 0, 0, 0, suite.length]);
      expect(s.accuracy).toBeNull();
      expect(summary.gates[0]).toMatchObject({ gate: 'min-accuracy', passed: false });
      expect(summary.verdict.warnings.map((w) => w.code)).toContain('invalid_answers');
      expect(run.stderr).toMatch(/unusable answer \(\d+ cells?\): activation answer was malformed on both attempts/);
      // No should-not case passes on an unusable answer, in JUnit or in the HTML matrix.
      const junit = await readFile(join(work, `${name}.xml`), 'utf8');
      expect(junit.match(/type="unusable_answer"/g)).toHaveLength(suite.length);
      expect(junit).not.toMatch(/<testcase [^>]*\/>/);
      const html = await readFile(join(work, `${name}.html`), 'utf8');
      expect(html.match(/<td class="c invalid/g)).toHaveLength(suite.length);
      expect(html).not.toMatch(/<td class="c pass/);
      expect(await readFile(join(work, `${name}.md`), 'utf8')).toContain('⚠️ **Unusable answers:**');
    }
  });

  it('names every reason a catalog is skipped, and ends the run without a verdict unless that is what it measures', async () => {
    const spec = await endpoint((_q, request) => ({ text: selectorAnswer('activation', right(request)) }));
    const limits = '{"catalogTokenBudget":60,"maxAutoCandidates":2}';
    const run = await cli(['eval', WEATHER, '--workspace', '.', '--model', spec, '--limits', limits, '--no-cache', '--out', 'skipped', '--json', 'skipped.json']);
    expect(run.code, run.stderr).toBe(9);
    expect(run.stderr).toMatch(/estimated tokens, above its budget of 60, and \d+ auto candidates, above maxAutoCandidates \(2\)/);
    expect(run.stderr).toMatch(/NO VERDICT: .*the selector never asked the model on any cell/);
    const { run: header, summary } = await report('skipped.json');
    expect(header.limits).toMatchObject({ catalogTokenBudget: 60, maxAutoCandidates: 2 });
    expect(summary.models[0]!.skills[0]!.asked).toBe(0);
    // The trace says the same, with every reason.
    const select = await cli(['select', '--request', suite[0]!.request, '--catalog', '.', '--model', spec, '--limits', limits]);
    expect(select.stderr).toMatch(/\d+ auto candidates exceed maxAutoCandidates \(2\), and the catalog is \d+ estimated tokens, above catalogTokenBudget \(60\)/);

    const measured = await cli(['eval', WEATHER, '--workspace', '.', '--model', spec, '--limits', limits, '--allow-skipped-activation', '--no-cache', '--out', 'skipped-allowed']);
    expect(measured.code, measured.stderr).toBe(0);
    expect(measured.stderr).toContain('(allowed by --allow-skipped-activation)');
  });

  it('pins one resource model for every activation model, on the wire, in the header and in every trace', async () => {
    const e = await startChatEndpoint(
      (q) => {
        if (q.kind === 'resource') return { text: selectorAnswer('resource', []) };
        return { text: selectorAnswer('activation', right(decode(q.request))) };
      },
      { keepBodies: true },
    );
    endpoints.push(e);
    const [a, b, r] = ['act-a', 'act-b', 'res-r'].map((m) => `openai-compatible:${e.baseUrl}#${m}`);
    const run = await cli(['eval', FILE, '--model', a!, '--model', b!, '--resource-model', r!, '--no-cache', '--out', 'pinned-resource', '--json', 'pinned-resource.json', '--markdown', 'pinned-resource.md']);
    expect(run.code, run.stderr).toBe(0);
    const sent = e.bodies.map((body) => [readSelectorPrompt(body).kind, body['model']] as const);
    expect(new Set(sent.filter(([kind]) => kind === 'activation').map(([, m]) => m))).toEqual(new Set(['act-a', 'act-b']));
    const resourceModels = new Set(sent.filter(([kind]) => kind === 'resource').map(([, m]) => m));
    expect(resourceModels).toEqual(new Set(['res-r']));
    const doc = JSON.parse(await readFile(join(work, 'pinned-resource.json'), 'utf8')) as { run: RunHeader; cells: { model: string; trace: { models?: { activation: string; resource: string } } }[] };
    expect(doc.run.models.map((m) => m.spec)).toEqual([a, b]);
    expect(doc.run.resource_model).toBe(r);
    for (const cell of doc.cells) expect(cell.trace.models).toEqual({ activation: cell.model, resource: r });
    const md = await readFile(join(work, 'pinned-resource.md'), 'utf8');
    expect(md).toMatch(/\*\*Resource model:\*\* .*res-r/);
    expect(md).not.toContain('each activation model selects its own resources');
  });
});
