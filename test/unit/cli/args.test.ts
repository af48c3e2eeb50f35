import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { positiveInt, positiveIntRange } from '../../../cli/args';
import { UsageError } from '../../../cli/exit';

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
/** Integers a double holds exactly, and integers past 2^53 - 1, as typed. */
const safe = fc.bigInt({ min: 1n, max: MAX });
const unsafe = fc.bigInt({ min: MAX + 1n, max: 10n ** 30n });

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('positive integer arguments', () => {
  it('reads every integer up to 2^53 - 1 exactly', () => {
    fc.assert(
      fc.property(safe, (n) => {
        expect(positiveInt(n.toString(), '--version')).toBe(Number(n));
      }),
    );
  });

  it('refuses an integer past 2^53 - 1 naming the flag and the bound, never reading a neighbour', () => {
    fc.assert(
      fc.property(unsafe, (n) => {
        const message = usageMessage(() => positiveInt(n.toString(), '--limit'));
        expect(message).toContain('--limit');
        expect(message).toContain(String(Number.MAX_SAFE_INTEGER));
      }),
    );
  });

  it('reads a range of exact integers, and refuses a range with either end past 2^53 - 1', () => {
    fc.assert(
      fc.property(safe, safe, (a, b) => {
        expect(positiveIntRange(`${a}-${b}`, '--range')).toEqual({ from: Number(a), to: Number(b) });
      }),
    );
    fc.assert(
      fc.property(safe, unsafe, fc.boolean(), (a, b, last) => {
        const text = last ? `${a}-${b}` : `${b}-${a}`;
        const message = usageMessage(() => positiveIntRange(text, '--range'));
        expect(message).toContain(`${b} is too large`);
      }),
    );
  });

  it('refuses 1-9007199254740993 instead of echoing it as …992', () => {
    const message = usageMessage(() => positiveIntRange('1-9007199254740993', '--range'));
    expect(message).toContain('9007199254740993');
    expect(message).not.toContain('9007199254740992');
  });

  it.each(['0', '-1', '1.5', '1e3', '', ' 1', '01'])('refuses %j', (text) => {
    expect(usageMessage(() => positiveInt(text, '--version'))).toContain('positive integer');
  });
});
