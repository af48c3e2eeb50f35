/**
 * `names.ts` holds the contract's method and event names without zod, for the
 * preload and the renderer's client. These checks hold it to the contract: the
 * same methods, the same events, and membership tests that only a listed name
 * passes (not an inherited property, not a near miss).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { METHODS, type WorkbenchEvent, type WorkbenchMethod } from '../../../../core/api/contract';
import { ERROR_STATUS, EVENT_NAMES, METHOD_NAMES, isWorkbenchEvent, isWorkbenchMethod, type WorkbenchEventName, type WorkbenchMethodName } from '../../../../core/api/names';

describe('the names-only module', () => {
  it('lists exactly the methods the contract gives schemas, sorted', () => {
    expect([...METHOD_NAMES]).toEqual(Object.keys(METHODS).sort());
    expectTypeOf<WorkbenchMethodName>().toEqualTypeOf<WorkbenchMethod>();
  });

  it('lists the contract events once each, sorted', () => {
    expect([...EVENT_NAMES]).toEqual([...new Set(EVENT_NAMES)].sort());
    expectTypeOf<WorkbenchEventName>().toEqualTypeOf<WorkbenchEvent>();
  });

  it('accepts a listed name and nothing else', () => {
    for (const name of METHOD_NAMES) expect(isWorkbenchMethod(name), name).toBe(true);
    for (const name of EVENT_NAMES) expect(isWorkbenchEvent(name), name).toBe(true);
    const impostors: unknown[] = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'app.Info', 'app.info ', '', undefined, null, 42, { name: 'app.info' }, ['app.info']];
    for (const name of impostors) {
      expect(isWorkbenchMethod(name), String(name)).toBe(false);
      expect(isWorkbenchEvent(name), String(name)).toBe(false);
    }
    // A method is not an event, nor the other way round.
    for (const name of METHOD_NAMES) expect(isWorkbenchEvent(name), name).toBe(false);
    for (const name of EVENT_NAMES) expect(isWorkbenchMethod(name), name).toBe(false);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(METHOD_NAMES)).toBe(true);
    expect(Object.isFrozen(EVENT_NAMES)).toBe(true);
    expect(() => (METHOD_NAMES as unknown as string[]).push('evil.method')).toThrow(TypeError);
    expect(isWorkbenchMethod('evil.method')).toBe(false);
  });

  it('maps every error code to an HTTP error status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
  });
});
