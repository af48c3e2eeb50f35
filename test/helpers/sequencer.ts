/**
 * The order test files start in. Vitest runs the longest files first once it
 * has their durations from an earlier run, but a clean clone has none, and by
 * file size a few long files start last: the phase then ends with one worker
 * finishing a long file while the other idles. These files start first in
 * their project; the rest keep vitest's order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that take far longer than their size suggests, longest first (their durations on a quiet two-core machine). */
const LONG_FIRST = [
  // 10,000 skills seeded through the store before the app starts (~45 s).
  'test/e2e/catalogScale.test.ts',
  // The longest journeys (~60 s, ~45 s).
  'test/e2e/journeys.test.ts',
  'test/e2e/editor.test.ts',
  // 100 SIGKILLs of a process saving in a loop (~45 s).
  'test/integration/core/workspace/crash.test.ts',
  // Waits out the server's cut-off of a client that never reads (5 s there), then measures its memory.
  'test/integration/cli/serveMemory.test.ts',
];

/** Vitest's sequencer, with {@link LONG_FIRST} moved to the front of each project. */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONG_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId).split('\\').join('/'));
      return at < 0 ? LONG_FIRST.length : at;
    };
    // The base order keeps each project's files together; reorder inside each run of one project.
    const out: TestSpecification[] = [];
    for (let start = 0; start < sorted.length; ) {
      let end = start;
      while (end < sorted.length && sorted[end]!.project.name === sorted[start]!.project.name) end++;
      const group = sorted.slice(start, end).map((spec, index) => ({ spec, index }));
      group.sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index);
      out.push(...group.map((g) => g.spec));
      start = end;
    }
    return out;
  }
}
