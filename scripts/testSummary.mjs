// The closing line of `npm test`, counted from vitest's JSON report the way a
// person reading the run would count: every failed test once, plus one for each
// test file that failed without a failed test of its own (a file that did not
// load or whose hooks threw).

/**
 * Counts passed and failed tests in a vitest JSON report.
 * @param {unknown} report the parsed `--reporter=json` output
 * @returns {{ passed: number, failed: number }}
 */
export function countResults(report) {
  const files = Array.isArray(report?.testResults) ? report.testResults : [];
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const tests = Array.isArray(file?.assertionResults) ? file.assertionResults : [];
    const failedHere = tests.filter((t) => t?.status === 'failed').length;
    passed += tests.filter((t) => t?.status === 'passed').length;
    failed += failedHere;
    if (file?.status === 'failed' && failedHere === 0) failed += 1;
  }
  if (files.length === 0) {
    passed = report?.numPassedTests ?? 0;
    failed = (report?.numFailedTests ?? 0) + (report?.numFailedTestSuites ?? 0);
  }
  return { passed, failed };
}

/**
 * The closing line, `N passed, N failed`. A run that exited non-zero with no
 * failure counted (no report, or a crash after it) counts one failure.
 * @param {unknown} report the parsed report, or undefined when there is none
 * @param {number} exitCode vitest's exit code
 */
export function summaryLine(report, exitCode) {
  return combinedSummaryLine([{ report, exitCode }]);
}

/**
 * The closing line of several vitest runs in a row (the node projects, then the
 * browser one): their counts added, each run counted as {@link summaryLine} does.
 * @param {{ report: unknown, exitCode: number }[]} runs
 */
export function combinedSummaryLine(runs) {
  let passed = 0;
  let failed = 0;
  for (const { report, exitCode } of runs) {
    const counts = report === undefined ? { passed: 0, failed: 1 } : countResults(report);
    passed += counts.passed;
    failed += exitCode !== 0 && counts.failed === 0 ? 1 : counts.failed;
  }
  return `${passed} passed, ${failed} failed`;
}
