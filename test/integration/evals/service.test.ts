/**
 * One evaluation service behind both front ends: the README's
 * `skillbench eval travel/weather-assessment` (the real CLI, from a folder that
 * is not a workspace) and the workbench's Evaluate of the same published skill
 * (the WorkbenchApi over the direct transport, with the example workspace open
 * as `skillbench serve` opens it) bring the same cases, say so the same way,
 * and report the same numbers.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchEvents } from '../../../core/api/contract';
import { exampleWorkspaceDir } from '../../../core/store/seed';
import { createEvalsPort } from '../../../evals/port';
import type { EvalSummary, RunHeader } from '../../../evals/types';
import { runCli } from '../../helpers/cli';
import { openWorkbench, type Workbench } from '../../helpers/workbench';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const README_MODELS = ['baseline:lexical', 'baseline:embedding'];

let work: string;
let wb: Workbench;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-one-engine-'));
  wb = await openWorkbench('direct', { evals: createEvalsPort({ tickMs: 20 }), dataDir: join(work, 'workbench-data') });
});
afterAll(async () => {
  await wb?.close();
  await rm(work, { recursive: true, force: true });
});

/** The rates and counts of a summary, per model and skill row, as a reader compares them. */
function figures(summary: Pick<EvalSummary, 'models'>) {
  return summary.models.map((m) => ({
    model: m.model,
    cells: m.cells,
    rows: m.skills.map((s) => ({ skill: s.skill, variant: s.variant, tp: s.tp, fp: s.fp, tn: s.tn, fn: s.fn, accuracy: s.accuracy, precision: s.precision, recall: s.recall, f1: s.f1 })),
  }));
}

describe('the README eval and the workbench Evaluate of one skill', { timeout: 240_000 }, () => {
  it('bring the same cases, state them in the header, and report the same numbers', async () => {
    // The README's command, run where a newcomer runs it: a folder that holds no workspace.
    const cli = await runCli(['eval', 'travel/weather-assessment', ...README_MODELS.flatMap((m) => ['--model', m]), '--json', 'readme.json'], {
      cwd: work,
      env: { SKILLBENCH_HOME: join(work, 'cli-home') },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(work, 'readme.json'), 'utf8')) as { run: RunHeader; summary: EvalSummary };

    await wb.service.openWorkspace(exampleWorkspaceDir());
    const request = { targets: [{ kind: 'published' as const, skill: WEATHER }], models: README_MODELS, connection: 'default' };
    const plan = await wb.client['evals.plan'](request);
    let id: string | undefined = undefined;
    const finished = new Promise<WorkbenchEvents['evals.finished']>((resolve) => {
      const off = wb.client.on('evals.finished', (e) => {
        if (e.run.run === id) {
          off();
          resolve(e);
        }
      });
    });
    id = (await wb.client['evals.start'](request)).run;
    const done = await finished;
    const detail = await wb.client['evals.get']({ run: id });

    // The same cases: the package's examples plus the example workspace's extra cases, counted the same way.
    const pkg = JSON.parse(await readFile(join(exampleWorkspaceDir(), 'skills/packages/travel/weather-assessment.json'), 'utf8')) as { activation_examples: { should_activate: string[]; should_not_activate: string[] } };
    const extras = JSON.parse(await readFile(join(exampleWorkspaceDir(), 'skills/evals/travel/weather-assessment.json'), 'utf8')) as { cases: unknown[] };
    const examples = pkg.activation_examples.should_activate.length + pkg.activation_examples.should_not_activate.length;
    expect(report.run.cases).toHaveLength(examples + extras.cases.length);
    expect(detail.cases.map((c) => c.id)).toEqual(report.run.cases.map((c) => c.id));
    expect(plan.skills[0]).toMatchObject({ cases: examples + extras.cases.length, examples, extra_cases: extras.cases.length });
    expect(cli.stderr).toContain(`cases of travel/weather-assessment: ${examples} activation examples + ${extras.cases.length} extra cases`);
    expect(report.run.extras?.['travel/weather-assessment']).toMatch(/skills\/evals\/travel\/weather-assessment\.json$/);

    // One configuration, so one run id, and the same figures in both.
    expect(done.run.config_hash).toBe(report.run.config_hash);
    expect(figures(done.summary!)).toEqual(figures(report.summary));
    expect(figures(detail.summary!)).toEqual(figures(report.summary));
    expect(done.summary!.comparisons.map((c) => c.test)).toEqual(report.summary.comparisons.map((c) => c.test));
  });
});
