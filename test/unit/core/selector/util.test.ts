import { afterEach, describe, expect, it, vi } from 'vitest';
import { bounded, RegistryTimeoutError } from '../../../../core/selector/util';

describe('bounded', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns a read that has already answered without setting a timer', async () => {
    vi.useFakeTimers();
    const answered = Promise.resolve('manifest');
    const result = bounded('getManifest', 5000, () => answered);
    expect(vi.getTimerCount()).toBe(0);
    await expect(result).resolves.toBe('manifest');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes on a read that has already failed', async () => {
    const failed = Promise.reject(new Error('no such version'));
    await expect(bounded('getManifest', 5000, () => failed)).rejects.toThrow('no such version');
  });

  it('times out a read that never answers, and clears the timer of one that answers in time', async () => {
    vi.useFakeTimers();
    const never = bounded('getResource', 50, () => new Promise<string>(() => undefined));
    const caught = never.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50);
    const error = await caught;
    expect(error).toBeInstanceOf(RegistryTimeoutError);
    expect((error as Error).message).toBe('registry getResource did not answer within 50 ms');

    let answer!: (value: string) => void;
    const later = bounded('getResource', 50, () => new Promise<string>((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    answer('body');
    await expect(later).resolves.toBe('body');
    expect(vi.getTimerCount()).toBe(0);
  });
});
