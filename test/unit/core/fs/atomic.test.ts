import { afterEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isTemporaryName, removeStaleTemporaries, temporaryNameFor, writeFileAtomic } from '../../../../core/fs/atomic';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function fresh(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-atomic-'));
  dirs.push(dir);
  return dir;
}

describe('writeFileAtomic', () => {
  it('creates a file with exactly the bytes given, reports their count, honours the mode and leaves nothing else', async () => {
    const dir = await fresh();
    const file = join(dir, 'a.json');
    const text = '{"name":"Zoë ✓"}\n';
    expect(await writeFileAtomic(file, text, { mode: 0o600 })).toBe(Buffer.byteLength(text));
    expect(await readFile(file, 'utf8')).toBe(text);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['a.json']);

    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(await writeFileAtomic(file, bytes, { durable: false })).toBe(4);
    expect(new Uint8Array(await readFile(file))).toEqual(bytes);
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('streams a producer\'s chunks in order into the file', async () => {
    const dir = await fresh();
    const file = join(dir, 'report.txt');
    const chunks = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')}:${'x'.repeat(100_000)}\n`);
    const written = await writeFileAtomic(file, async (out) => {
      for (const c of chunks) await out.write(c);
      await out.write(new Uint8Array([0x7a]));
    });
    const expected = `${chunks.join('')}z`;
    expect(written).toBe(expected.length);
    expect(await readFile(file, 'utf8')).toBe(expected);
    expect(await readdir(dir)).toEqual(['report.txt']);
  });

  it('leaves the old file intact and no temporary file behind when the producer fails mid-write', async () => {
    const dir = await fresh();
    const file = join(dir, 'state.json');
    await writeFile(file, 'old bytes');
    const failure = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    await expect(
      writeFileAtomic(file, async (out) => {
        await out.write('new bytes, half of them');
        // The temporary file exists beside the target while the write is under way.
        expect((await readdir(dir)).filter(isTemporaryName)).toHaveLength(1);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await readFile(file, 'utf8')).toBe('old bytes');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('leaves the target untouched and no temporary file behind when the rename fails', async () => {
    const dir = await fresh();
    const target = join(dir, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'inside'), 'kept');
    await expect(writeFileAtomic(target, 'bytes')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/) });
    expect(await readdir(dir)).toEqual(['taken']);
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('kept');
  });

  it.skipIf(process.platform === 'win32')('gives the file exactly the mode asked for, even where the umask would narrow it, and created folders dirMode', async () => {
    const dir = await fresh();
    const previous = process.umask(0o077);
    try {
      const file = join(dir, 'shared', 'notes.json');
      await writeFileAtomic(file, '{}', { mode: 0o640, mkdirs: true });
      expect((await stat(file)).mode & 0o777).toBe(0o640);
      await writeFileAtomic(file, '{"again":1}', { mode: 0o640 });
      expect((await stat(file)).mode & 0o777).toBe(0o640);
    } finally {
      process.umask(previous);
    }
    const secret = join(dir, 'private', 'deeper', 'key.json');
    const umask = process.umask(0o022);
    try {
      await writeFileAtomic(secret, 'sealed', { mode: 0o600, mkdirs: true, dirMode: 0o700 });
    } finally {
      process.umask(umask);
    }
    expect((await stat(secret)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'private'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'private', 'deeper'))).mode & 0o777).toBe(0o700);
  });

  it('refuses a missing folder unless asked to create it, and creates nothing when it refuses', async () => {
    const dir = await fresh();
    const file = join(dir, 'missing', 'deeper', 'f.txt');
    await expect(writeFileAtomic(file, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
    await writeFileAtomic(file, 'x', { mkdirs: true });
    expect(await readFile(file, 'utf8')).toBe('x');
  });

  it('lets concurrent writers and a reader of one file see only whole versions', async () => {
    const dir = await fresh();
    const file = join(dir, 'shared.txt');
    const versions = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i).repeat(200_000));
    await writeFileAtomic(file, 'a'.repeat(200_000));
    let reading = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (reading) {
        const text = await readFile(file, 'utf8');
        expect(text.length).toBe(200_000);
        expect(new Set(text).size).toBe(1);
        seen.add(text.charAt(0));
      }
    })();
    await Promise.all(versions.map((v) => writeFileAtomic(file, v)));
    reading = false;
    await reader;
    const final = await readFile(file, 'utf8');
    expect(versions).toContain(final);
    expect(seen.size).toBeGreaterThan(0);
    expect(await readdir(dir)).toEqual(['shared.txt']);
  });
});

describe('temporary names', () => {
  it('are hidden siblings of the target, unique per write, and recognised as temporary', () => {
    const path = join('some', 'folder', 'pkg.json');
    const a = temporaryNameFor(path);
    const b = temporaryNameFor(path);
    expect(a).not.toBe(b);
    expect(dirname(a)).toBe(dirname(path));
    expect(basename(a).startsWith('.pkg.json.')).toBe(true);
    expect(isTemporaryName(basename(a))).toBe(true);
    expect(isTemporaryName('pkg.json')).toBe(false);
    expect(isTemporaryName('.hidden')).toBe(false);
  });
});

/** Start time of this process as `/proc/self/stat` gives it (field 22), where there is `/proc`. */
function ownStartTime(): string | undefined {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

describe('removeStaleTemporaries', () => {
  it('removes the temporary files of writers that are gone and keeps those of running ones', async () => {
    const dir = await fresh();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const own = basename(temporaryNameFor(join(dir, 'pkg.json')));
    const names = {
      own,
      ownWithoutStart: `.pkg.json.${process.pid}.0123456789ab.tmp`,
      gone: `.pkg.json.${gone}.0123456789ab.tmp`,
      goneWithStart: `.pkg.json.${gone}-12345.0123456789ab.tmp`,
      notOurs: `.pkg.json.tmp`,
    };
    for (const name of Object.values(names)) await writeFile(join(dir, name), 'x');
    expect(await removeStaleTemporaries(dir)).toBe(2);
    expect((await readdir(dir)).sort()).toEqual([names.notOurs, names.own, names.ownWithoutStart].sort());
  });

  it.skipIf(ownStartTime() === undefined)('removes a file whose pid is running but started at another time (a reused pid)', async () => {
    const dir = await fresh();
    const start = ownStartTime()!;
    const own = basename(temporaryNameFor(join(dir, 'pkg.json')));
    expect(own).toContain(`.${process.pid}-${start}.`);
    const reused = `.pkg.json.${process.pid}-${BigInt(start) + 1n}.0123456789ab.tmp`;
    await writeFile(join(dir, own), 'in flight');
    await writeFile(join(dir, reused), 'torn');
    expect(await removeStaleTemporaries(dir)).toBe(1);
    expect(await readdir(dir)).toEqual([own]);
  });

  it('removes nothing from a missing folder', async () => {
    const dir = await fresh();
    expect(await removeStaleTemporaries(join(dir, 'missing'))).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });
});
