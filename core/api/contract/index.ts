/**
 * The WorkbenchApi contract: every request/response method and every event
 * the workbench UI, the Electron shell, `skillbench serve` and the tests share
 * (ARCHITECTURE.md section 2).
 *
 * - Methods are named `domain.verb` and take one JSON object of parameters,
 *   parsed at the boundary by the schema listed in {@link METHODS}; results are
 *   plain JSON data typed by {@link WorkbenchResults}.
 * - Events are past tense (`evals.progressed`) and typed by {@link WorkbenchEvents}.
 * - Failures cross as data: one {@link WorkbenchErrorData} with a code of the
 *   store taxonomy (plus the workbench's own few), a message a user can act on,
 *   and the JSON Pointer / line / column where one applies. Clients rethrow it as
 *   a `WorkbenchError`.
 *
 * A host serves only the methods it has wired: `app.info` lists them, and an
 * unknown or unwired method is refused with `not_implemented`, never faked.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */

export * from './errors';
export * from './common';
export * from './app';
export * from './connections';
export * from './catalog';
export * from './packages';
export * from './workspace';
export * from './models';
export * from './evals';
export * from './optimize';
export * from './reviews';
export * from './interop';
export * from './methods';
export * from './events';
export type { MethodSpec } from './internal';
