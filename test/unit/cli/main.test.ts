import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { SUMMARIES, commandNames, loadCommand, main } from '../../../cli/main';
import type { CliIo } from '../../../cli/io';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += String(c)));
  stderr.on('data', (c) => (err += String(c)));
  return { io: { stdout, stderr, cwd: process.cwd(), env: {}, isTTY: false }, out: () => out, err: () => err };
}

describe('skillbench main', () => {
  it('rejects an unknown command with exit 2 and names it', async () => {
    const c = capture();
    expect(await main(['frobnicate'], c.io)).toBe(2);
    expect(c.err()).toContain("unknown command 'frobnicate'");
  });

  it('prints usage with --help and exits 0', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out()).toContain('Usage: skillbench <command>');
  });

  it('exits 2 with usage when no command is given', async () => {
    const c = capture();
    expect(await main([], c.io)).toBe(2);
  });
});

describe('skillbench --help', () => {
  it('lists every command with the summary its module states (read from a static table)', async () => {
    for (const name of commandNames()) {
      expect(SUMMARIES[name], `a summary for ${name} in cli/main.ts`).toBe((await loadCommand(name))?.summary);
    }
    expect(Object.keys(SUMMARIES).sort()).toEqual(commandNames());
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    for (const name of commandNames()) expect(c.out()).toContain(`  ${name.padEnd(18)} ${SUMMARIES[name]}`);
  });
});
