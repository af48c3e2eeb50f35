import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, open, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { readFileBounded, readHandleBounded, readTextBounded } from '../../../../core/workspace/read';

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

  describe('a file that changes between its stat and its read', () => {
    /** Reads `name` through a real handle whose stat is followed by `change` of the real file, before any byte is read. */
    async function readChanged(name: string, change: (path: string) => Promise<void>, max: number): Promise<Uint8Array> {
      const path = join(dir, name);
      const handle = await open(path, 'r');
      try {
        const changing = Object.create(handle) as typeof handle;
        changing.stat = (async () => {
          const stats = await handle.stat();
          await change(path);
          return stats;
        }) as typeof handle.stat;
        changing.read = handle.read.bind(handle) as typeof handle.read;
        return await readHandleBounded(changing, max, name);
      } finally {
        await handle.close();
      }
    }

    it('reads every byte of a file that grew, and stops at the end of one that shrank', async () => {
      const text = 'a'.repeat(70_000);
      await writeFile(join(dir, 'grows.txt'), text);
      const grown = await readChanged('grows.txt', (path) => appendFile(path, 'b'.repeat(100_000)), 1_000_000);
      expect(new TextDecoder().decode(grown)).toBe(text + 'b'.repeat(100_000));
      await writeFile(join(dir, 'shrinks.txt'), text);
      const shrunk = await readChanged('shrinks.txt', (path) => truncate(path, 10), 1_000_000);
      expect(new TextDecoder().decode(shrunk)).toBe('a'.repeat(10));
    });

    it('refuses a file that grew past the limit after its stat was within it', async () => {
      await writeFile(join(dir, 'grows-over.txt'), 'a'.repeat(90));
      const error = await readChanged('grows-over.txt', (path) => appendFile(path, 'b'.repeat(20)), 100).then(() => undefined, (e: unknown) => e as WorkbenchError);
      expect(error?.code).toBe('payload_too_large');
      expect(error?.message).toBe('grows-over.txt is larger than the limit of 100 bytes');
    });
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

  describe('a file system refusal names the path as the caller shows it, never the absolute one', () => {
    // Callers pass the workspace-relative path as the label; Node's own messages quote the absolute path.
    const rel = 'skills/packages/ns/target.json';
    async function refusal(path: string, label = rel): Promise<WorkbenchError> {
      const error = await failure(readFileBounded(path, 1024, label));
      expect(error).toBeInstanceOf(WorkbenchError);
      expect(error!.message.startsWith(label.replace(/\0/g, '\\0'))).toBe(true);
      expect(JSON.stringify({ message: error!.message, details: error!.details })).not.toContain(dir);
      return error!;
    }

    it.runIf(process.platform !== 'win32')('a loop of symbolic links (ELOOP)', async () => {
      await symlink(join(dir, 'loop-b.json'), join(dir, 'loop-a.json'));
      await symlink(join(dir, 'loop-a.json'), join(dir, 'loop-b.json'));
      const error = await refusal(join(dir, 'loop-a.json'));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toBe(`${rel}: cannot read it: a loop of symbolic links`);
    });

    it('a file where a folder is expected on the way (ENOTDIR) is not found', async () => {
      await writeFile(join(dir, 'plain'), '{}');
      const error = await refusal(join(dir, 'plain', 'target.json'));
      expect(error.code).toBe('not_found');
      expect(error.message).toBe(`${rel}: no such file (a part of its path is a file, not a folder)`);
    });

    it('a name longer than the file system takes (ENAMETOOLONG)', async () => {
      await mkdir(join(dir, 'long'), { recursive: true });
      const error = await refusal(join(dir, 'long', `${'n'.repeat(300)}.json`));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toBe(`${rel}: cannot read it: a name in the path is longer than the file system allows`);
    });

    it('a NUL byte, shown escaped', async () => {
      const error = await refusal(join(dir, 'a\u0000b.json'), 'skills/packages/ns/a\u0000b.json');
      expect(error.code).toBe('invalid_request');
      expect(error.message).toBe('skills/packages/ns/a\\0b.json: a path cannot hold a NUL byte');
    });
  });
});
