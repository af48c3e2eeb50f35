import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CellWriter, cellLine } from '../../../evals/runFiles';
import type { CellRecord } from '../../../evals/types';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function cell(i: number): CellRecord {
  return { key: `m|draft|c${i}|0`, request: 'x'.repeat(i % 50) } as unknown as CellRecord;
}

describe('CellWriter', () => {
  it('writes every concurrently finished cell as one whole line, and resolves each append once its line is on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-cells-'));
    dirs.push(dir);
    const file = join(dir, 'cells.jsonl');
    const writer = await CellWriter.open(file);
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
    const dir = await mkdtemp(join(tmpdir(), 'sb-cells-'));
    dirs.push(dir);
    const file = join(dir, 'cells.jsonl');
    const writer = await CellWriter.open(file);
    const cells = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, request: `Værmelding for Tromsø ${'🌧️'.repeat(i)} ≠ 天气 ${i}` }) as unknown as CellRecord);
    await Promise.all(cells.map((c) => writer.append(c)));
    await writer.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l)).sort((a, b) => Number(a.key.slice(1)) - Number(b.key.slice(1)))).toEqual(cells);
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
  const loose = fc.oneof(json, fc.constant(undefined), fc.constant(Number.NaN), fc.constant(() => 1));
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
