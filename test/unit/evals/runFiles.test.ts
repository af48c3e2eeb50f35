import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CellWriter } from '../../../evals/runFiles';
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
