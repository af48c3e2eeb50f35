/**
 * The reading rules of a request's eval evidence, on run folders written here:
 * the summary and verdict come back exactly as `summary.json` holds them; an
 * unknown run, a run of other skills, a run without a summary, a malformed
 * file and a run id that climbs out of the runs folder are each refused with
 * the run named.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { findEvalEvidence, isRunId } from '../../../../core/review/evalRun';
import { rejection } from '../../../helpers/rejection';

const SKILL = { namespace: 'travel', name: 'weather-assessment' };
const header = (skill: string) => ({ format: 'skillbench.eval/v1', run_id: 'x', config_hash: 'sha256:0', variants: [{ label: 'draft', skill, version: 'draft', manifest_hash: 'sha256:1' }] });
const summary = (status: string) => ({ models: [{ model: 'baseline:lexical', skills: [] }], comparisons: [], totals: { cells: 4, errors: 0, invalid: 0, cached: 0 }, gates: [], verdict: { status, message: `${status}: no gates set` } });

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchError);

describe('findEvalEvidence', () => {
  let dir: string;
  let places: { dir: string; where: string }[];
  const run = async (name: string, files: Record<string, unknown>) => {
    await mkdir(join(dir, 'b', name), { recursive: true });
    for (const [file, value] of Object.entries(files)) await writeFile(join(dir, 'b', name, file), typeof value === 'string' ? value : JSON.stringify(value));
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-eval-evidence-'));
    await mkdir(join(dir, 'a'));
    places = [{ dir: join(dir, 'a'), where: 'first' }, { dir: join(dir, 'b'), where: 'second' }];
    await run('passed', { 'header.json': header('travel/weather-assessment'), 'summary.json': summary('passed') });
    await run('failed', { 'header.json': header('travel/weather-assessment'), 'summary.json': summary('failed') });
    await run('other', { 'header.json': header('travel/currency-conversion'), 'summary.json': summary('passed') });
    await run('running', { 'header.json': header('travel/weather-assessment') });
    await run('garbled', { 'header.json': header('travel/weather-assessment'), 'summary.json': '{"models": [' });
    const { comparisons: _comparisons, ...noComparisons } = summary('passed');
    await run('partial', { 'header.json': header('travel/weather-assessment'), 'summary.json': noComparisons });
    await run('unknown-status', { 'header.json': header('travel/weather-assessment'), 'summary.json': summary('maybe') });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the summary as recorded and the verdict with its status, from the first place holding the run', async () => {
    expect(await findEvalEvidence('passed', places, SKILL)).toEqual({ run: 'passed', summary: summary('passed'), verdict: { passed: true, status: 'passed', message: 'passed: no gates set' } });
    expect((await findEvalEvidence('failed', places, SKILL)).verdict).toEqual({ passed: false, status: 'failed', message: 'failed: no gates set' });
  });

  it('refuses an unknown run naming it and every place looked in', async () => {
    const error = await failure(findEvalEvidence('nothing', places, SKILL));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe("no eval run 'nothing' (looked in first and second)");
  });

  it('refuses a run of other skills, a run without a summary and a garbled summary', async () => {
    const other = await failure(findEvalEvidence('other', places, SKILL));
    expect(other).toMatchObject({ code: 'invalid_request', details: { reason: 'other_skill', run: 'other', skills: ['travel/currency-conversion'] } });
    expect((await failure(findEvalEvidence('running', places, SKILL))).details).toMatchObject({ reason: 'no_summary', run: 'running' });
    const garbled = await failure(findEvalEvidence('garbled', places, SKILL));
    expect(garbled.code).toBe('invalid_request');
    expect(garbled.message).toContain('second/garbled/summary.json is not JSON');
  });

  it('refuses a summary missing what the review shows, or with a verdict status no run gives', async () => {
    for (const id of ['partial', 'unknown-status']) {
      const error = await failure(findEvalEvidence(id, places, SKILL));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toBe(`second/${id}/summary.json is not the summary of a skillbench.eval/v1 run`);
    }
  });

  it('never takes a run id that leaves the runs folder', async () => {
    for (const id of ['..', '.', '../b/passed', 'a/b', '']) expect(isRunId(id)).toBe(false);
    expect((await failure(findEvalEvidence('..', places, SKILL))).code).toBe('invalid_request');
  });
});
