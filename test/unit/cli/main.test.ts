import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { COMMAND_TABLE, commandGroups } from '../../../cli/commandTable';
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

  it.each([
    ['eval', ['eval', 'skills/packages/travel/x.json', '--model', 'baseline:lexical', '--min-accuracy', '1.5'], '--min-accuracy must be a number from 0 to 1'],
    ['select', ['select', '--bogus'], '--bogus'],
    ['analyze', ['analyze', 'travel/weather-assessment', '--effort', 'extreme'], '--effort'],
    ['get', ['get', 'travel/x', '--version', 'two'], '--version must be a positive integer'],
    ['delete', ['delete', 'travel/x', '--range', '1-9007199254740993', '--if-match', 'v1', '--reason', 'r'], '9007199254740993 is too large'],
  ])('refuses bad usage of %s in one line that says how to get help, without the usage text', async (name, argv, problem) => {
    const c = capture();
    expect(await main(argv, c.io)).toBe(2);
    const lines = c.err().split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`skillbench ${name}: `);
    expect(lines[0]).toContain(problem);
    expect(lines[0]).toContain(`skillbench ${name} --help`);
    expect(c.err()).not.toContain('Usage:');
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

/** The groups of subcommands (`review`, `registry`, `connection`, ...), as the command table has them. */
const GROUPS = [...commandGroups().keys()];

describe('skillbench command groups', () => {
  it('include review, registry and connection', () => {
    expect(GROUPS).toEqual(expect.arrayContaining(['review', 'registry', 'connection']));
  });

  for (const group of GROUPS) {
    it(`'${group}' alone lists its subcommands with their summaries (exit 2), and with --help (exit 0)`, async () => {
      const subs = commandNames()
        .filter((n) => n.startsWith(`${group} `))
        .map((n) => n.slice(group.length + 1));
      expect(subs.length).toBeGreaterThan(0);
      for (const [args, code] of [[[group], 2], [[group, '--help'], 0]] as const) {
        const c = capture();
        expect(await main([...args], c.io)).toBe(code);
        expect(c.err()).not.toContain('unknown command');
        expect(c.out()).toContain(`Usage: skillbench ${group} <command>`);
        for (const sub of subs) expect(c.out()).toContain(`  ${sub.padEnd(10)} ${SUMMARIES[`${group} ${sub}`]}`);
      }
    });
  }

  it('names an unknown subcommand of a group and lists the known ones (exit 2)', async () => {
    const c = capture();
    expect(await main(['review', 'merge'], c.io)).toBe(2);
    // The redacting stream main wraps around stderr hands each write on within a few ticks.
    await new Promise((resolve) => setImmediate(resolve));
    expect(c.err()).toContain("skillbench review: unknown command 'merge'");
    expect(c.err()).toContain('  approve');
  });
});

describe('skillbench --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    const c = capture();
    expect(await main(['--version'], c.io)).toBe(0);
    expect(c.out()).toBe(`${pkg.version}\n`);
  });

  it('is listed in the top-level --help', async () => {
    const c = capture();
    await main(['--help'], c.io);
    expect(c.out()).toMatch(/^ {2}--version {2,}\S/m);
  });
});

describe('every --help', () => {
  it('lists --debug, and for a command naming a store, says it takes a saved connection name', async () => {
    for (const name of commandNames()) {
      const c = capture();
      expect(await main([...name.split(' '), '--help'], c.io), name).toBe(0);
      expect(c.out(), name).toMatch(/^ {2}--debug +\S/m);
      const takesStore = (COMMAND_TABLE[name]?.flags ?? []).some((f) => /^--(from|to|store|catalog) CONN/.test(f));
      expect(c.out().includes('the name of a saved connection'), name).toBe(takesStore);
    }
    const top = capture();
    await main(['--help'], top.io);
    expect(top.out()).toMatch(/^ {2}--debug +\S/m);
    // A group's own page, with --help and alone.
    for (const group of GROUPS) {
      for (const args of [[group, '--help'], [group]]) {
        const c = capture();
        await main(args, c.io);
        expect(c.out(), args.join(' ')).toMatch(/^ {2}--debug +\S/m);
      }
    }
  });
});
