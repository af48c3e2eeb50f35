/**
 * What `skillbench eval` measures, audited from outside: the CLI's exit code,
 * reports and run folder against a deterministic scripted model (an emulated
 * OpenAI-compatible Chat Completions endpoint on a local HTTP server) whose
 * answers depend only on the request and the catalog text it is shown.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary, RunHeader } from '../../../evals/types';
import { runCli } from '../../helpers/cli';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint, type SelectorPrompt } from '../../helpers/chatEndpoint';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const WEATHER = 'travel/weather-assessment';
/** A sentence only the draft's description carries, so the scripted model can tell the variants apart. */
const DRAFT_MARK = 'Draft wording under review.';

let work: string;
const endpoints: ChatEndpoint[] = [];

const cli = (args: string[]) => runCli(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

interface Suite {
  positives: string[];
}

async function weatherSuite(): Promise<Suite> {
  const pkg = JSON.parse(await readFile(join(EXAMPLES, 'skills/packages/travel/weather-assessment.json'), 'utf8')) as { activation_examples: { should_activate: string[] } };
  const extras = JSON.parse(await readFile(join(EXAMPLES, 'skills/evals/travel/weather-assessment.json'), 'utf8')) as { cases: { request: string; expect: string }[] };
  return { positives: [...pkg.activation_examples.should_activate, ...extras.cases.filter((c) => c.expect === 'activate').map((c) => c.request)] };
}

/**
 * The published wording misses the first positive request; the draft wording
 * catches it but misses the next six. Same answer on every repeat and seed.
 */
function scripted(suite: Suite): (q: SelectorPrompt) => { text: string } {
  const publishedMisses = new Set(suite.positives.slice(0, 1));
  const draftMisses = new Set(suite.positives.slice(1, 7));
  return (q) => {
    if (q.kind === 'resource') return { text: selectorAnswer('resource', []) };
    const request = decode(q.request);
    const entry = q.entries[WEATHER];
    if (!entry || !suite.positives.includes(request)) return { text: selectorAnswer('activation', []) };
    const draft = String(entry['description']).includes(DRAFT_MARK);
    const miss = draft ? draftMisses.has(request) : publishedMisses.has(request);
    return { text: selectorAnswer('activation', miss ? [] : [WEATHER]) };
  };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-measure-'));
  await cp(join(EXAMPLES, 'skills'), join(work, 'skills'), { recursive: true });
  const file = join(work, 'skills/packages/travel/weather-assessment.json');
  const pkg = JSON.parse(await readFile(file, 'utf8')) as { description: string };
  pkg.description = `${pkg.description} ${DRAFT_MARK}`;
  await writeFile(file, JSON.stringify(pkg, null, 2));
});
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await rm(work, { recursive: true, force: true });
});

describe('skillbench eval, measured from outside', { timeout: 240_000 }, () => {
  it('gives a deterministic model the same McNemar p and regression verdict at --repeats 1, 3 and 6', async () => {
    const e = await startChatEndpoint(scripted(await weatherSuite()));
    endpoints.push(e);
    const spec = `openai-compatible:${e.baseUrl}#scripted`;
    const outcomes: { code: number | null; p: number; gate: boolean; aOnly: number; bOnly: number; pairs: number | undefined }[] = [];
    for (const repeats of [1, 3, 6]) {
      const run = await cli(['eval', 'skills/packages/travel/weather-assessment.json', '--model', spec, '--repeats', String(repeats), '--fail-on-regression', '--no-cache', '--out', `repeats-${repeats}`, '--json', `repeats-${repeats}.json`]);
      const report = JSON.parse(await readFile(join(work, `repeats-${repeats}.json`), 'utf8')) as { summary: EvalSummary };
      const comparison = report.summary.comparisons.find((c) => c.kind === 'variant')!;
      const gate = report.summary.gates.find((g) => g.gate === 'regression')!;
      outcomes.push({ code: run.code, p: comparison.test.pValue, gate: gate.passed, aOnly: comparison.test.aOnly, bOnly: comparison.test.bOnly, pairs: comparison.pairs });
    }
    // One pair per case: draft alone right on 1 case, published alone right on 6; p = 2 · 8/128.
    expect(outcomes[0]).toMatchObject({ aOnly: 1, bOnly: 6, pairs: 16 });
    expect(outcomes[0]!.p).toBeCloseTo(0.125, 12);
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
    expect(outcomes[0]!.code).toBe(0);
  });

  it('keeps the verdict in the run folder and every report, and exits by it', async () => {
    const run = await cli(['eval', 'skills/packages/travel/weather-assessment.json', '--model', 'baseline:lexical', '--min-accuracy', '0.99', '--out', 'verdict', '--json', 'verdict.json', '--markdown', 'verdict.md', '--html', 'verdict.html', '--junit', 'verdict.xml']);
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(await readFile(join(work, 'verdict', 'summary.json'), 'utf8')) as EvalSummary;
    expect(summary.gates).toEqual([expect.objectContaining({ gate: 'min-accuracy', passed: false, threshold: 0.99 })]);
    expect(summary.verdict).toMatchObject({ status: 'failed', message: 'failed: 1 of 1 gate failed', gates_set: 1, gates_failed: 1, unavailable_models: [] });
    expect(summary.verdict.cells.recorded).toBe(summary.verdict.cells.expected);
    const report = JSON.parse(await readFile(join(work, 'verdict.json'), 'utf8')) as { summary: EvalSummary };
    expect(report.summary.verdict).toEqual(summary.verdict);
    expect(await readFile(join(work, 'verdict.md'), 'utf8')).toContain('## ❌ Skillbench evaluation failed: 1 of 1 gate failed');
    expect(await readFile(join(work, 'verdict.html'), 'utf8')).toContain('<span class="verdict bad">failed: 1 of 1 gate failed</span>');
    expect(await readFile(join(work, 'verdict.xml'), 'utf8')).toContain('<property name="verdict" value="failed"/>');
  });

  it('names in the header the revision the cells ran against when the bindings pin one', async () => {
    // v2 is published; the agent's bindings still pin weather-assessment to revision 1.
    const v2 = JSON.parse(await readFile(join(EXAMPLES, 'skills/packages/travel/weather-assessment.json'), 'utf8')) as { tags: string[]; change_reason: string };
    v2.tags = [...v2.tags, 'second-revision'];
    v2.change_reason = 'Second revision.';
    await cp(join(EXAMPLES, 'skills'), join(work, 'v2', 'skills'), { recursive: true });
    await writeFile(join(work, 'v2/skills/packages/travel/weather-assessment.json'), JSON.stringify(v2, null, 2));
    const published = await cli(['publish', 'v2/skills/packages/travel/weather-assessment.json', '--json']);
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ version: 2 });
    const versions = JSON.parse((await cli(['versions', WEATHER, '--json'])).stdout) as { versions: { version: number; manifest_hash: string }[] };
    const v1 = versions.versions.find((v) => v.version === 1)!;
    const bindings = JSON.parse(await readFile(join(EXAMPLES, 'bindings/travel.json'), 'utf8')) as { name: string; version: unknown }[];
    for (const b of bindings) if (b.name === 'weather-assessment') b.version = '1';
    await writeFile(join(work, 'pinned.json'), JSON.stringify(bindings));

    const draft = await cli(['eval', 'skills/packages/travel/weather-assessment.json', '--model', 'baseline:lexical', '--compare-published', '--bindings', 'pinned.json', '--out', 'pinned-draft', '--json', 'pinned-draft.json']);
    expect(draft.code, draft.stderr).toBe(0);
    const stored = await cli(['eval', WEATHER, '--model', 'baseline:lexical', '--bindings', 'pinned.json', '--out', 'pinned-stored', '--json', 'pinned-stored.json']);
    expect(stored.code, stored.stderr).toBe(0);
    for (const file of ['pinned-draft.json', 'pinned-stored.json']) {
      const report = JSON.parse(await readFile(join(work, file), 'utf8')) as { run: RunHeader; cells: { variant: string; trace: { pinning: { skill: string; version?: number; manifest_hash?: string }[] } }[] };
      const variant = report.run.variants.find((v) => v.version !== 'draft')!;
      expect(variant).toMatchObject({ version: 1, manifest_hash: v1.manifest_hash });
      const ran = report.cells.filter((c) => c.variant === variant.label).map((c) => c.trace.pinning.find((p) => p.skill === WEATHER)!);
      expect(ran.length).toBeGreaterThan(0);
      expect(ran.every((p) => p.version === 1 && p.manifest_hash === v1.manifest_hash)).toBe(true);
    }
    // The doubt is said out loud, not left for the reader to find in the traces.
    expect(draft.stderr).toContain('warning: the bindings pin travel/weather-assessment to revision 1 while 2 is published');
    expect(stored.stderr).toContain('warning: the bindings pin travel/weather-assessment to revision 1 while 2 is published');
  });
});
