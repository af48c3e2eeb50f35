import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CellWriter, cellLine, scanCells, type CellsScan } from '../../../evals/runFiles';
import type { CellRecord } from '../../../evals/types';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function cell(i: number): CellRecord {
  return { key: `m|draft|c${i}|0`, request: 'x'.repeat(i % 50) } as unknown as CellRecord;
}

/** A cells writer on a fresh file in a temporary folder (removed after the test). */
async function openWriter(): Promise<{ file: string; writer: CellWriter }> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-cells-'));
  dirs.push(dir);
  const file = join(dir, 'cells.jsonl');
  return { file, writer: await CellWriter.open(file) };
}

describe('CellWriter', () => {
  it('writes every concurrently finished cell as one whole line, and resolves each append once its line is on disk', async () => {
    const { file, writer } = await openWriter();
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        await writer.append(cell(i));
        // By the time an append resolves, its line is in the file.
        const text = await readFile(file, 'utf8');
        expect(text).toContain(`"key":"m|draft|c${i}|0"`);
        seen.push(i);
      }),
    );
    await writer.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as { key: string }).key).sort()).toEqual(Array.from({ length: 300 }, (_, i) => `m|draft|c${i}|0`).sort());
    expect(seen).toHaveLength(300);
  });
});

describe('CellWriter with text beyond ASCII', () => {
  it('writes multi-byte text whole: every line reads back as the cell it was', async () => {
    const { file, writer } = await openWriter();
    const cells = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, request: `Værmelding for Tromsø ${'🌧️'.repeat(i)} ≠ 天气 ${i}` }) as unknown as CellRecord);
    await Promise.all(cells.map((c) => writer.append(c)));
    await writer.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l)).sort((a, b) => Number(a.key.slice(1)) - Number(b.key.slice(1)))).toEqual(cells);
  });
});

describe('CellWriter with batches larger than one write', () => {
  it('writes a batch of megabytes, and a line longer than a write takes, as exactly each cell\'s JSON and a newline', async () => {
    const { file, writer } = await openWriter();
    // 40 cells of ~100 KB (4 MB, several writes), one of 3 MB (more than a write takes alone), with
    // text UTF-8 spends 1 to 4 bytes on, and a lone surrogate (which the JSON text escapes).
    const cells = Array.from({ length: 41 }, (_, i) => ({ key: `k${i}`, request: `${i} ${'é😀a\u4e2d'.repeat(i === 20 ? 600_000 : 20_000)} \ud800` }) as unknown as CellRecord);
    await Promise.all(cells.map((c) => writer.append(c)));
    await writer.close();
    const expected = cells.map((c) => `${JSON.stringify(c)}\n`);
    const written = await readFile(file, 'utf8');
    expect(written.length).toBe(expected.join('').length);
    expect(written.split('\n').slice(0, -1).sort()).toEqual(expected.map((l) => l.slice(0, -1)).sort());
  });
});

describe('CellWriter while cells keep finishing', () => {
  it('writes each cell exactly once when more finish during the writes of a batch that takes several', async () => {
    const { file, writer } = await openWriter();
    const big = (i: number) => ({ key: `k${i}`, request: 'x'.repeat(200_000) }) as unknown as CellRecord;
    // 30 cells of 200 KB at once (a batch of several writes), and each one finishing brings another.
    await Promise.all(Array.from({ length: 30 }, (_, i) => writer.append(big(i)).then(() => writer.append(big(30 + i)))));
    await writer.close();
    const keys = (await readFile(file, 'utf8')).split('\n').slice(0, -1).map((l) => (JSON.parse(l) as { key: string }).key);
    expect(keys.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `k${i}`).sort());
  });
});

describe('cellLine', () => {
  const deepFreeze = <T>(v: T): T => {
    if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const x of Object.values(v)) deepFreeze(x);
    }
    return v;
  };
  // Cell-shaped values: any JSON-ish fields, a trace with calls, and parts that may be frozen and shared.
  const json = fc.jsonValue({ maxDepth: 3 });
  const loose = fc.oneof(json, fc.constant(undefined), fc.constant(() => 1), fc.double(), fc.constantFrom(-0, Number.NaN, Infinity, -Infinity, 1e21, 5e-7, true, false, null));
  const part = fc.tuple(fc.dictionary(fc.string(), loose, { maxKeys: 4 }), fc.boolean()).map(([v, frozen]) => (frozen ? deepFreeze(v) : v));
  const call = fc.dictionary(fc.string(), fc.oneof(loose, part), { maxKeys: 5 });
  const trace = fc.record({ pinning: fc.oneof(part, fc.array(part, { maxLength: 3 }).map((a) => deepFreeze(a))), calls: fc.oneof(fc.array(call, { maxLength: 3 }), json), extra: loose }, { requiredKeys: [] });
  const cellValue = fc.record({ key: fc.string(), trace: fc.oneof(trace, json, part), rest: fc.dictionary(fc.string(), loose, { maxKeys: 5 }) }, { requiredKeys: ['key'] }).map(({ key, trace, rest }) => ({ ...rest, key, trace }));

  it('property: is exactly JSON.stringify of the cell, shared frozen parts or not', () => {
    fc.assert(
      fc.property(cellValue, (c) => {
        const cell = c as unknown as CellRecord;
        expect(cellLine(cell)).toBe(JSON.stringify(cell));
        // A second line reuses the texts kept from the first: still the same.
        expect(cellLine(cell)).toBe(JSON.stringify(cell));
      }),
      { numRuns: 500 },
    );
  });

  it('serializes a deeply frozen part that many cells share once, and a mutable one every time', () => {
    let serialized = 0;
    const record = { skill: 'travel/weather', status: 'pinned', toJSON: () => (serialized++, { skill: 'travel/weather', status: 'pinned' }) };
    const shared = deepFreeze([record]);
    const cells = [1, 2, 3].map((i) => ({ key: `k${i}`, trace: { pinning: shared, calls: [{ kind: 'activation', candidates: shared }] } }) as unknown as CellRecord);
    const lines = cells.map(cellLine);
    expect(serialized).toBe(1);
    expect(lines.map((l) => JSON.parse(l))).toEqual(cells.map((c) => JSON.parse(JSON.stringify(c))));

    serialized = 0;
    const mutable = [{ ...record }];
    for (const c of [1, 2].map((i) => ({ key: `m${i}`, trace: { pinning: mutable } }) as unknown as CellRecord)) cellLine(c);
    expect(serialized).toBe(2);
  });
});

/** A whole cell record, as the runner writes one. */
function wholeCell(i: number, request = ''): CellRecord {
  return {
    key: `m|draft|c${i}|0`,
    model: 'm',
    variant: 'draft',
    case: `c${i}`,
    skill: 'travel/weather',
    repeat: 0,
    expect: 'activate',
    outcome: 'activated',
    activated: ['travel/weather'],
    latency_ms: 3,
    trace: { request },
  } as unknown as CellRecord;
}

async function scanned(text: string, maxLineBytes?: number): Promise<{ keys: string[]; scan: CellsScan }> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-scan-'));
  dirs.push(dir);
  const file = join(dir, 'cells.jsonl');
  await writeFile(file, text);
  const keys: string[] = [];
  const scan = await scanCells(file, (c) => void keys.push(c.key), maxLineBytes === undefined ? {} : { maxLineBytes });
  return { keys, scan };
}

describe('scanCells (what a resuming run reads back)', () => {
  it('passes on whole cell records only: a line with a key but not the shape of a cell is corrupt, not a finished cell', async () => {
    const text = `${cellLine(wholeCell(1))}\n{"key":"m|draft|c2|0"}\n${JSON.stringify({ ...wholeCell(3), outcome: 'maybe' })}\n${cellLine(wholeCell(4))}\n`;
    const { keys, scan } = await scanned(text);
    expect(keys).toEqual(['m|draft|c1|0', 'm|draft|c4|0']);
    expect(scan).toEqual({ cells: 2, corrupt: 2, validBytes: Buffer.byteLength(text), totalBytes: Buffer.byteLength(text) });
  });

  it('never holds a line longer than the limit: it is skipped as corrupt, and the cells after it still count', async () => {
    const long = cellLine(wholeCell(2, 'x'.repeat(2_000_000)));
    const text = `${cellLine(wholeCell(1))}\n${long}\n${cellLine(wholeCell(3))}\n${long.slice(0, 1_500_000)}`;
    const { keys, scan } = await scanned(text, 1_000_000);
    expect(keys).toEqual(['m|draft|c1|0', 'm|draft|c3|0']);
    expect(scan.corrupt).toBe(1);
    // The torn tail (itself past the limit) is outside the valid bytes, so a resume cuts exactly it.
    expect(scan.validBytes).toBe(Buffer.byteLength(text) - 1_500_000);
  });

  it('reads a cell whose line spans many read chunks', async () => {
    const big = wholeCell(7, 'y'.repeat(3_000_000));
    const { keys, scan } = await scanned(`${cellLine(big)}\n`);
    expect(keys).toEqual(['m|draft|c7|0']);
    expect(scan.corrupt).toBe(0);
  });

  it('counts every complete line as a cell or as corrupt, whatever the lines hold, and ends the valid bytes at the last newline', async () => {
    const line = fc.oneof(
      fc.nat(50).map((i) => cellLine(wholeCell(i, 'r'.repeat(i * 7)))),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/\n/g, ' ')),
      fc.constant('{"key":"only a key"}'),
      fc.nat(300).map((n) => 'z'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 12 }), fc.option(fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')), { nil: undefined }), async (lines, tail) => {
        const text = lines.map((l) => `${l}\n`).join('') + (tail ?? '');
        const { keys, scan } = await scanned(text, 200);
        const complete = lines.filter((l) => l.length > 0);
        const expected = complete.filter((l) => Buffer.byteLength(l) <= 200 && l.startsWith('{"key":"m|')).map((l) => (JSON.parse(l) as { key: string }).key);
        expect(keys).toEqual(expected);
        expect(scan.cells + scan.corrupt).toBe(complete.length);
        expect(scan.validBytes).toBe(Buffer.byteLength(text) - Buffer.byteLength(tail ?? ''));
      }),
      { numRuns: 60 },
    );
  });
});
