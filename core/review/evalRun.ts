/**
 * The eval run a publication request names as its evidence. The request
 * records the run's id, its summary and its verdict exactly as the run folder
 * holds them (`summary.json`, written by the eval engine at the end of a run),
 * so the CLI and the review view show the engine's numbers, never re-derived.
 *
 * A run must exist, have finished (a summary), and have evaluated the skill
 * the request publishes; anything else is refused with the run named.
 *
 * Node-only: reads run folders.
 */
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { ReviewRequest } from '../api/contract';
import type { EvalSummary, EvalVerdict } from '../report/evalResults';
import type { SkillId } from '../package/types';
import { skillKey } from '../package/types';
import { readTextBounded } from '../workspace/read';

/** What a request records about its eval run. */
export type ReviewEval = NonNullable<ReviewRequest['eval']>;

/** A run id: a run folder's name. */
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Headers hold every case and catalog; summaries every metric: both stay far below this. */
const MAX_RUN_FILE_BYTES = 32 * 1024 * 1024;

/** True when `run` can name a run folder (letters, digits, `.`, `_`, `-`; never `.` or `..`). */
export function isRunId(run: string): boolean {
  return RUN_ID.test(run) && run !== '.' && run !== '..';
}

async function readJson(path: string, label: string): Promise<unknown> {
  const text = await readTextBounded(path, MAX_RUN_FILE_BYTES, label);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError('invalid_request', `${label} is not JSON: ${(error as Error).message}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the run in `dir` (named `run`, a checked run id, shown as `where` in messages) as the
 * evidence of a request for `skill`:
 * - no run there: 404 `not_found` naming the run;
 * - a run of other skills: 400 `invalid_request` (`reason: other_skill`);
 * - a run without a summary yet (running, or stopped before its end): 412
 *   `precondition_failed` (`reason: no_summary`).
 */
async function readEvalEvidence(dir: string, run: string, skill: SkillId, where: string): Promise<ReviewEval> {
  let header: unknown;
  try {
    header = await readJson(join(dir, 'header.json'), `${where}/header.json`);
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'not_found') {
      throw new WorkbenchError('not_found', `no eval run '${run}' (${where} holds no run)`, { details: { run } });
    }
    throw error;
  }
  if (!isRecord(header) || header['format'] !== 'skillbench.eval/v1' || !Array.isArray(header['variants'])) {
    throw new WorkbenchError('invalid_request', `${where}/header.json is not a skillbench.eval/v1 run header`, { details: { run } });
  }
  const key = skillKey(skill);
  const skills = [...new Set((header['variants'] as unknown[]).map((v) => (isRecord(v) && typeof v['skill'] === 'string' ? v['skill'] : '')).filter((s) => s.length > 0))];
  if (!skills.includes(key)) {
    throw new WorkbenchError('invalid_request', `eval run '${run}' evaluated ${skills.length ? skills.join(', ') : 'no skill'}, not ${key}: name a run of the skill this request publishes`, {
      details: { reason: 'other_skill', run, skills },
    });
  }
  let summary: unknown;
  try {
    summary = await readJson(join(dir, 'summary.json'), `${where}/summary.json`);
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'not_found') {
      throw new WorkbenchError('precondition_failed', `eval run '${run}' has no summary yet: it is still running or stopped before its end; run it to the end first`, {
        details: { reason: 'no_summary', run },
      });
    }
    throw error;
  }
  if (!isEvalSummary(summary)) {
    throw new WorkbenchError('invalid_request', `${where}/summary.json is not the summary of a skillbench.eval/v1 run`, { details: { run } });
  }
  const { status, message } = summary.verdict;
  return { run, summary, verdict: { passed: status === 'passed', status, message } };
}

const VERDICT_STATUSES: ReadonlySet<unknown> = new Set<EvalVerdict['status']>(['passed', 'failed', 'unavailable', 'incomplete']);

/**
 * Whether parsed JSON is a run's summary. `summary.json` is the eval engine's
 * own output (evals/runFiles.ts writes it whole, atomically), so a file
 * that has the summary's members (the lists the review view and the CLI walk,
 * the totals, and a verdict whose status and message they show) is that
 * output and the rest of it is recorded exactly as the engine wrote it; what
 * this tells apart is a file of another kind or a hand-edited one missing
 * what every reader dereferences.
 */
function isEvalSummary(value: unknown): value is EvalSummary {
  if (!isRecord(value) || !Array.isArray(value['models']) || !Array.isArray(value['comparisons']) || !Array.isArray(value['gates']) || !isRecord(value['totals'])) return false;
  const verdict = value['verdict'];
  return isRecord(verdict) && VERDICT_STATUSES.has(verdict['status']) && typeof verdict['message'] === 'string';
}

/** A folder that may hold run folders, with how messages name it. */
export interface RunsPlace {
  dir: string;
  /** The folder as messages show it (relative, never a secret). */
  where: string;
}

/**
 * Finds run `run` in the first of `places` that holds it and reads it as the
 * evidence of a request for `skill` ({@link readEvalEvidence}); 404 naming the
 * run and every place looked in when none does.
 */
export async function findEvalEvidence(run: string, places: readonly RunsPlace[], skill: SkillId): Promise<ReviewEval> {
  if (!isRunId(run)) throw new WorkbenchError('invalid_request', `invalid eval run id '${run.slice(0, 140)}': use the run folder's name`, { details: { run: run.slice(0, 140) } });
  for (const place of places) {
    try {
      return await readEvalEvidence(join(place.dir, run), run, skill, `${place.where}/${run}`);
    } catch (error) {
      if (!(error instanceof WorkbenchError && error.code === 'not_found')) throw error;
    }
  }
  throw new WorkbenchError('not_found', `no eval run '${run}' (looked in ${places.map((p) => p.where).join(' and ') || 'no runs folder'})`, { details: { run } });
}
