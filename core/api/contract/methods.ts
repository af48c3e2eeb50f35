/**
 * Every method of the WorkbenchApi, gathered from the domain files, and the types derived from them.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import type { z } from 'zod';
import type { WorkbenchMethodName } from '../names';
import { appMethods } from './app';
import { catalogMethods } from './catalog';
import { connectionMethods } from './connections';
import { evalMethods } from './evals';
import type { AssertTrue, SameUnion } from './internal';
import { interopMethods } from './interop';
import { modelMethods } from './models';
import { optimizeMethods } from './optimize';
import { packageMethods } from './packages';
import { reviewMethods } from './reviews';
import { workspaceMethods } from './workspace';

/** Every method of the WorkbenchApi, with its parameter schema. */
export const METHODS = {
  ...appMethods,
  ...connectionMethods,
  ...catalogMethods,
  ...packageMethods,
  ...workspaceMethods,
  ...modelMethods,
  ...evalMethods,
  ...optimizeMethods,
  ...reviewMethods,
  ...interopMethods,
} as const;

/** Every method name. */
export type WorkbenchMethod = keyof typeof METHODS;

/** The parameters a caller passes to each method (defaults may be omitted). */
export type WorkbenchParams = { [M in WorkbenchMethod]: z.input<(typeof METHODS)[M]['params']> };

/** The parameters a handler receives: parsed, defaults applied. */
export type WorkbenchParsedParams = { [M in WorkbenchMethod]: z.output<(typeof METHODS)[M]['params']> };

/** The result of each method. */
export type WorkbenchResults = { [M in WorkbenchMethod]: Exclude<(typeof METHODS)[M]['result'], undefined> };

// `names.ts` lists the same methods without their schemas: a method added here and not there fails to compile.
type _MethodNamesInStep = AssertTrue<SameUnion<WorkbenchMethod, WorkbenchMethodName>>;

/** The typed API a client offers: one async function per method. */
export type WorkbenchApi = {
  [M in WorkbenchMethod]: (
    ...params: Record<never, never> extends WorkbenchParams[M] ? [params?: WorkbenchParams[M]] : [params: WorkbenchParams[M]]
  ) => Promise<WorkbenchResults[M]>;
};
