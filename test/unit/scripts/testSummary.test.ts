/**
 * The closing line of `npm test` counts what a person would count: each failed
 * test once, and one more for a test file that failed without a failed test.
 * The report comes from a real vitest run over a small sample project.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module script without type declarations
import { combinedSummaryLine, countResults, summaryLine } from '../../../scripts/testSummary.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const sample = fileURLToPath(new URL('./fixtures/vitest-run', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'skillbench-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let sampleRun: unknown;

/** The JSON report of one real vitest run over the sample (run once: each run is a whole vitest process). */
function sampleReport(): unknown {
  sampleRun ??= runSample();
  return structuredClone(sampleRun);
}

function runSample(): unknown {
  const out = join(dir, 'report.json');
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', sample, '--reporter=json', `--outputFile.json=${out}`],
    { cwd: sample, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } },
  );
  expect(run.status).toBe(1);
  return JSON.parse(readFileSync(out, 'utf8'));
}

describe('npm test closing line', () => {
  it('counts one failed test and one file that did not load as two failures, nested suites adding nothing', () => {
    const report = sampleReport();
    expect(countResults(report)).toEqual({ passed: 3, failed: 2 });
    expect(summaryLine(report, 1)).toBe('3 passed, 2 failed');
  });

  it('counts a run that failed with nothing counted as one failure', () => {
    expect(summaryLine(undefined, 1)).toBe('0 passed, 1 failed');
    expect(summaryLine({ testResults: [{ status: 'passed', assertionResults: [{ status: 'passed' }] }] }, 1)).toBe('1 passed, 1 failed');
    expect(summaryLine({ testResults: [{ status: 'passed', assertionResults: [{ status: 'passed' }] }] }, 0)).toBe('1 passed, 0 failed');
  });

  it('adds the runs of the node and browser phases, each counted on its own', () => {
    const report = sampleReport();
    const clean = { testResults: [{ status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }] }] };
    expect(combinedSummaryLine([{ report, exitCode: 1 }, { report: clean, exitCode: 0 }])).toBe('5 passed, 2 failed');
    // A phase that exited non-zero with nothing failed counts one failure; a phase with no report, one.
    expect(combinedSummaryLine([{ report: clean, exitCode: 0 }, { report: clean, exitCode: 1 }])).toBe('4 passed, 1 failed');
    expect(combinedSummaryLine([{ report: clean, exitCode: 0 }, { report: undefined, exitCode: 1 }])).toBe('2 passed, 1 failed');
    expect(combinedSummaryLine([{ report: clean, exitCode: 0 }, { report: clean, exitCode: 0 }])).toBe('4 passed, 0 failed');
  });
});
