/** Checks on failures: the error a call rejects with, for tests to inspect. */
import { expect } from 'vitest';

/**
 * The error `promise` rejects with, checked to be a `type`; the test fails if
 * the promise resolves instead.
 */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}, but the call succeeded`);
}
