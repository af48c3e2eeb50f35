import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSelectorPrompt, selectorAnswer, startChatEndpoint } from '../../helpers/chatEndpoint';
import { runCli, type CliRun } from '../../helpers/cli';
import { openStore } from '../../../core/store/connect';
import { seedExamples } from '../../../core/store/seed';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/packages/', import.meta.url));
const TRAVEL_BINDINGS = fileURLToPath(new URL('../../../examples/bindings/travel.json', import.meta.url));

type Run = CliRun;

interface CliResult {
  model: string;
  outcome: string;
  activated: string[];
  resources: { skill: string; name: string }[];
  diagnostics: { code: string; action?: string; skill?: string }[];
  projection: { boundary: string; section: string; totals: { totalTokens: number }; skills: { skill: string; status: string; tokens: number }[] } | null;
  trace: {
    pinning: { skill: string; status: string }[];
    calls: { kind: string; template: { id: string; version: string }; messages: { role: string; content: string }[]; raw: string | null; model: string; provider: string; attempts: unknown[] }[];
  };
}

let work: string;

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(['select', ...args], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home'), ...env } });
}

const results = (run: Run): CliResult[] => (JSON.parse(run.stdout) as { results: CliResult[] }).results;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-select-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('skillbench select', () => {
  it('selects with baseline:lexical over the example packages and prints plain JSON results', async () => {
    const run = await cli(['--request', 'Will storms or heavy snow disrupt my road trip through the Alps next week?', '--catalog', EXAMPLES, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [result, ...rest] = results(run);
    expect(rest).toEqual([]);
    expect(result!.model).toBe('baseline:lexical');
    expect(result!.outcome).toBe('ok');
    expect(result!.trace.pinning).toHaveLength(8);
    expect(result!.trace.pinning.every((p) => p.status === 'pinned')).toBe(true);
    expect(result!.activated).toContain('travel/weather-assessment');
    const activation = result!.trace.calls[0]!;
    expect(activation.kind).toBe('activation');
    expect(activation.template).toEqual({ id: 'skillbench.activation', version: '1' });
    expect(activation.messages[1]!.content).toContain('"skill":"travel/weather-assessment"');
    expect(activation.raw).toMatch(/^\{"activate":\[/);
    expect(activation.provider).toBe('baseline');
    expect(result!.projection!.boundary).toBe('planning');
    expect(result!.projection!.section).toContain('<skill id="travel/weather-assessment"');
    expect(result!.projection!.totals.totalTokens).toBeGreaterThan(0);
  });

  it('prints a compact human summary on stderr without --json', async () => {
    const run = await cli(['--request', 'Convert 100 USD to JPY for my Tokyo trip', '--catalog', EXAMPLES]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('baseline:lexical (baseline, not a language model): ok');
    expect(run.stderr).toMatch(/activated {2}.*travel\/currency-conversion \(model\)/);
  });

  it('honours a binding file, trusted activation and the synthesis boundary', async () => {
    const bindings = join(work, 'bindings.json');
    const list = JSON.parse(await readFile(TRAVEL_BINDINGS, 'utf8')) as Record<string, unknown>[];
    list.push({ namespace: 'devops', name: 'incident-response', version: 'published', activation: 'explicit', required: false });
    await writeFile(bindings, JSON.stringify(list));
    const run = await cli([
      '--request',
      'What should I pack for the forecast in Oslo?',
      '--catalog',
      EXAMPLES,
      '--bindings',
      'bindings.json',
      '--boundary',
      'synthesis',
      '--trusted-activation',
      'devops/incident-response',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = results(run);
    expect(result!.trace.pinning.map((p) => p.skill)).toEqual(list.map((b) => `${b['namespace']}/${b['name']}`));
    expect(result!.activated).toEqual(expect.arrayContaining(['travel/action-verification', 'devops/incident-response']));
    expect(result!.projection!.boundary).toBe('synthesis');
  });

  it('reports invalid bindings with their location and exits 2', async () => {
    const text = '[{"namespace":"travel","name":"weather-assessment","activation":"sometimes"}]';
    const run = await cli(['--request', 'x', '--catalog', EXAMPLES, '--bindings', text]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`line 1, column ${text.indexOf('"sometimes"') + 1} (/0/activation): activation must be one of always, auto, explicit`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports invalid packages of a folder catalog instead of dropping them silently', async () => {
    const folder = join(work, 'catalog');
    await mkdir(join(folder, 'travel'), { recursive: true });
    await copyFile(join(EXAMPLES, 'travel', 'weather-assessment.json'), join(folder, 'travel', 'weather-assessment.json'));
    await writeFile(join(folder, 'travel', 'broken.json'), '{"display_name": "Broken"}');
    const run = await cli(['--request', 'storm forecast for my trip', '--catalog', 'catalog', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { catalog: { description: string; problems: { path: string; skill: string; findings: unknown[] }[] }; results: CliResult[] };
    expect(out.catalog.description).toBe('folder catalog (1 skill)');
    expect(out.catalog.problems).toEqual([expect.objectContaining({ path: 'travel/broken.json', skill: 'travel/broken' })]);
    expect(out.catalog.problems[0]!.findings.length).toBeGreaterThan(0);
    expect(run.stderr).toContain('travel/broken.json: invalid package');
    expect(out.results[0]!.trace.pinning.map((p) => p.skill)).toEqual(['travel/weather-assessment']);
  });

  it('reads a store catalog through a connection string, with the same pinning', async () => {
    const store = await openStore(`local:${join(work, 'reg')}`);
    const report = await seedExamples(store, EXAMPLES);
    await store.close();
    expect(report.published.length).toBe(8);
    const run = await cli(['--request', 'Will storms disrupt my trip to Tokyo next week?', '--catalog', 'local:reg', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [result] = results(run);
    expect(result!.trace.pinning.every((p) => p.status === 'pinned')).toBe(true);
    expect(result!.activated).toContain('travel/weather-assessment');
  });

  describe('with an OpenAI-compatible server on a real socket', () => {
    let server: Server;
    let url: string;
    const bodies: Record<string, unknown>[] = [];

    async function body(req: IncomingMessage): Promise<string> {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      return text;
    }

    beforeAll(async () => {
      server = createServer(async (req, res) => {
        const parsed = JSON.parse(await body(req)) as { messages: { role: string; content: string }[] };
        bodies.push(parsed);
        const prompt = parsed.messages.map((m) => m.content).join('\n');
        const content = prompt.includes('<resource_catalog>')
          ? '```json\n{"resources":[{"skill":"travel/weather-assessment","name":"weather-risk-checklist"}]}\n```'
          : '{"activate":["travel/weather-assessment","travel/invented-skill"]}';
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'cmpl-1',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'stub-selector-1',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 321, completion_tokens: 12, total_tokens: 333 },
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('runs several models concurrently, sends the selector contract, and revalidates what the model returns', async () => {
      const run = await cli(['--request', 'Will storms disrupt my trip?', '--catalog', EXAMPLES, '--model', 'baseline:lexical', '--model', `openai-compatible:${url}#stub-selector`, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const [lexical, remote] = results(run);
      expect(lexical!.model).toBe('baseline:lexical');
      expect(remote!.model).toBe(`openai-compatible:${url}#stub-selector`);
      // The answer named an invented skill: the whole decision is rejected, nothing is auto-activated.
      expect(remote!.activated).toEqual([]);
      expect(remote!.diagnostics.map((d) => d.code)).toEqual(['skill_activation_selection_invalid']);
      // The model the client reports: the id the server answered with, or at least the one requested.
      expect(['stub-selector-1', 'stub-selector']).toContain(remote!.trace.calls[0]!.model);
      expect(remote!.trace.calls[0]!.provider).toBe('openai-compatible');
      expect(bodies.length).toBeGreaterThanOrEqual(1);
      const sent = bodies[0]! as { temperature?: number; max_tokens?: number; max_completion_tokens?: number };
      expect(sent.temperature).toBe(0.01);
      expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(512);
    });

    it('accepts a fenced resource answer with a trusted activation in place', async () => {
      const run = await cli([
        '--request',
        'Will storms disrupt my trip?',
        '--catalog',
        EXAMPLES,
        '--bindings',
        '[{"namespace":"travel","name":"weather-assessment","activation":"always"}]',
        '--model',
        `openai-compatible:${url}#stub-selector`,
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const [result] = results(run);
      expect(result!.activated).toEqual(['travel/weather-assessment']);
      expect(result!.resources).toEqual([{ skill: 'travel/weather-assessment', name: 'weather-risk-checklist' }]);
      expect(result!.trace.calls.map((c) => c.kind)).toEqual(['resource']);
    });

    it('exits 6 when a model cannot be reached, still printing every result', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const run = await cli(['--request', 'storms', '--catalog', EXAMPLES, '--model', 'baseline:lexical', '--model', `openai-compatible:http://127.0.0.1:${port}/v1#m`, '--json']);
      expect(run.code).toBe(6);
      const [lexical, down] = results(run);
      expect(lexical!.outcome).toBe('ok');
      expect(down!.diagnostics.map((d) => d.code)).toContain('skill_activation_selection_failed');
      expect(run.stderr).toContain('model unavailable');
    });
  });

  describe('the two selector models of guide 9.4 (an emulated OpenAI-compatible endpoint)', () => {
    it('sends --activation-model to the activation selector and --resource-model to the resource selector, as set', async () => {
      const e = await startChatEndpoint(
        (q) => ({ text: q.kind === 'activation' ? selectorAnswer('activation', ['travel/weather-assessment']) : selectorAnswer('resource', ['travel/weather-assessment#weather-risk-checklist']) }),
        { keepBodies: true },
      );
      try {
        const activation = `openai-compatible:${e.baseUrl}#activation-pick`;
        const resource = `openai-compatible:${e.baseUrl}#resource-pick`;
        const run = await cli(['--request', 'Will storms disrupt my trip to Bergen on Friday?', '--catalog', EXAMPLES, '--activation-model', activation, '--resource-model', resource, '--json']);
        expect(run.code, run.stderr).toBe(0);
        const [result] = results(run) as Array<CliResult & { activation_model: string; resource_model: string; trace: { models: { activation: string; resource: string } } }>;
        expect(result!.activated).toContain('travel/weather-assessment');
        expect(result!.trace.calls.map((c) => c.kind)).toEqual(['activation', 'resource']);
        // On the wire: each selector's request names its own model.
        const sent = e.bodies.map((b) => [readSelectorPrompt(b).kind, b['model']]);
        expect(sent).toEqual([
          ['activation', 'activation-pick'],
          ['resource', 'resource-pick'],
        ]);
        // Recorded in the result and its trace.
        expect(result).toMatchObject({ model: activation, activation_model: activation, resource_model: resource });
        expect(result!.trace.models).toEqual({ activation, resource });

        // --model stays the shorthand for both; it cannot be mixed with --activation-model.
        const both = await cli(['--request', 'storms', '--catalog', EXAMPLES, '--model', 'baseline:lexical', '--activation-model', activation]);
        expect(both.code).toBe(2);
        expect(both.stderr).toContain('--model sets both selectors');
        const bad = await cli(['--request', 'storms', '--catalog', EXAMPLES, '--resource-model', 'openai:']);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain('--resource-model');
      } finally {
        await e.close();
      }
    });
  });
});
