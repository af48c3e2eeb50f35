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
  group: ['**/core/store/**', '**/core/admin/**', '**/core/models/**', '**/core/workspace/**', '**/core/review/**', '**/store/*', '**/admin/*', '**/models/*', '**/workspace/*', '**/review/*', '!**/models/types', '!**/store/types', '!**/store/errors'],
  message: 'Isomorphic modules must not import Node-only core modules (the contracts core/models/types and core/store/types are allowed).',
};
const noNode = nodeBuiltins.map((name) => ({
  name,
  message: 'This module is isomorphic (Node and browser worker): no Node built-ins.',
}));

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
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
    files: ['core/package/**/*.ts', 'core/selector/**/*.ts', 'core/report/**/*.ts', 'core/api/contract*.ts', 'core/api/bridge.ts', 'core/api/client.ts', 'core/api/csp.ts', 'core/api/ids.ts', 'core/api/catalogScan.ts', 'core/api/direct.ts', 'core/api/errors.ts', 'core/api/events.ts', 'core/api/router.ts', 'core/errors.ts', 'core/redact.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: upperLayers.message }, ...noNode], patterns: [upperLayers, nodeOnlyCore] }],
    },
  },
  {
    files: ['evals/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'evals/ imports core only.' }], patterns: [{ group: ['**/electron/**', '**/renderer/**', '**/cli/**'], message: 'evals/ imports core only.' }] }],
    },
  },
  {
    // The renderer may take the engine's result types (import type from evals/), never its code.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer talks to the backend only through the WorkbenchApi client.' }, ...noNode],
          patterns: [
            nodeOnlyCore,
            { group: ['**/cli/**', '**/electron/**'], message: 'The renderer talks to the backend only through the WorkbenchApi client.' },
            { group: ['**/evals/**'], allowTypeImports: true, message: 'The renderer talks to the backend only through the WorkbenchApi client; it may import the engine\'s types (import type), never its code.' },
          ],
        },
      ],
    },
  },
);
