/** One-time sign-in codes and the sessions they buy, on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { AccessControl } from '../../../../cli/web/access';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('AccessControl', () => {
  it('signs in once per code: a spent code, a made-up one and a session used as a code buy nothing', () => {
    const access = new AccessControl();
    const code = access.mintCode(true)!;
    const first = access.redeem(code);
    expect(first).toEqual({ session: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(access.redeem(code)).toEqual({ refused: 'unknown' });
    expect(access.redeem('made-up')).toEqual({ refused: 'unknown' });
    expect(access.redeem((first as { session: string }).session)).toEqual({ refused: 'unknown' });
    expect(access.check((first as { session: string }).session)).toBe(true);
    expect(access.check(code)).toBe(false);
  });

  it('keeps every session until it expires: thousands of later sign-ins evict none', () => {
    const access = new AccessControl({ maxSessions: 5000 });
    const first = access.createSession()!;
    for (let i = 0; i < 2000; i++) {
      const code = access.mintCode()!;
      expect('session' in access.redeem(code)).toBe(true);
    }
    expect(access.check(first)).toBe(true);
  });

  it('ends a session idle for the idle limit, and using it restarts the limit', () => {
    const time = clock();
    const access = new AccessControl({ now: time.now, sessionIdleMs: 1000 });
    const busy = access.createSession()!;
    const idle = access.createSession()!;
    for (let i = 0; i < 5; i++) {
      time.advance(900);
      expect(access.check(busy)).toBe(true);
    }
    expect(access.check(idle)).toBe(false);
    time.advance(1000);
    expect(access.check(busy)).toBe(false);
  });

  it('lets a minted code expire, while the launch code lasts until it is used', () => {
    const time = clock();
    const access = new AccessControl({ now: time.now, codeTtlMs: 1000 });
    const launch = access.mintCode(true)!;
    const minted = access.mintCode()!;
    time.advance(10_000_000);
    expect(access.redeem(minted)).toEqual({ refused: 'unknown' });
    expect('session' in access.redeem(launch)).toBe(true);
  });

  it('refuses a sign-in when full instead of evicting a live session, and makes room as sessions expire', () => {
    const time = clock();
    const access = new AccessControl({ now: time.now, maxSessions: 2, sessionIdleMs: 1000 });
    const a = access.createSession()!;
    const b = access.createSession()!;
    const code = access.mintCode()!;
    expect(access.redeem(code)).toEqual({ refused: 'full' });
    // The refused code is spent all the same: a retry needs a new one.
    expect(access.redeem(code)).toEqual({ refused: 'unknown' });
    expect(access.check(a) && access.check(b)).toBe(true);
    time.advance(1001);
    expect('session' in access.redeem(access.mintCode()!)).toBe(true);
  });

  it('bounds the unspent codes', () => {
    const time = clock();
    const access = new AccessControl({ now: time.now, maxCodes: 3, codeTtlMs: 1000 });
    expect([access.mintCode(), access.mintCode(), access.mintCode()].every(Boolean)).toBe(true);
    expect(access.mintCode()).toBeUndefined();
    time.advance(1001);
    expect(access.mintCode()).toBeDefined();
  });
});
