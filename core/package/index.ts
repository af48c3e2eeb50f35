/**
 * The V1 package model: parse, normalize, validate, limits, token estimator,
 * canonical form, integrity hashes, JSON Schema, semantic diff, 3-way merge and
 * JSON Patch (RFC 6902).
 *
 * Isomorphic: no `node:` imports; runs in Node and in a browser worker.
 */
export * from './types';
export * from './limits';
export * from './tokens';
export * from './parse';
export * from './normalize';
export * from './rules';
export * from './scan';
export * from './validate';
export * from './canonical';
export * from './integrity';
export * from './schema';
export * from './diff';
export * from './merge';
export * from './jsonPatch';
