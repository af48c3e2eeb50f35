/**
 * The order test files start in. Vitest runs the longest files first once it
 * has their durations from an earlier run, but a clean clone has none, and by
 * file size a few long files start last: the phase then ends with one worker
 * finishing a long file while the other idles. These files start first in
 * their project; the rest keep vitest's order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files started first, longest first, with their seconds on a quiet two-core
 * machine (temporary files on a disk): every e2e file (so the two workers end close together; in vitest's
 * own order one worker ran the last long file alone for 16 s), then the node
 * files that take far longer than their size suggests.
 */
const LONG_FIRST = [
  // The longest journeys.
  'test/e2e/journeys.test.ts', // 47
  'test/e2e/editor.test.ts', // 46
  'test/e2e/shell.test.ts', // 34
  'test/e2e/form.test.ts', // 33
  // 10,000 skills seeded through the store before the app starts (20 s on a disk, 13 s on the
  // tmpfs npm test uses when it can), then 8 s of tests.
  'test/e2e/catalogScale.test.ts', // 30
  'test/e2e/review.test.ts', // 30
  'test/e2e/keyboard.test.ts', // 29
  'test/e2e/evals.test.ts', // 29
  'test/e2e/interop.test.ts', // 20
  'test/e2e/redisConnections.test.ts', // 18
  'test/e2e/diff.test.ts', // 17
  'test/e2e/offline.test.ts', // 17
  'test/e2e/catalogHealth.test.ts', // 13
  'test/e2e/evalCharts.test.ts', // 8
  'test/e2e/versions.test.ts', // 7
  // 100 SIGKILLs of processes saving in a loop, in two chains of 50.
  'test/integration/core/workspace/crash.test.ts', // 30
  // Evaluation runs through the CLI, some against the real binary.
  'test/integration/cli/eval.test.ts', // 22
  // Waits out the server's cut-off of a client that never reads (5 s there), then measures its memory.
  'test/integration/cli/serveMemory.test.ts', // 8
];

/**
 * Projects whose files start before every other project's: the unit-heap
 * project's two files (vitest.config.ts) run in fresh processes for about 5 s
 * each; in vitest's own order they started last and were the node phase's last
 * 5 s, with a core idle.
 */
const FIRST_PROJECTS = ['unit-heap'];

/** Vitest's sequencer, with {@link FIRST_PROJECTS} first and {@link LONG_FIRST} moved to the front of each project. */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONG_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId).split('\\').join('/'));
      return at < 0 ? LONG_FIRST.length : at;
    };
    // The base order keeps each project's files together; reorder inside each run of one project.
    const groups: TestSpecification[][] = [];
    for (let start = 0; start < sorted.length; ) {
      let end = start;
      while (end < sorted.length && sorted[end]!.project.name === sorted[start]!.project.name) end++;
      const group = sorted.slice(start, end).map((spec, index) => ({ spec, index }));
      group.sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index);
      groups.push(group.map((g) => g.spec));
      start = end;
    }
    const first = (group: TestSpecification[]) => (FIRST_PROJECTS.includes(group[0]!.project.name) ? 0 : 1);
    // A stable sort: the other projects keep vitest's order.
    return groups.sort((a, b) => first(a) - first(b)).flat();
  }
}
