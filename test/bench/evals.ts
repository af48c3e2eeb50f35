/**
 * Bench suite `evals`: the evaluation runner's throughput and memory.
 *
 * - throughput: an instant OpenAI-compatible endpoint on loopback (a worker
 *   thread, so it does not share the runner's event loop) answers every
 *   selector call with a fixed valid decision. The runner evaluates a
 *   16-candidate catalog at concurrency 32 (each cell is one activation and one
 *   resource call through the AI SDK, the selector pipeline, the redactor of
 *   the environment's secrets that `skillbench eval` passes, and one line
 *   appended to cells.jsonl), against raw undici POSTs of a chat-completions
 *   body to the same endpoint at the same concurrency. Target: at least 500
 *   selector calls per second.
 *   A second row compares the runner with the same model client called
 *   directly at the same concurrency, replaying the very requests the selector
 *   sent in the warm-up run (same prompts, same bytes on the wire): what is left
 *   is the runner's own overhead, less what the runner saves by grouping its
 *   calls by event-loop turn (evals/runSchedule.ts), which the client called
 *   directly does not do. Target: the runner within 1.2x of the client alone.
 *   A third row, informational, compares the runner with the same replay
 *   grouped by turn as the runner groups its calls: the runner's own work with
 *   the scheduling gain taken out.
 *   The rows are medians of nine trials, each a runner run between the client
 *   alone and the client grouped (which of the two goes first alternates), so
 *   the two sides of a ratio see the same machine; one full-size trial before
 *   them warms every side up and is not counted. The suite runs the engine as
 *   `skillbench` ships it, bundled by esbuild (see run.ts).
 * - memory: the runner over 100,000 cells (2,000 cases x 2 models x 25
 *   repeats) with in-process instant models (no HTTP, so the run is quick);
 *   heap and RSS after a full GC at 10,000 cells and at 100,000 cells.
 *   Target: flat (heap growth under 10%).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { Agent, request } from 'undici';
import { closeSharedDispatcher, openModel } from '../../core/models/index';
import type { GenerateRequest, GenerateResult, ModelClient } from '../../core/models/types';
import { createRedactor, secretsFromEnv } from '../../core/redact';
import { createMemoryRegistry } from '../../core/workspace/catalog';
import { buildCatalog } from '../../evals/catalog';
import { runEval, type EvalSkillPlan } from '../../evals/runner';
import { groupedByTurn } from '../../evals/runSchedule';
import type { EvalCase } from '../../evals/suite';
import { benchPackage } from './fixtures';
import { median, type BenchRow } from './harness';

const SUITE = 'evals';
const CANDIDATES = 16;
const CONCURRENCY = 32;
const THROUGHPUT_CELLS = 4_000;
/** Runner and client-alone pairs of the throughput rows. */
const TRIALS = 9;
const MEMORY_CASES = 2_000;
const MEMORY_MODELS = 2;
const MEMORY_REPEATS = 25;
const MEMORY_CELLS = MEMORY_CASES * MEMORY_MODELS * MEMORY_REPEATS;
const MEMORY_MARK = 10_000;
/** Every run redacts its cells as `skillbench eval` and the workbench do (core/redact.ts). */
const redact = createRedactor(secretsFromEnv(process.env));

async function benchPlan(cases: number, skillCount = CANDIDATES): Promise<EvalSkillPlan> {
  const entries = Array.from({ length: skillCount }, (_, i) => ({ id: { namespace: 'bench', name: `s${String(i).padStart(2, '0')}` }, package: benchPackage(i, { detailed: false, checklistLines: 10 }) }));
  const registry = await createMemoryRegistry(entries);
  const skill = { namespace: 'bench', name: 's03' };
  const catalog = await buildCatalog({ registry, skill, source: 'bench' });
  const own = catalog.record.entries.find((e) => e.under_test)!;
  const list: EvalCase[] = Array.from({ length: cases }, (_, i) => ({
    id: `case${i}`,
    skill: 'bench/s03',
    source: 'extra',
    request: `Check topic3 for booking ${i} before the trip next week, and report the risks.`,
    expect: i % 2 === 0 ? 'activate' : 'not_activate',
    boundary: 'planning',
  }));
  return {
    skill: 'bench/s03',
    cases: list,
    variants: [{ info: { label: 'published', skill: 'bench/s03', version: 1, manifest_hash: own.manifest_hash }, registry: catalog.registry, bindings: catalog.bindings, catalog: catalog.record }],
  };
}

/** The endpoint, in a worker thread: answers every chat completion instantly with a fixed valid decision. */
const ENDPOINT = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const answer = (text) => JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1760000000, model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 300, completion_tokens: 12, total_tokens: 312 } });
const ACTIVATION = answer('{"activate":["bench/s03"]}');
const RESOURCE = answer('{"resources":[{"skill":"bench/s03","name":"topic3-ref-0"}]}');
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body.includes('<resource_catalog>') ? RESOURCE : ACTIVATION);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

async function startEndpoint(): Promise<{ url: string; stop: () => Promise<void> }> {
  const worker = new Worker(ENDPOINT, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url: `http://127.0.0.1:${port}`, stop: async () => void (await worker.terminate()) };
}

/** A model client that keeps the requests the selector sent through it (the runner's own, byte for byte). */
function recording(model: ModelClient): { model: ModelClient; requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    model: {
      spec: model.spec,
      isBaseline: model.isBaseline,
      generate: (request) => {
        requests.push(request);
        return model.generate(request);
      },
    },
  };
}

/**
 * The model client called directly at `concurrency`, replaying `requests` (what the
 * selector sent during a run: the same prompts, so only the runner's own work differs);
 * returns calls per second.
 */
async function directCalls(model: ModelClient, requests: readonly GenerateRequest[], calls: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        await model.generate(requests[next++ % requests.length]!);
      }
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

/** Raw chat-completions POSTs with undici at `concurrency`; returns calls per second. */
async function rawCalls(url: string, calls: number, concurrency: number): Promise<number> {
  const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({
    model: 'bench',
    temperature: 0.01,
    max_tokens: 512,
    messages: [
      { role: 'system', content: 'You decide which optional skills apply to one agent request.' },
      { role: 'user', content: `<request>\nCheck topic3 before the trip.\n</request>\n<skill_catalog>\n${'{"skill":"bench/sNN","display_name":"Skill","description":"Use when a request asks about a topic."}\n'.repeat(CANDIDATES)}</skill_catalog>` },
    ],
  });
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next++;
      const res = await request(`${url}/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher });
      const parsed = (await res.body.json()) as { choices: { message: { content: string } }[] };
      if (!parsed.choices[0]?.message.content) throw new Error('endpoint answered no content');
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return calls / seconds;
}

/** An in-process model that answers instantly: nothing activates, so each cell is one call. */
class InstantModel implements ModelClient {
  readonly isBaseline = true;
  constructor(readonly spec: string) {}
  async generate(_request: GenerateRequest): Promise<GenerateResult> {
    return { text: '{"activate":[]}', usage: { inputTokens: 0, outputTokens: 0 }, model: 'instant', provider: 'bench', latencyMs: 0, costUsd: 0, attempts: [] };
  }
}

function exposeGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/** Bench rows of the `evals` suite. */
export async function bench(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-bench-evals-'));
  const rows: BenchRow[] = [];
  const endpoint = await startEndpoint();
  try {
    // Throughput: runner over HTTP vs raw HTTP, same endpoint and concurrency.
    const model = await openModel(`openai-compatible:${endpoint.url}/v1#bench`, { env: {}, transport: { keepAliveTimeoutMs: 60_000 } });
    const warm = await benchPlan(200);
    // The warm-up run also records the selector's requests (activation and resource calls) for the client-alone row.
    const recorder = recording(model);
    await runEval({ models: [recorder.model], skills: [warm], concurrency: CONCURRENCY, runDir: join(dir, 'warmup'), redact });
    await rawCalls(endpoint.url, 1_000, CONCURRENCY);

    const plan = await benchPlan(THROUGHPUT_CELLS);
    const callsPerCell = 2;
    // Each trial runs the runner between the client alone and the same client grouped by turn (which
    // of the two goes first alternates), so each ratio compares neighbours, and the rows take the
    // medians: one pair drifts with whatever else the machine does (single pairs read 1.1x to 1.8x).
    const trials: { runner: number; direct: number; grouped: number; cellsPerSecond: number }[] = [];
    const grouped = groupedByTurn(model);
    // A first trial at full size is discarded: after the small warm-up the runner's own code is still
    // being optimized through its first full run (8.3 s against 5.7 s for the next ones, measured),
    // while the client's code was already warmed by every call the runner made.
    for (let trial = -1; trial < TRIALS; trial++) {
      const runDir = join(dir, `throughput-${trial + 1}`);
      const runner = async () => {
        const started = performance.now();
        const result = await runEval({ models: [model], skills: [plan], concurrency: CONCURRENCY, runDir, redact });
        const seconds = (performance.now() - started) / 1000;
        if (!result.complete || result.summary.totals.errors > 0) throw new Error(`evals bench run failed: ${JSON.stringify(result.summary.totals)}`);
        const cell = result.summary.models[0]!.skills[0]!;
        if (cell.tp + cell.fp !== THROUGHPUT_CELLS) throw new Error('evals bench fixture is not activating as expected');
        await rm(runDir, { recursive: true, force: true });
        return seconds;
      };
      const client = (m: ModelClient) => () => directCalls(m, recorder.requests, THROUGHPUT_CELLS * callsPerCell, CONCURRENCY);
      // The order alternates, so neither client always inherits the runner's heap.
      const [first, last] = trial % 2 === 0 ? [client(model), client(grouped)] : [client(grouped), client(model)];
      const before = await first();
      const seconds = await runner();
      const after = await last();
      const [direct, groupedRate] = trial % 2 === 0 ? [before, after] : [after, before];
      if (trial >= 0) trials.push({ runner: (THROUGHPUT_CELLS * callsPerCell) / seconds, direct, grouped: groupedRate, cellsPerSecond: THROUGHPUT_CELLS / seconds });
    }
    const runnerCalls = median(trials.map((t) => t.runner));
    const directRate = median(trials.map((t) => t.direct));
    const ratio = median(trials.map((t) => t.direct / t.runner));
    const groupedRate = median(trials.map((t) => t.grouped));
    const groupedRatio = median(trials.map((t) => t.grouped / t.runner));
    const rawRate = await rawCalls(endpoint.url, THROUGHPUT_CELLS * callsPerCell, CONCURRENCY);
    await model.close?.();
    rows.push({
      suite: SUITE,
      name: `runner, ${THROUGHPUT_CELLS} cells x ${callsPerCell} selector calls, concurrency ${CONCURRENCY}`,
      medianMs: 1000 / runnerCalls,
      baselineName: `raw undici POSTs, concurrency ${CONCURRENCY}`,
      baselineMs: 1000 / rawRate,
      ratio: rawRate / runnerCalls,
      target: '>= 500 selector calls/s',
      met: runnerCalls >= 500,
      note: `median of ${TRIALS}: ${runnerCalls.toFixed(0)} calls/s (${median(trials.map((t) => t.cellsPerSecond)).toFixed(0)} cells/s) vs raw ${rawRate.toFixed(0)} calls/s; ms per call`,
    });
    rows.push({
      suite: SUITE,
      name: `runner vs its model client, concurrency ${CONCURRENCY}`,
      medianMs: 1000 / runnerCalls,
      baselineName: 'openai-compatible client generate() replaying the selector\'s requests',
      baselineMs: 1000 / directRate,
      ratio,
      target: '<= 1.2x the client alone',
      met: ratio <= 1.2,
      note: `median of ${TRIALS} back-to-back pairs (${trials.map((t) => (t.direct / t.runner).toFixed(2)).join(', ')}); client alone ${directRate.toFixed(0)} calls/s; the runner's calls are grouped by event-loop turn (evals/runSchedule.ts groupedByTurn), so the client's work and the selector's each run in bursts; in strict alternation the same work read 1.26x; ms per call`,
    });
    rows.push({
      suite: SUITE,
      name: `runner vs its model client grouped by turn, concurrency ${CONCURRENCY}`,
      medianMs: 1000 / runnerCalls,
      baselineName: 'the same client replay, its calls grouped by event-loop turn as the runner groups its own',
      baselineMs: 1000 / groupedRate,
      ratio: groupedRatio,
      target: 'informational',
      note: `median of ${TRIALS} back-to-back pairs (${trials.map((t) => (t.grouped / t.runner).toFixed(2)).join(', ')}); client grouped ${groupedRate.toFixed(0)} calls/s: the runner's own work (the selector's stages, the cell lines, their redaction and writes, the closing intervals) with the scheduling gain taken out; ms per call`,
    });
  } finally {
    await endpoint.stop();
    await closeSharedDispatcher();
  }

  try {
    // Memory: heap and RSS after a full GC at 10,000 and at 100,000 cells.
    const gc = exposeGc();
    const plan = await benchPlan(MEMORY_CASES, 4);
    const models = Array.from({ length: MEMORY_MODELS }, (_, i) => new InstantModel(`bench:instant-${i}`));
    let mark: { heap: number; rss: number } | undefined;
    gc();
    const started = performance.now();
    const result = await runEval(
      { models, skills: [plan], repeats: MEMORY_REPEATS, concurrency: CONCURRENCY, runDir: join(dir, 'memory'), redact },
      {
        onCell(_cell, progress) {
          if (progress.executed === MEMORY_MARK) {
            gc();
            const m = process.memoryUsage();
            mark = { heap: m.heapUsed, rss: m.rss };
          }
        },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    gc();
    const end = process.memoryUsage();
    if (!mark || result.progress.executed !== MEMORY_CELLS) throw new Error('evals memory bench did not run every cell');
    const growth = end.heapUsed / mark.heap;
    rows.push({
      suite: SUITE,
      name: `runner memory, ${MEMORY_CELLS.toLocaleString('en-US')} cells`,
      medianMs: mb(end.heapUsed),
      baselineName: `heap MB at ${MEMORY_MARK.toLocaleString('en-US')} cells`,
      baselineMs: mb(mark.heap),
      ratio: growth,
      target: 'flat: heap growth < 10%',
      met: growth < 1.1,
      note: `heap ${mb(mark.heap).toFixed(1)} -> ${mb(end.heapUsed).toFixed(1)} MB, RSS ${mb(mark.rss).toFixed(0)} -> ${mb(end.rss).toFixed(0)} MB; ${(MEMORY_CELLS / seconds).toFixed(0)} cells/s in process (values in MB, not ms)`,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
