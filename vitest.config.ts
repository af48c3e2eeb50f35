import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/helpers/sequencer.ts';

/**
 * Workers of the unit and integration projects: their tests wait on child
 * processes, sockets and redis-server for about a fifth of their time, so on
 * two cores a third worker keeps both busy (measured back to back, the node
 * phase took 126-138 s with three workers against 146-156 s with two; four
 * took 138 s and only added contention).
 */
const NODE_WORKERS = 3;
/**
 * Workers of the e2e project, each with its own Chromium and servers: two keep
 * both cores busy, and a third Chromium made the phase slower (224 s against 184 s).
 */
const E2E_WORKERS = 2;

/**
 * Unit tests that measure the worker's live heap (with a full collection every few
 * milliseconds): in a worker that keeps the modules of every file it ran, each
 * collection walks all of them, so these run in a fresh process of their own.
 */
const HEAP_TESTS = ['test/unit/evals/reports/json.test.ts', 'test/unit/evals/reports/html.test.ts'];

// `npm test` (scripts/test.mjs) runs the unit and integration projects first and
// the e2e project after them, so Chromium never competes with the node tests.
export default defineConfig({
  test: {
    pool: 'forks',
    // A clean clone has no durations from an earlier run: start the known long files first.
    sequence: { sequencer: LongFirstSequencer },
    // expect.poll waits 1 s by default, which a loaded 2-core machine can outlast while
    // a correct UI or process is still catching up; like the test timeouts, this limit
    // only catches a state that never comes.
    expect: { poll: { timeout: 30_000, interval: 50 } },
    // A timeout only catches a hang: no verdict may rest on speed, and a loaded
    // 2-core machine runs the integration tests many times slower than an idle one.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    projects: [
      {
        // Pure code: each worker loads the modules once for all its files. A test that
        // changes shared state (the environment, timers, a module's settings) restores it.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: HEAP_TESTS,
          isolate: false,
          maxWorkers: NODE_WORKERS,
          // Before any file's imports: a store persisted in localStorage binds to it when first loaded.
          setupFiles: ['test/helpers/memoryStorage.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-heap',
          include: HEAP_TESTS,
          maxWorkers: NODE_WORKERS,
        },
      },
      {
        // Real processes, sockets, redis-server and the CLI (mostly in process, through
        // main(argv, io); the real binary where only a process will do). Like the unit
        // tests, each worker loads the modules once for all its files (loading them again
        // per file cost the node phase 42 s of import time, against 14 s now): a test
        // that stubs the environment or mocks a module undoes it after itself.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
          maxWorkers: NODE_WORKERS,
        },
      },
      {
        // Chromium against `skillbench serve`: a renderer build, a server per app and one
        // Chromium per worker, shared by its files (hence no isolation; each page gets a
        // fresh browser context). Every wait is for the app's own signal; the limits
        // (test/e2e/harness.ts) only catch a state that never comes on a busy machine.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          isolate: false,
          maxWorkers: E2E_WORKERS,
          // Projects with different worker counts run as groups, one after the other:
          // a plain `vitest run` also starts the e2e tests after the node tests.
          sequence: { groupOrder: 1 },
          testTimeout: 600_000,
          hookTimeout: 600_000,
          expect: { poll: { timeout: 300_000, interval: 50 } },
        },
      },
    ],
  },
});
