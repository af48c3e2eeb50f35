/**
 * Building blocks the domain files share; not part of the public contract.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';

/** True when `A` and `B` are the same union (compile-time checks against `names.ts`). */
export type SameUnion<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type AssertTrue<T extends true> = T;

export { slug } from '../../textRules';

export const empty = z.strictObject({});
export const runRef = z.strictObject({ run: z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, 'a run id') });
export const reviewRef = z.strictObject({ id: z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, 'a review id') });
export const comment = z.string().max(10_000);

/** A method's parameter schema, with its result type attached for typing only. */
export interface MethodSpec<P extends z.ZodType = z.ZodType, R = unknown> {
  params: P;
  /** Never set at runtime: carries the result type. */
  readonly result?: R;
}

export function method<R>() {
  return <P extends z.ZodType>(params: P): MethodSpec<P, R> => ({ params });
}
