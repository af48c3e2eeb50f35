import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readCells } from '../../../../evals/reports/cells';
import { WorkbenchError } from '../../../../core/errors';
import type { CellRecord } from '../../../../evals/types';
import { fixtureCells, writeRun } from './fixture';
import { rejection } from '../../../helpers/rejection';

async function collect(file: string, torn?: Array<{ line: number; bytes: number }>): Promise<CellRecord[]> {
  const out: CellRecord[] = [];
  for await (const c of readCells(file, torn ? { onTornLine: (t) => torn.push(t) } : {})) out.push(c);
  return out;
}

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchError);

describe('readCells', () => {
  it('reads every cell in file order', async () => {
    const cells = fixtureCells();
    const run = await writeRun(cells);
    try {
      expect(await collect(run.cellsFile)).toEqual(cells);
    } finally {
      await run.cleanup();
    }
  });

  it('skips a torn last line and reports it', async () => {
    const cells = fixtureCells();
    const torn = JSON.stringify(cells[0]).slice(0, 57);
    const run = await writeRun(cells, torn);
    try {
      const seen: Array<{ line: number; bytes: number }> = [];
      expect(await collect(run.cellsFile, seen)).toEqual(cells);
      expect(seen).toEqual([{ line: cells.length + 1, bytes: 57 }]);
    } finally {
      await run.cleanup();
    }
  });

  it('accepts a complete last line without a newline, blank lines and CRLF', async () => {
    const [a, b] = fixtureCells();
    const run = await writeRun([]);
    try {
      await writeFile(run.cellsFile, `${JSON.stringify(a)}\r\n\n   \n${JSON.stringify(b)}`);
      const seen: unknown[] = [];
      expect(await collect(run.cellsFile, seen as never)).toEqual([a, b]);
      expect(seen).toEqual([]);
    } finally {
      await run.cleanup();
    }
  });

  it('fails with the line number on a corrupt line before the end', async () => {
    const [a, b] = fixtureCells();
    const run = await writeRun([]);
    try {
      await writeFile(run.cellsFile, `${JSON.stringify(a)}\n{"key": "torn\n${JSON.stringify(b)}\n`);
      const e = await failure(collect(run.cellsFile));
      expect(e.code).toBe('invalid_request');
      expect(e.message).toContain(`${run.cellsFile}:2:`);
      expect(e.details).toMatchObject({ line: 2 });
    } finally {
      await run.cleanup();
    }
  });

  it('fails with the line and the field on JSON that is not a cell record', async () => {
    const [a] = fixtureCells();
    const run = await writeRun([]);
    try {
      await writeFile(run.cellsFile, `${JSON.stringify(a)}\n${JSON.stringify({ ...a, outcome: 'maybe' })}\n`);
      const e = await failure(collect(run.cellsFile));
      expect(e.message).toMatch(/:2: not a cell record: "outcome"/);
    } finally {
      await run.cleanup();
    }
  });

  it('reports a missing file as not_found', async () => {
    const run = await writeRun([]);
    try {
      const e = await failure(collect(join(run.dir, 'nope.jsonl')));
      expect(e.code).toBe('not_found');
    } finally {
      await run.cleanup();
    }
  });

  it('fails with the line number on a line past the limit, whether or not its newline has come', async () => {
    const [a, b] = fixtureCells();
    const run = await writeRun([a!]);
    try {
      const long = JSON.stringify({ ...b!, error: 'x'.repeat(600_000) });
      const read = (text: string) => writeFile(run.cellsFile, text).then(() => failure((async () => {
        for await (const _ of readCells(run.cellsFile, { maxLineBytes: 100_000 })) void _;
      })()));
      for (const text of [`${JSON.stringify(a)}\n${long}\n`, `${JSON.stringify(a)}\n${long}`]) {
        const e = await read(text);
        expect(e.code).toBe('invalid_request');
        expect(e.message).toContain(`${run.cellsFile}:2: line longer than 100000 bytes`);
      }
    } finally {
      await run.cleanup();
    }
  });

  it('joins lines across read chunks, including multi-byte characters split between chunks', async () => {
    const [a] = fixtureCells();
    // Lines far longer than one 256 KiB chunk, full of 2-, 3- and 4-byte characters.
    const big = (i: number): CellRecord => ({ ...a!, key: `k${i}`, error: 'ø€😀'.repeat(40_000 + i * 7) });
    const cells = [big(0), big(1), big(2)];
    const run = await writeRun(cells);
    try {
      expect(await collect(run.cellsFile)).toEqual(cells);
    } finally {
      await run.cleanup();
    }
  });

  it('reads back any cells written, and only the complete ones when the last line is cut anywhere', async () => {
    const base = fixtureCells()[0]!;
    const run = await writeRun([]);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { minLength: 1, maxLength: 6 }), fc.nat(), async (errors, cutAt) => {
          const cells = errors.map((error, i) => ({ ...base, key: `k${i}`, error }));
          const lines = cells.map((c) => JSON.stringify(c));
          const last = lines[lines.length - 1]!;
          const cut = cutAt % last.length;
          // Cut inside the last line: everything before it must come back, the torn rest must not.
          await writeFile(run.cellsFile, lines.slice(0, -1).map((l) => `${l}\n`).join('') + last.slice(0, cut));
          const torn: Array<{ line: number; bytes: number }> = [];
          const read = await collect(run.cellsFile, torn);
          expect(read).toEqual(cells.slice(0, -1));
          expect(torn.length).toBe(cut === 0 ? 0 : 1);
        }),
        { numRuns: 60 },
      );
    } finally {
      await run.cleanup();
    }
  });
});
