/**
 * The eval progress line on a terminal: redrawn in place with `\r` on a real
 * terminal, printed as plain lines when stderr is not one or `TERM=dumb` says
 * it cannot move the cursor (Emacs' shell, some CI consoles).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-terminal-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Runs `skillbench eval` on the examples with the lexical baseline, stderr as a terminal or not. */
async function evalStderr(out: string, isTTY: boolean, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = (keep: boolean) =>
    new Writable({
      decodeStrings: false,
      write(chunk: unknown, _encoding, callback) {
        if (keep) stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
        callback();
      },
    });
  const io = { stdout: sink(false), stderr: sink(true), cwd: work, env: { PATH: process.env['PATH'] ?? '', SKILLBENCH_HOME: join(work, 'home'), ...env }, isTTY };
  const code = await main(['eval', EXAMPLES, '--model', 'baseline:lexical', '--no-cache', '--out', out], io);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stderr };
}

describe('skillbench eval progress', () => {
  it('redraws one line in place on a terminal', async () => {
    const run = await evalStderr('tty', true, { TERM: 'xterm-256color' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\r\[#+\] \d+\/\d+ cells/);
  });

  it.each([
    ['TERM=dumb on a terminal', true, { TERM: 'dumb' }],
    ['stderr not a terminal', false, { TERM: 'xterm-256color' }],
  ] as const)('prints plain lines, without \\r or escape sequences: %s', async (_, isTTY, env) => {
    const run = await evalStderr(`plain-${isTTY}`, isTTY, env);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).not.toContain('\u001b');
    expect(run.stderr).toMatch(/^eval: (\d+)\/\1 cells/m);
  });
});
