/**
 * `advisor.analyze` of the WorkbenchApi through the direct transport, with a
 * local server emulating an OpenAI-compatible Chat Completions endpoint in
 * place of a hosted model (an emulation, not a real service; it records every
 * request the advisor sends).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { validatePackage } from '../../../../core/package/validate';
import { chatCompletion, startEmulator, type Emulator } from '../../../helpers/modelEmulator';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/skills/packages/travel/weather-assessment.json', import.meta.url));
const WEATHER = { namespace: 'travel', name: 'weather-assessment' };

const ANSWER = {
  summary: 'Clear trigger vocabulary; the should-not examples are close neighbours.',
  suggestions: [{ code: 'tags', message: 'Add a "packing" tag.', path: '/tags' }],
  proposals: [
    { title: 'Mention typhoons', rationale: 'Two requests name them.', patch: [{ op: 'replace', path: '/description', value: 'Use when someone planning or taking a trip asks what weather to expect: forecasts, seasonal climate, typhoons, storms, heat or snow that could disrupt a route, and what to pack.' }] },
    { title: 'Add a packing tag', rationale: 'Catalog filtering.', patch: [{ op: 'add', path: '/tags/-', value: 'packing' }] },
    { title: 'Blind edit', rationale: 'Edits a resource body it was never shown.', patch: [{ op: 'replace', path: '/resources/0/content', value: 'Storms.' }] },
  ],
};

describe('advisor.analyze over the WorkbenchApi (direct transport)', () => {
  let wb: Workbench;
  let emulator: Emulator | undefined;
  let text: string;

  beforeAll(async () => {
    text = await readFile(EXAMPLE, 'utf8');
    wb = await openWorkbench('direct');
  });
  afterAll(async () => {
    await wb?.close();
  });
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('returns advice and proposals from an emulated OpenAI-compatible server, each with its patched package or the reason it was dropped', async () => {
    emulator = await startEmulator(chatCompletion(JSON.stringify(ANSWER), 'advisor-emulated', { input: 2000, output: 400 }));
    const view = await wb.client['advisor.analyze']({ text, skill: WEATHER, model: `openai-compatible:${emulator.origin}/v1#advisor` });
    expect(view.validation.valid).toBe(true);
    const analysis = view.analysis!;
    expect(analysis.summary).toBe(ANSWER.summary);
    expect(analysis.suggestions[0]).toMatchObject({ code: 'tags', path: '/tags' });
    expect(analysis.proposals.map((p) => p.id)).toEqual(['p1', 'p2']);
    expect(analysis.dropped.map((d) => [d.id, d.reason])).toEqual([['p3', 'withheld_content']]);
    const [first, second] = analysis.proposals;
    const a = validatePackage(first!.text, { id: WEATHER });
    expect(a.valid).toBe(true);
    expect(a.normalized!.description).toContain('typhoons');
    expect(validatePackage(second!.text, { id: WEATHER }).normalized!.tags).toContain('packing');
    expect(first!.patch).toEqual(ANSWER.proposals[0]!.patch);
    // The normalized package the patches address is returned too, and the model never saw resource bodies.
    expect(validatePackage(view.normalized_text!, { id: WEATHER }).valid).toBe(true);
    expect(emulator.requests).toHaveLength(1);
    expect(JSON.stringify(emulator.requests[0]!.body)).not.toContain('Initial example package');
  });

  it('an invalid package gets its findings and no model call', async () => {
    emulator = await startEmulator(chatCompletion(JSON.stringify(ANSWER), 'advisor-emulated', { input: 1, output: 1 }));
    const broken = JSON.stringify({ ...(JSON.parse(text) as object), description: '' });
    const view = await wb.client['advisor.analyze']({ text: broken, skill: WEATHER, model: `openai-compatible:${emulator.origin}/v1#advisor` });
    expect(view.validation.valid).toBe(false);
    expect(view.validation.errors.some((f) => f.path === '/description')).toBe(true);
    expect(view.analysis).toBeNull();
    expect(emulator.requests).toHaveLength(0);
  });

  it('refuses a malformed model spec at /model', async () => {
    const error = await wb.client['advisor.analyze']({ text, skill: WEATHER, model: 'openai:' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchApiError);
    expect((error as WorkbenchApiError).data).toMatchObject({ code: 'invalid_request', pointer: '/model' });
  });
});
