import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { readFileBounded, readTextBounded } from '../../../../core/workspace/read';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as WorkbenchError);

describe('readFileBounded', () => {
  it('reads a file of exactly the limit, and refuses one byte more naming the limit', async () => {
    await writeFile(join(dir, 'at.json'), 'x'.repeat(100));
    await writeFile(join(dir, 'over.json'), 'x'.repeat(101));
    expect((await readFileBounded(join(dir, 'at.json'), 100)).length).toBe(100);
    const error = await failure(readFileBounded(join(dir, 'over.json'), 100, 'over.json'));
    expect(error).toBeInstanceOf(WorkbenchError);
    expect(error?.code).toBe('payload_too_large');
    expect(error?.message).toBe('over.json is 101 bytes, above the limit of 100 bytes');
  });

  it('reads more than one chunk intact', async () => {
    const text = Array.from({ length: 50_000 }, (_, i) => String(i % 10)).join('');
    await writeFile(join(dir, 'long.txt'), text);
    expect(await readTextBounded(join(dir, 'long.txt'), 1_000_000)).toBe(text);
  });

  it.runIf(process.platform === 'linux')('stops one byte past the limit on a file whose size says 0 (procfs)', async () => {
    const status = await readTextBounded('/proc/self/status', 1_000_000);
    expect(status).toContain('Pid:');
    const error = await failure(readFileBounded('/proc/self/status', 8, 'status'));
    expect(error?.code).toBe('payload_too_large');
    expect(error?.message).toBe('status is larger than the limit of 8 bytes');
  });

  it.runIf(process.platform !== 'win32')('refuses devices, FIFOs and folders at once', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(existsSync(fifo)).toBe(true);
    const cases: [string, string][] = [
      ['/dev/zero', 'a character device'],
      [fifo, 'a FIFO'],
      [dir, 'a folder'],
    ];
    for (const [path, kind] of cases) {
      const error = await failure(readFileBounded(path, 1024, 'it'));
      expect(error?.code).toBe('invalid_request');
      expect(error?.message).toMatch(new RegExp(`^it is ${kind}, not a (regular )?file`));
    }
    expect((await failure(readFileBounded(join(dir, 'absent'), 10, 'absent')))?.code).toBe('not_found');
  });
});
