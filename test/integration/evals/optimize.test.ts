/**
 * The description optimizer end to end, against a real local registry seeded
 * with the example skills:
 *
 * - with the deterministic `baseline:keywords` proposer and the lexical and
 *   embedding baselines: reproducible from the recorded seed, and the
 *   proposer is never shown a held-out case;
 * - with a language-model proposer and a selector model, both emulated by
 *   local servers speaking the OpenAI-style Chat Completions wire format
 *   (emulations, not real services): every prompt the proposer was sent is
 *   inspected for held-out cases; a planted candidate whose train score rises
 *   while its held-out score falls ends in "no proven gain", and one that is
 *   better on held-out cases is proposed.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedDispatcher, openModel } from '../../../core/models/index';
import type { ModelClient } from '../../../core/models/types';
import { applyJsonPatch } from '../../../core/package/jsonPatch';
import { validatePackage } from '../../../core/package/validate';
import { openStore } from '../../../core/store/connect';
import { seedExamples } from '../../../core/store/seed';
import type { SkillStore } from '../../../core/store/types';
import { resolveTargets, type DraftTarget } from '../../../core/workspace/targets';
import { optimizeDescription, splitCases, type OptimizeOptions, type OptimizeReport } from '../../../evals/optimize';
import { createKeywordProposer, createModelProposer, type DescriptionProposer, type ProposerInput } from '../../../evals/proposers';
import { buildSuite, parseExtraCases } from '../../../evals/suite';
import { readSelectorPrompt, selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { chatCompletion, startEmulator, type Emulator, type RecordedRequest } from '../../helpers/modelEmulator';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/', import.meta.url));
const SKILL = 'travel/weather-assessment';
const SEED = 20_251_201;

let dir: string;
let store: SkillStore;
let target: DraftTarget;
const opened: ModelClient[] = [];
const emulators: Array<Emulator | ChatEndpoint> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-optimize-'));
  store = await openStore(`local:${join(dir, 'registry')}`);
  await seedExamples(store, join(EXAMPLES, 'packages'));
  const resolved = await resolveTargets([join(EXAMPLES, 'packages', 'travel', 'weather-assessment.json')], { cwd: dir });
  target = resolved.targets[0] as DraftTarget;
});
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close?.()));
  await Promise.all(emulators.map((e) => e.close()));
  await store.close();
  await closeSharedDispatcher();
  await rm(dir, { recursive: true, force: true });
});

/** The split the optimizer makes for the example skill with `seed`, computed independently. */
async function exampleSplit(seed: number, holdout = 0.4) {
  const id = { namespace: 'travel', name: 'weather-assessment' };
  const pkg = validatePackage(await readFile(join(EXAMPLES, 'packages', 'travel', 'weather-assessment.json')), { id }).normalized!;
  const extras = parseExtraCases(id, await readFile(join(EXAMPLES, 'evals', 'travel', 'weather-assessment.json'), 'utf8'), pkg).cases;
  return splitCases(buildSuite(id, pkg, extras).cases, holdout, seed);
}

/** Runs the optimizer in its own working directory (own run folders, no shared cache). */
async function optimize(options: Partial<OptimizeOptions> & Pick<OptimizeOptions, 'models' | 'proposer'>): Promise<OptimizeReport> {
  const cwd = await mkdtemp(join(dir, 'cwd-'));
  const result = await optimizeDescription({ target, store, cwd, source: 'local registry', seed: SEED, ...options });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.report;
}

/** Records every input a proposer is given. */
function recording(proposer: DescriptionProposer, inputs: ProposerInput[]): DescriptionProposer {
  return { spec: proposer.spec, isBaseline: proposer.isBaseline, propose: (input, signal) => (inputs.push(input), proposer.propose(input, signal)) };
}

const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('description optimizer with baseline:keywords and the two baselines', () => {
  it('runs the whole loop offline, reproduces its verdict from the recorded seed, and never shows the proposer a held-out case', async () => {
    const models = [await openModel('baseline:lexical'), await openModel('baseline:embedding')];
    opened.push(...models);
    const inputs: ProposerInput[] = [];
    const first = await optimize({ models, proposer: recording(createKeywordProposer(), inputs) });
    const again = await optimize({ models, proposer: createKeywordProposer() });

    const split = await exampleSplit(SEED);
    expect(first.split).toEqual(split);
    expect(first.seed).toBe(SEED);
    expect(first.proposer).toEqual({ spec: 'baseline:keywords', isBaseline: true });
    expect(first.candidates.length).toBeGreaterThan(0);
    expect(first.candidates.every((c) => c.status === 'dropped' || (c.train?.length === 2 && c.catalog_tokens! <= first.catalog.budget))).toBe(true);
    expect(['proven_gain', 'no_proven_gain']).toContain(first.verdict);
    expect(first.verdict === 'proven_gain').toBe(first.winner !== null);
    // Reproducible: the same seed gives the same split, candidates, scores and verdict in a fresh folder.
    const stable = (r: OptimizeReport) => ({ ...r, runs: r.runs.map((x) => x.config_hash) });
    expect(stable(again)).toEqual(stable(first));

    expect(inputs.length).toBeGreaterThan(0);
    const shown = JSON.stringify(inputs);
    for (const c of split.heldout) expect(shown).not.toContain(JSON.stringify(c.request).slice(1, -1));
    for (const input of inputs) expect(new Set(input.train.map((c) => c.id))).toEqual(new Set(split.train.map((c) => c.id)));
  }, 180_000);
});

/**
 * An emulated selector model that judges the skill under test by its
 * description: one holding `marker` activates it on exactly the cases in
 * `markerActivates`; any other description on exactly `plainActivates`.
 */
async function scriptedSelector(marker: string, markerActivates: Set<string>, plainActivates: Set<string>): Promise<Emulator> {
  const emulator = await startEmulator((request: RecordedRequest) => {
    const prompt = readSelectorPrompt(request.body);
    if (prompt.kind === 'resource') return chatCompletion('{"resources":[]}', 'selector', { input: 100, output: 5 });
    const user = ((request.body['messages'] as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? '');
    const line = user.split('\n').find((l) => l.startsWith('{') && l.includes(`"skill":"${SKILL}"`));
    const description = line ? String((JSON.parse(line) as { description: string }).description) : '';
    const activates = (description.includes(marker) ? markerActivates : plainActivates).has(decode(prompt.request));
    return chatCompletion(JSON.stringify({ activate: activates ? [SKILL] : [] }), 'selector', { input: 300, output: 8 });
  });
  emulators.push(emulator);
  return emulator;
}

/** An emulated proposer that always proposes `description`, recording every request. */
async function scriptedProposer(description: string): Promise<Emulator> {
  const emulator = await startEmulator(chatCompletion(JSON.stringify({ candidates: [{ description, rationale: 'Planted.' }] }), 'proposer', { input: 900, output: 60 }));
  emulators.push(emulator);
  return emulator;
}

describe('description optimizer with an emulated language-model proposer and an emulated selector model', () => {
  it('a planted candidate whose train score rises while its held-out score falls ends in no proven gain; the proposer saw no held-out case', async () => {
    const split = await exampleSplit(SEED);
    const requests = (list: typeof split.train, expect: string) => list.filter((c) => c.expect === expect).map((c) => c.request);
    // The planted description is right on every train case and wrong on every held-out one; the original the other way round on held-out.
    const overfit = new Set([...requests(split.train, 'activate'), ...requests(split.heldout, 'not_activate')]);
    const original = new Set([...requests(split.train, 'activate').slice(1), ...requests(split.heldout, 'activate')]);
    const selector = await scriptedSelector('OVERFIT', overfit, original);
    const proposerServer = await scriptedProposer('Use when a traveller asks about weather on a trip, OVERFIT to the examples.');
    const model = await openModel(`openai-compatible:${selector.origin}/v1#selector`);
    const proposerModel = await openModel(`openai-compatible:${proposerServer.origin}/v1#proposer`);
    opened.push(model, proposerModel);

    const report = await optimize({ models: [model], proposer: createModelProposer(proposerModel, { maxDescriptionChars: 1024 }), rounds: 2 });
    const planted = report.candidates.find((c) => c.description.includes('OVERFIT'))!;
    expect(planted.status).toBe('evaluated');
    expect(planted.mean_train!).toBeGreaterThan(report.original.mean_train!);
    expect(report.best?.candidate).toBe(planted.id);
    expect(report.heldout![0]!.worse).toBe(true);
    expect(report.heldout![0]!.winner.accuracy!).toBeLessThan(report.heldout![0]!.original.accuracy!);
    expect(report.verdict).toBe('no_proven_gain');
    expect(report.winner).toBeNull();
    expect(report.reason).toContain('worse');
    // The second round proposed the same description again: dropped as a duplicate, never re-run.
    expect(report.candidates.filter((c) => c.reason === 'duplicate')).toHaveLength(1);

    // Every prompt the proposer was sent: no held-out request, in any encoding.
    expect(proposerServer.requests.length).toBe(2);
    for (const request of proposerServer.requests) {
      const sent = JSON.stringify(request.body);
      for (const c of split.heldout) {
        expect(sent).not.toContain(JSON.stringify(c.request).slice(1, -1));
        expect(sent).not.toContain(JSON.stringify(JSON.stringify(c.request)).slice(1, -1));
      }
      for (const c of split.train) expect(sent).toContain(JSON.stringify(JSON.stringify(c.request).slice(1, -1)).slice(1, -1));
    }
  });

  it('proposes a candidate that is better on the held-out cases, with a patch that applies to the file', async () => {
    const positives = (list: { request: string; expect: string }[]) => list.filter((c) => c.expect === 'activate').map((c) => c.request);
    // Six held-out should-activate cases at a 0.75 share: enough for McNemar to reach p < 0.05.
    const wide = await exampleSplit(SEED, 0.75);
    expect(wide.heldout.filter((c) => c.expect === 'activate').length).toBeGreaterThanOrEqual(6);
    // The original misses every should-activate case; the improved description gets them all.
    const selector = await scriptedSelector('IMPROVED', new Set([...positives(wide.train), ...positives(wide.heldout)]), new Set());
    const proposerServer = await scriptedProposer('Use when a traveller asks about weather on a trip: forecasts, storms, heat, snow, IMPROVED.');
    const model = await openModel(`openai-compatible:${selector.origin}/v1#selector`);
    const proposerModel = await openModel(`openai-compatible:${proposerServer.origin}/v1#proposer`);
    opened.push(model, proposerModel);
    const report = await optimize({ models: [model], proposer: createModelProposer(proposerModel, { maxDescriptionChars: 1024 }), rounds: 1, holdout: 0.75 });
    expect(report.verdict).toBe('proven_gain');
    expect(report.heldout![0]).toMatchObject({ better: true, worse: false });
    expect(report.winner!.description).toContain('IMPROVED');
    const source = JSON.parse(await readFile(join(EXAMPLES, 'packages', 'travel', 'weather-assessment.json'), 'utf8')) as unknown;
    const patched = applyJsonPatch(source, report.winner!.patch);
    expect(patched.ok && (patched.value as { description: string }).description).toBe(report.winner!.description);
  });
});

describe('a gain on one model that costs another model answers', () => {
  it('is refused: the new clause makes every should-not case fire on 1 of 3 repeats of a second model, though no majority changes', async () => {
    const wide = await exampleSplit(SEED, 0.75);
    const all = [...wide.train, ...wide.heldout];
    const shouldNot = new Set(all.filter((c) => c.expect === 'not_activate').map((c) => c.request));
    // Exact answers per model, repeat and description: "gainer" misses every should-activate case
    // with the original and gets them all with the marker; "harmed" is right on everything with
    // the original, and with the marker also fires on every should-not case on repeat 0 of 3.
    const seeds = new Set<number | undefined>();
    const endpoint = await startChatEndpoint((prompt) => {
      if (prompt.kind === 'resource') return { text: selectorAnswer('resource', []) };
      seeds.add(prompt.seed);
      const marked = String(prompt.entries[SKILL]?.['description'] ?? '').includes('CLAUSE');
      const negative = shouldNot.has(decode(prompt.request));
      const fires = prompt.model === 'gainer' ? marked && !negative : !negative || (marked && prompt.seed === 0);
      return { text: selectorAnswer('activation', fires ? [SKILL] : []) };
    });
    emulators.push(endpoint);
    const proposerServer = await scriptedProposer('Use when a traveller asks about weather on a trip: forecasts, storms, heat, snow, CLAUSE.');
    const gainer = await openModel(`openai-compatible:${endpoint.baseUrl}#gainer`);
    const harmed = await openModel(`openai-compatible:${endpoint.baseUrl}#harmed`);
    const proposerModel = await openModel(`openai-compatible:${proposerServer.origin}/v1#proposer`);
    opened.push(gainer, harmed, proposerModel);

    const report = await optimize({ models: [gainer, harmed], proposer: createModelProposer(proposerModel, { maxDescriptionChars: 1024 }), rounds: 1, holdout: 0.75, repeats: 3 });
    expect([...seeds].sort()).toEqual([0, 1, 2]);
    expect(report.best?.description).toContain('CLAUSE');
    expect(report.verdict).toBe('no_proven_gain');
    const [onGainer, onHarmed] = report.heldout!;
    // The gain is real and significant on the first model ...
    expect(onGainer).toMatchObject({ better: true });
    expect(onGainer!.comparison.test.pValue).toBeLessThan(0.05);
    // ... and invisible to the majority vote on the second, whose answers it costs.
    expect(onHarmed!.comparison.test).toMatchObject({ aOnly: 0, bOnly: 0 });
    expect(onHarmed!.winner.accuracy!).toBeLessThan(onHarmed!.original.accuracy!);
    expect(onHarmed!.answers.false_activation).toMatchObject({ cases: wide.heldout.filter((c) => c.expect === 'not_activate').length, original: 0 });
    expect(onHarmed!.answers.false_activation.winner).toBeCloseTo(1 / 3, 9);
    expect(onHarmed!.worse).toBe(true);
    expect(report.winner).toBeNull();
    expect(report.reason).toContain(`worse than the original on ${harmed.spec} (per answer: false activations on the should-not cases rise from 0.000 to 0.333`);
    expect(report.harm_margin).toBe(0.05);

    // A margin wide enough for the rise does not excuse it: six should-not cases all worse is significant case by case.
    const tolerant = await optimize({ models: [gainer, harmed], proposer: createModelProposer(proposerModel, { maxDescriptionChars: 1024 }), rounds: 1, holdout: 0.75, repeats: 3, harmMargin: 0.5 });
    expect(tolerant.heldout![1]!.answers.harm).toEqual([expect.stringContaining('signed-rank')]);
    expect(tolerant.verdict).toBe('no_proven_gain');
  });
});

describe('candidates the optimizer refuses', () => {
  it('points to dropped candidates only when some were dropped, and otherwise says the proposer proposed none, and why', async () => {
    const model = await openModel('baseline:lexical');
    opened.push(model);
    const silent: DescriptionProposer = { spec: 'scripted', isBaseline: true, propose: async () => ({ candidates: [], notes: ['keywords: 4 distinctive terms (clothes, …) but no room to add one'] }) };
    const none = await optimize({ models: [model], proposer: silent, rounds: 2 });
    expect(none.verdict).toBe('no_proven_gain');
    expect(none.candidates).toEqual([]);
    expect(none.reason).toBe('no proven gain: the proposer proposed no candidate (keywords: 4 distinctive terms (clothes, …) but no room to add one)');
    expect(none.reason).not.toContain('dropped');
    const invalid: DescriptionProposer = { spec: 'scripted', isBaseline: true, propose: async () => ({ candidates: [{ description: 'x'.repeat(1100), rationale: 'too long' }] }) };
    const dropped = await optimize({ models: [model], proposer: invalid, rounds: 1 });
    expect(dropped.reason).toBe('no proven gain: no candidate could be evaluated: the one proposed was dropped (see the reason given for each)');
  });

  it('drops a description that fails validation and one that pushes the catalog over its token budget, each with the reason', async () => {
    // A catalog near its 2,000-token budget: the example namespace plus five skills with long descriptions.
    const packages = join(dir, 'padded-packages');
    await cp(join(EXAMPLES, 'packages'), packages, { recursive: true });
    for (let i = 0; i < 5; i++) {
      const description = `Use when a request asks about padding topic ${i}: ${'lorem ipsum dolor sit amet '.repeat(60)}`.slice(0, 800);
      await writeFile(join(packages, 'travel', `padding-${i}.json`), JSON.stringify({ display_name: `Padding ${i}`, description, planning_instructions: ['Answer briefly.'], change_reason: 'Padding' }));
    }
    const padded = await openStore(`local:${join(dir, 'padded-registry')}`);
    try {
      await seedExamples(padded, packages);
      const base = 'Use when someone planning or taking a trip wants to know what weather to expect.';
      const proposer: DescriptionProposer = {
        spec: 'scripted',
        isBaseline: true,
        propose: async () => ({
          candidates: [
            { description: `${base} ${'x'.repeat(1100)}`, rationale: 'too long' },
            { description: `${base} ${'Storms, typhoons, heat waves, snow and monsoon rains on the route. '.repeat(14)}`.slice(0, 1000), rationale: 'too costly' },
            { description: `${base} Forecasts, storms, heat and snow.`, rationale: 'fits' },
          ],
        }),
      };
      const model = await openModel('baseline:lexical');
      opened.push(model);
      const cwd = await mkdtemp(join(dir, 'cwd-'));
      const result = await optimizeDescription({ target, store: padded, cwd, source: 'padded', seed: SEED, models: [model], proposer, rounds: 1 });
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      const report = result.report;
      expect(report.original.catalog_tokens).toBeLessThanOrEqual(report.catalog.budget);
      const [tooLong, tooCostly, fits] = report.candidates;
      expect(tooLong).toMatchObject({ status: 'dropped', reason: 'validation_failed', message: expect.stringContaining('/description') });
      expect(tooCostly).toMatchObject({ status: 'dropped', reason: 'over_budget', message: expect.stringContaining(`above its budget of ${report.catalog.budget}`) });
      expect(tooCostly!.catalog_tokens!).toBeGreaterThan(report.catalog.budget);
      expect(fits).toMatchObject({ status: 'evaluated' });
      expect(fits!.catalog_tokens!).toBeLessThanOrEqual(report.catalog.budget);
    } finally {
      await padded.close();
    }
  });
});
