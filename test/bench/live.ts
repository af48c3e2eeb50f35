/**
 * Bench suite `workbench-live`: a live evaluation run in the workbench against
 * the same run headless.
 *
 * The run: `travel/weather-assessment` (published) on `baseline:lexical` and an
 * emulated OpenAI-compatible model on loopback (a local HTTP server speaking
 * the Chat Completions wire format, answering after a fixed delay), with
 * enough repeats to last several seconds.
 *
 * - Headless: the same `skillbench serve` with no page open; the run is
 *   started through the WorkbenchApi and polled once a second until it ends.
 * - Live: the evaluation view open in Debian's Chromium; the run is set up and
 *   started in the page (the same request) and watched to its end.
 * - For reference, the CLI (`skillbench eval`) records the same run too.
 *
 * Each run starts afresh (its folder and the answer cache are removed after
 * it). Durations are read the same way from the run folder (the header's
 * start to the last recorded cell), rounds interleave headless / live / CLI,
 * and the ratio of the medians live / headless has the target <= 1.10. During
 * each live run the page samples every animation frame and counts the
 * distinct progress states it rendered (the run's progress line and each
 * model's done count): updates per second from the first to the last, against
 * the target of at least 4.
 *
 * On Linux the suite also reads from /proc the CPU time the server and the
 * browser spent during each run. CPU time moves far less than wall time on a
 * busy machine, so it shows what the live view costs the server itself
 * (nothing measurable) apart from what the page costs the machine.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../helpers/chatEndpoint';
import { runCliProcess } from '../helpers/cli';
import { startApp, type App } from '../e2e/harness';
import { median, type BenchRow } from './harness';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKILL = 'travel/weather-assessment';
const WEATHERY = /typhoon|hot|clothes|snow|beach/i;
/** Milliseconds the emulated model takes per answer. */
const DELAY_MS = 40;
const REPEATS = 20;
const CONCURRENCY = 4;
const ROUNDS = 3;

/** The emulated model: activates on weathery requests, answers after {@link DELAY_MS}. */
function emulatedModel(): Promise<ChatEndpoint> {
  return startChatEndpoint((prompt) => {
    if (prompt.kind === 'resource') return { text: selectorAnswer('resource', []), delayMs: DELAY_MS };
    return { text: selectorAnswer('activation', WEATHERY.test(prompt.request) ? [SKILL] : []), delayMs: DELAY_MS };
  });
}

/** Clock ticks per second of /proc's CPU times. */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Every live process's parent and CPU time so far (user + system, ms), from /proc; empty where there is no /proc. */
async function processes(): Promise<Map<number, { ppid: number; cpuMs: number }>> {
  const all = new Map<number, { ppid: number; cpuMs: number }>();
  const names = await readdir('/proc').catch(() => [] as string[]);
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: state, ppid, ... utime (14th field), stime (15th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length < 13) continue;
    all.set(Number(name), { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS });
  }
  return all;
}

/** CPU time used so far by the server and by everything else this bench started (Chromium's processes), in ms. */
async function cpuNow(server: number): Promise<Cpu> {
  const all = await processes();
  const under = (root: number, pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = all.get(p)?.ppid ?? 0, hops++) if (p === root) return true;
    return false;
  };
  let browser = 0;
  for (const [pid, p] of all) if (pid !== process.pid && under(process.pid, pid) && !under(server, pid)) browser += p.cpuMs;
  return { server: [...all].filter(([pid]) => under(server, pid)).reduce((sum, [, p]) => sum + p.cpuMs, 0), browser };
}

/** CPU time (ms) of the server and of the browser. */
type Cpu = { server: number; browser: number };

/** CPU time used between two {@link cpuNow} readings. */
function cpuSpent(before: Cpu, after: Cpu): Cpu {
  return { server: after.server - before.server, browser: after.browser - before.browser };
}

/** A recorded run's duration: from its header's start to its last recorded cell, in ms; and its cell count. */
async function runDuration(dir: string): Promise<{ ms: number; cells: number }> {
  const header = JSON.parse(await readFile(join(dir, 'header.json'), 'utf8')) as { started_at: string };
  const lines = (await readFile(join(dir, 'cells.jsonl'), 'utf8')).split('\n').filter((l) => l.trim() !== '');
  let last = 0;
  for (const line of lines) last = Math.max(last, Date.parse((JSON.parse(line) as { finished_at: string }).finished_at));
  return { ms: last - Date.parse(header.started_at), cells: lines.length };
}

/** The run through the CLI in a fresh workspace copy (its own answer cache); returns its duration. */
async function cli(home: string, specs: string[], round: number): Promise<{ ms: number; cells: number }> {
  // The example workspace, as the server opens it: its extra cases join the package's examples.
  const workspace = join(home, `workspace-${round}`);
  await cp(join(ROOT, 'examples'), workspace, { recursive: true });
  const out = join(workspace, 'run');
  const args = ['eval', SKILL, ...specs.flatMap((s) => ['--model', s]), '--repeats', String(REPEATS), '--concurrency', String(CONCURRENCY), '--out', out];
  const run = await runCliProcess(args, { cwd: workspace, env: { SKILLBENCH_HOME: home } });
  // Exit 1 is a failed accuracy gate, which the bench does not set; anything else is a broken run.
  if (run.code !== 0 && run.code !== 1) throw new Error(`skillbench eval exited ${run.code}:\n${run.stderr}`);
  return runDuration(out);
}

/** The request the setup view sends for the bench's run (the API's defaults fill the rest, as for the view). */
function request(specs: string[]) {
  const [namespace, name] = SKILL.split('/');
  return { targets: [{ kind: 'published', skill: { namespace, name } }], models: specs, connection: 'default', compare_published: false, repeats: REPEATS, concurrency: CONCURRENCY };
}

/** Removes a finished run's folder and the answer cache, so the next run records every cell afresh. */
async function forget(app: App, run: string): Promise<void> {
  await rm(join(app.home, 'runs', run), { recursive: true, force: true });
  await rm(join(app.home, 'cache'), { recursive: true, force: true });
}

/** The run headless: started through the WorkbenchApi of the same server with no page open; returns its duration. */
async function headless(app: App, specs: string[]): Promise<{ run: string; ms: number; cells: number; cpu: Cpu }> {
  const before = await cpuNow(app.pid);
  const started = await app.call<{ run: string }>('evals.start', request(specs));
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const { runs } = await app.call<{ runs: { run: string; status: string }[] }>('evals.list');
    const status = runs.find((r) => r.run === started.run)?.status;
    if (status === 'complete') break;
    if (status !== 'running') throw new Error(`the headless run ended ${status ?? 'without a trace'}`);
  }
  const cpu = cpuSpent(before, await cpuNow(app.pid));
  const measured = await runDuration(join(app.home, 'runs', started.run));
  await forget(app, started.run);
  return { run: started.run, ...measured, cpu };
}

/** What the page saw during a live run. */
interface Sampled {
  /** Times (ms, page clock) at which a new progress state was on screen. */
  changes: number[];
  /** Frames in which the page's DOM had changed. */
  frames: number;
  /** Frames in which the matrix's slots changed. */
  matrixFrames: number;
}

/**
 * Page code (a string: the bench runs under tsx, whose helpers do not exist in
 * the page): after each change to the page's DOM, samples the next animation
 * frame and records when the rendered progress (the run's line and each
 * model's done count) changed. It asks for a frame only when something changed,
 * so the measurement does not keep the page drawing sixty frames a second.
 */
const SAMPLER = `(() => {
  const s = { changes: [], frames: 0, matrixFrames: 0, stop: false, last: '', mutated: false, scheduled: false };
  window.__liveBench = s;
  const sample = () => {
    s.scheduled = false;
    if (s.stop) return;
    s.frames++;
    if (s.mutated) s.matrixFrames++;
    s.mutated = false;
    const line = document.querySelector('[data-testid="run-progress"]');
    if (!line) return;
    const dones = [...document.querySelectorAll('[data-testid^="model-progress-"] [data-field="done"]')].map((e) => e.textContent).join('|');
    const state = line.textContent + '#' + dones;
    if (state !== s.last) {
      s.last = state;
      s.changes.push(performance.now());
    }
  };
  new MutationObserver((records) => {
    if (records.some((r) => r.target instanceof Element ? r.target.closest('[data-testid="matrix"]') : r.target.parentElement?.closest('[data-testid="matrix"]'))) s.mutated = true;
    if (!s.scheduled) {
      s.scheduled = true;
      requestAnimationFrame(sample);
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;

/**
 * Waits until the page expression `code` is true, polling every 250 ms (the
 * page's script policy forbids the string predicates of `waitForFunction`).
 */
async function until(page: Page, code: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(code))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${code}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The run live in the workbench, set up and started in a fresh page; returns its duration and what the page rendered. */
async function live(app: App, emulated: string): Promise<{ run: string; ms: number; cells: number; sampled: Sampled; cpu: Cpu }> {
  const page = await app.page();
  try {
    await page.getByTestId('activity-evals').click();
    await page.getByTestId('eval-new').click();
    const setup = page.getByTestId('eval-setup');
    await setup.waitFor();
    await page.getByTestId('eval-skill').selectOption(SKILL);
    await page.getByTestId('eval-model-spec').fill(emulated);
    await page.getByTestId('eval-model-add').click();
    await page.getByTestId('eval-repeats').fill(String(REPEATS));
    await setup.getByLabel('Concurrency').fill(String(CONCURRENCY));
    await page.locator('[data-testid="eval-run"]:not([disabled])').waitFor({ timeout: 120_000 });
    // The plan must be the current one (repeats applied) before the run starts.
    await until(page, `(() => { const c = document.querySelector('[data-testid="plan-cells"]'); const n = c ? Number(c.textContent.replace(/,/g, '')) : 0; return n > ${REPEATS * 2} && n % ${REPEATS} === 0; })()`, 120_000);
    await page.evaluate(SAMPLER);
    const before = await cpuNow(app.pid);
    await page.getByTestId('eval-run').click();
    const view = page.getByTestId('eval-run-view');
    await view.waitFor({ timeout: 120_000 });
    await until(page, `document.querySelector('[data-testid="run-status"]')?.getAttribute('data-status') === 'complete'`, 600_000);
    const cpu = cpuSpent(before, await cpuNow(app.pid));
    const sampled = (await page.evaluate(`(() => { const s = window.__liveBench; s.stop = true; return { changes: s.changes, frames: s.frames, matrixFrames: s.matrixFrames }; })()`)) as Sampled;
    const run = (await view.getAttribute('data-run'))!;
    const dir = join(app.home, 'runs', run);
    const measured = await runDuration(dir);
    await forget(app, run);
    return { run, ...measured, sampled, cpu };
  } finally {
    await page.context().close();
  }
}

/** Updates per second over the live window (first to last progress state), and the slowest whole second in it. */
function updateRate(changes: number[]): { perSecond: number; slowestSecond: number; longestGapMs: number } {
  if (changes.length < 2) return { perSecond: 0, slowestSecond: 0, longestGapMs: Infinity };
  const first = changes[0]!;
  const last = changes[changes.length - 1]!;
  const seconds = Math.floor((last - first) / 1000);
  let slowest = Infinity;
  for (let s = 0; s < seconds; s++) {
    const from = first + s * 1000;
    slowest = Math.min(slowest, changes.filter((t) => t >= from && t < from + 1000).length);
  }
  let gap = 0;
  for (let i = 1; i < changes.length; i++) gap = Math.max(gap, changes[i]! - changes[i - 1]!);
  return { perSecond: (changes.length - 1) / ((last - first) / 1000), slowestSecond: seconds > 0 ? slowest : changes.length, longestGapMs: gap };
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const endpoint = await emulatedModel();
  const home = await mkdtemp(join(tmpdir(), 'skillbench-bench-live-'));
  let app: App | undefined;
  try {
    app = await startApp();
    const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
    const specs = ['baseline:lexical', emulated];
    const headlessMs: number[] = [];
    const liveMs: number[] = [];
    const cliMs: number[] = [];
    const rates: ReturnType<typeof updateRate>[] = [];
    const headlessCpu: Cpu[] = [];
    const liveCpu: Cpu[] = [];
    let cells = 0;
    let matrixFrames = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const say = (what: string) => process.stderr.write(`bench: workbench-live: round ${round + 1}/${ROUNDS}, ${what}\n`);
      say('headless through the API ...');
      const h = await headless(app, specs);
      say('live in Chromium ...');
      const l = await live(app, emulated);
      if (l.run !== h.run || l.cells !== h.cells) throw new Error(`the live run (${l.run}, ${l.cells} cells) is not the headless one (${h.run}, ${h.cells} cells)`);
      say('headless through the CLI ...');
      const c = await cli(home, specs, round);
      if (c.cells !== h.cells) throw new Error(`the CLI recorded ${c.cells} cells, the API ${h.cells}`);
      cells = l.cells;
      headlessMs.push(h.ms);
      liveMs.push(l.ms);
      cliMs.push(c.ms);
      rates.push(updateRate(l.sampled.changes));
      headlessCpu.push(h.cpu);
      liveCpu.push(l.cpu);
      matrixFrames += l.sampled.matrixFrames;
      say(`headless ${h.ms} ms, live ${l.ms} ms, CLI ${c.ms} ms; ${l.sampled.changes.length} progress states in ${l.sampled.frames} changed frames; server CPU headless ${h.cpu.server.toFixed(0)} ms, live ${l.cpu.server.toFixed(0)} ms, browser CPU live ${l.cpu.browser.toFixed(0)} ms`);
    }
    const liveMedian = median(liveMs);
    const headlessMedian = median(headlessMs);
    const ratio = liveMedian / headlessMedian;
    const perSecond = median(rates.map((r) => r.perSecond));
    const slowest = Math.min(...rates.map((r) => r.slowestSecond));
    const gap = Math.max(...rates.map((r) => r.longestGapMs));
    const serverLive = median(liveCpu.map((c) => c.server));
    const serverHeadless = median(headlessCpu.map((c) => c.server));
    const what = `${cells} cells, ${REPEATS} repeats, lexical + emulated model (${DELAY_MS} ms/answer, concurrency ${CONCURRENCY})`;
    return [
      {
        suite: 'workbench-live',
        name: 'eval run with the live view open',
        medianMs: liveMedian,
        baselineName: 'same run headless (API)',
        baselineMs: headlessMedian,
        ratio,
        target: 'ratio <= 1.10',
        met: ratio <= 1.1,
        note: `${what}; live ${liveMs.join(', ')} ms, headless ${headlessMs.join(', ')} ms, CLI ${cliMs.join(', ')} ms (median ${median(cliMs)} ms)`,
      },
      {
        // CPU time is far less sensitive to a busy machine than wall time: it shows what the live view costs the server.
        suite: 'workbench-live',
        name: 'server CPU per run, live view open',
        medianMs: serverLive,
        baselineName: 'server CPU per run headless',
        baselineMs: serverHeadless,
        ratio: serverLive / serverHeadless,
        target: '(diagnostic)',
        note: `server CPU live ${liveCpu.map((c) => c.server.toFixed(0)).join(', ')} ms, headless ${headlessCpu.map((c) => c.server.toFixed(0)).join(', ')} ms; browser CPU live ${liveCpu.map((c) => c.browser.toFixed(0)).join(', ')} ms (headless ${headlessCpu.map((c) => c.browser.toFixed(0)).join(', ')} ms)`,
      },
      {
        suite: 'workbench-live',
        name: 'live UI updates (progress states/s)',
        medianMs: 1000 / perSecond,
        baselineName: '4 updates/s',
        baselineMs: 250,
        ratio: 250 / (1000 / perSecond),
        target: '>= 4 updates/s',
        met: perSecond >= 4,
        note: `${perSecond.toFixed(1)} updates/s median of ${ROUNDS} runs (${rates.map((r) => r.perSecond.toFixed(1)).join(', ')}), slowest second ${slowest}, longest gap ${gap.toFixed(0)} ms, ${matrixFrames} frames redrew the matrix`,
      },
    ];
  } finally {
    await app?.close();
    await endpoint.close();
    await rm(home, { recursive: true, force: true });
  }
}
