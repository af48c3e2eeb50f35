import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isErrno } from '../../../../core/fs/errno';

describe('isErrno', () => {
  it('names the code of a real system-call failure', async () => {
    const error = await readFile('/nonexistent-skillbench-path/x').catch((e: unknown) => e);
    expect(isErrno(error, 'ENOENT')).toBe(true);
    expect(isErrno(error, 'EACCES', 'ENOENT')).toBe(true);
    expect(isErrno(error, 'EACCES')).toBe(false);
  });

  it('is false for anything without that string code, and never throws', () => {
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.string()), (value, codes) => {
        const expected = typeof (value as { code?: unknown } | null)?.code === 'string' && codes.includes((value as { code: string }).code);
        expect(isErrno(value, ...codes)).toBe(expected);
      }),
    );
    expect(isErrno(undefined, 'ENOENT')).toBe(false);
    expect(isErrno({ code: 2 }, 'ENOENT')).toBe(false);
    expect(isErrno(new Error('ENOENT'), 'ENOENT')).toBe(false);
  });
});
