import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { main } from '../../../cli/main';
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
