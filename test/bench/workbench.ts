/**
 * Bench suite `workbench-evals`: the evaluation views in Debian's Chromium
 * against `skillbench serve`.
 *
 * - A 10 models x 200 cases x 5 repeats run (10,000 cells) opened in the
 *   results matrix and scrolled top to bottom, one step per frame: the median
 *   frame time against scrolling a plain element of the same height in the same
 *   page. Target: at least 50 frames per second (a frame at most 20 ms).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { configHash } from '../../evals/runner';
import type { CaseInfo, CellRecord, RunHeader } from '../../evals/types';
import { resolveSelectorLimits } from '../../core/selector/limits';
import { startApp } from '../e2e/harness';
import { median, type BenchRow } from './harness';

const MODELS = 10;
const CASES = 200;
const REPEATS = 5;
const SKILL = 'bench/matrix';

/** Writes a recorded 10,000-cell run into the server's run folder; returns its id. */
async function writeMatrixRun(home: string): Promise<string> {
  const models = Array.from({ length: MODELS }, (_, i) => ({ spec: `openai-compatible:http://127.0.0.1:9/v1#model-${i}`, isBaseline: false }));
  const cases: CaseInfo[] = Array.from({ length: CASES }, (_, i) => ({
    id: `case-${String(i).padStart(3, '0')}`,
    skill: SKILL,
    source: i % 2 ? 'should_not_activate' : 'should_activate',
    request: `Request number ${i}: plan the weather for a trip leg ${i}`,
    expect: i % 2 ? 'not_activate' : 'activate',
    boundary: 'planning',
  }));
  const variants = [{ label: 'published', skill: SKILL, version: 1, manifest_hash: 'sha256:bench' }];
  const catalogs = { [`published|${SKILL}`]: { entries: [{ skill: SKILL, version: 1 as const, manifest_hash: 'sha256:bench', activation: 'auto' as const, under_test: true }], tokens: 100, budget: 2000, source: 'bench' } };
  const limits = resolveSelectorLimits({});
  if (!limits.ok) throw new Error('selector limits');
  const hash = configHash({ models, variants, catalogs, cases, repeats: REPEATS, limits: limits.limits });
  const header: RunHeader = { format: 'skillbench.eval/v1', run_id: 'bench', started_at: new Date().toISOString(), config_hash: hash, models, variants, catalogs, repeats: REPEATS, concurrency: 4, cases };
  const lines: string[] = [];
  for (let r = 0; r < REPEATS; r++) {
    for (const c of cases) {
      models.forEach((m, mi) => {
        const seed = (mi * 7 + Number(c.id.slice(5)) * 3 + r) % 10;
        const outcome: CellRecord['outcome'] = seed === 0 ? 'error' : seed < 7 === (c.expect === 'activate') ? 'activated' : 'not_activated';
        const cell: CellRecord = {
          key: `${m.spec}|published|${c.id}|${r}`,
          model: m.spec,
          variant: 'published',
          case: c.id,
          skill: SKILL,
          repeat: r,
          expect: c.expect,
          outcome,
          invalid: false,
          activated: outcome === 'activated' ? [SKILL] : [],
          resources: [],
          resources_correct: null,
          diagnostics: [],
          latency_ms: 100 + seed * 10,
          input_tokens: 500,
          output_tokens: 20,
          cost_usd: null,
          cached: false,
          ...(outcome === 'error' && { error: 'call failed: timeout: emulated' }),
          trace: { boundary: 'planning', bindingSource: 'given', pinning: [], activation: { boundary: null, activated: [], policy: null }, resourceCatalog: [], calls: [], usage: { inputTokens: 500, outputTokens: 20 }, modelLatencyMs: 100, templates: { activation: { id: 'a', version: '1' }, resource: { id: 'r', version: '1' } } },
          finished_at: new Date().toISOString(),
        };
        lines.push(JSON.stringify(cell));
      });
    }
  }
  const dir = join(home, 'runs', hash);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'header.json'), JSON.stringify(header));
  await writeFile(join(dir, 'cells.jsonl'), `${lines.join('\n')}\n`);
  return hash;
}

/**
 * Scrolls `selector` from top to bottom, one step per animation frame; returns
 * the frame times (ms). The page code is a string: the bench runs under tsx,
 * whose helpers do not exist in the page.
 */
async function scrollFrames(page: Page, selector: string, steps: number): Promise<number[]> {
  const code = `new Promise((resolve) => {
    const el = document.querySelector(${JSON.stringify(selector)});
    el.scrollTop = 0;
    const step = Math.max(1, (el.scrollHeight - el.clientHeight) / ${steps});
    const times = [];
    let last = performance.now();
    let i = 0;
    function tick() {
      const now = performance.now();
      if (i > 0) times.push(now - last);
      last = now;
      if (i++ >= ${steps}) return resolve(times);
      el.scrollTop += step;
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  })`;
  return (await page.evaluate(code)) as number[];
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const app = await startApp();
  try {
    // 1. The 10,000-cell matrix.
    process.stderr.write('bench: workbench-evals: a 10,000-cell run in the matrix ...\n');
    const run = await writeMatrixRun(app.home);
    const page = await app.page();
    await page.evaluate(`(() => {
      const plain = document.createElement('div');
      plain.id = 'bench-plain';
      plain.style.cssText = 'position:fixed;left:0;top:0;width:600px;height:500px;overflow:auto;z-index:-1;visibility:hidden';
      const inner = document.createElement('div');
      inner.style.height = '${CASES * 30}px';
      plain.append(inner);
      document.body.append(plain);
    })()`);
    await page.getByTestId('activity-evals').click();
    await page.locator(`[data-testid="eval-run-item"][data-run="${run}"]`).click({ timeout: 120_000 });
    await page.locator('[data-testid="matrix-row"]').first().waitFor({ timeout: 120_000 });
    const slots = await page.locator('[data-testid="slot"]').count();
    const matrixFrames: number[] = [];
    const plainFrames: number[] = [];
    for (let round = 0; round < 5; round++) {
      matrixFrames.push(...(await scrollFrames(page, '[data-testid="matrix"]', 60)));
      plainFrames.push(...(await scrollFrames(page, '#bench-plain', 60)));
    }
    const frameMs = median(matrixFrames);
    const plainMs = median(plainFrames);
    const worst = [...matrixFrames].sort((a, b) => a - b)[Math.floor(matrixFrames.length * 0.95)]!;
    rows.push({
      suite: 'workbench-evals',
      name: 'scroll 10,000-cell matrix (frame)',
      medianMs: frameMs,
      baselineName: 'scroll plain element',
      baselineMs: plainMs,
      ratio: frameMs / plainMs,
      target: '>= 50 fps (<= 20 ms/frame)',
      met: frameMs <= 20,
      note: `${(1000 / frameMs).toFixed(0)} fps median, p95 frame ${worst.toFixed(1)} ms, ${slots} slots in the DOM`,
    });

  } finally {
    await app.close();
  }
  return rows;
}
