import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores here: more workers only add contention.
    maxWorkers: 2,
    // expect.poll waits 1 s by default, which a loaded 2-core machine can outlast while
    // a correct UI or process is still catching up; like the test timeouts, this limit
    // only catches a state that never comes.
    expect: { poll: { timeout: 30_000, interval: 50 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', '**/node_modules/**'],
          // A timeout only catches a hang: no verdict may rest on speed, and a loaded
          // 2-core machine runs the CLI tests many times slower than an idle one.
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Chromium against `skillbench serve`: a renderer build, a server and a
        // browser per file, on a machine that may be busy; never a speed assertion.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
