import type { Rule } from 'eslint';

/** A layer of ARCHITECTURE.md section 1: the files it holds, their runtime, and what they may import. */
export interface Layer {
  name: string;
  runtime: 'any' | 'isomorphic' | 'browser' | 'node';
  files: string[];
  may?: string[];
  mayType?: string[];
}

export const ISOMORPHIC: string[];
export const LAYERS: Layer[];
export function layerOf(path: string): Layer | undefined;
export const allowedImports: Rule.RuleModule;
export function filesOfRuntime(runtime: Layer['runtime']): string[];
