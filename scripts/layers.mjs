// The layers of ARCHITECTURE.md section 1 as an allow-list, read by eslint.config.js.
//
// Every source file belongs to the first layer whose `files` match it. A layer
// names its runtime (which globals and Node built-ins its code may use) and the
// layers it may import from (`may`); `mayType` adds layers it may take types
// from (`import type`, erased at build time) but no code. An import of a module
// of this repository that no rule allows is an error, so a new folder or a new
// edge has to be written down here before it can be used: nothing is allowed by
// being forgotten.

import { existsSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/** The modules that run in a browser or a worker as well as under Node. */
export const ISOMORPHIC = [
  'core/package/**',
  'core/selector/**',
  'core/report/**',
  // The catalog's measures and split: pure, shared by the CLI, the API contract and the Catalog health view.
  'core/catalog/health.ts',
  'core/catalog/split.ts',
  'core/interop/types.ts',
  'core/interop/outline.ts',
  'core/interop/split.ts',
  'core/interop/skillMd.ts',
  'core/interop/sections.ts',
  'core/interop/neutralize.ts',
  'core/interop/importSkill.ts',
  'core/interop/exportSkill.ts',
  // The project file's check: shared by the CLI and the API contract.
  'core/workspace/projectConfig.ts',
  'core/connections/types.ts',
  'core/review/types.ts',
  'core/textRules.ts',
  'core/api/contract/**',
  'core/api/names.ts',
  'core/api/bridge.ts',
  'core/api/client.ts',
  'core/api/csp.ts',
  'core/api/ids.ts',
  'core/api/catalogScan.ts',
  'core/api/direct.ts',
  'core/api/errors.ts',
  'core/api/events.ts',
  'core/api/router.ts',
  'core/api/mediaTypes.ts',
  'core/errors.ts',
  'core/redact.ts',
  'core/retry.ts',
  // Freezing shared values and telling a value that can never change: the selector, the stores and the cells writer.
  'core/frozen.ts',
  // Contracts of Node-only folders that hold types and pure values only.
  'core/models/types.ts',
  // Model specs, aliases and their errors: pure, and the model picker's types (core/models/types.ts) name the aliases and prices.
  'core/models/aliases.ts',
  'core/models/spec.ts',
  'core/models/errors.ts',
  'core/store/types.ts',
  'core/store/errors.ts',
];

/**
 * The layers, most specific first. `runtime` is one of `isomorphic` (the globals
 * Node and browsers share, no Node built-ins, no Node-only packages), `browser`
 * or `node`; `any` is for tests, scripts and configuration, which the rule skips.
 */
export const LAYERS = [
  { name: 'tooling', runtime: 'any', files: ['test/**', 'scripts/**', '*.config.*', '*.mjs', '*.js', '*.ts'] },
  { name: 'core (isomorphic)', runtime: 'isomorphic', files: ISOMORPHIC, may: ['core (isomorphic)'] },
  { name: 'core (Node)', runtime: 'node', files: ['core/**'], may: ['core (isomorphic)', 'core (Node)'] },
  { name: 'evals', runtime: 'node', files: ['evals/**'], may: ['core (isomorphic)', 'core (Node)', 'evals'] },
  { name: 'cli', runtime: 'node', files: ['cli/**'], may: ['core (isomorphic)', 'core (Node)', 'evals', 'cli'] },
  // The keymap (the shell's rows, each feature's `keymap.ts` and their collection) is data the desktop menu shows too, so it stays free of the DOM.
  { name: 'keymap', runtime: 'isomorphic', files: ['renderer/keymap.ts', 'renderer/*/keymap.ts', 'renderer/shell/keys.ts'], may: ['keymap', 'core (isomorphic)'] },
  { name: 'preload', runtime: 'browser', files: ['electron/preload.ts', 'electron/bridge.ts'], may: ['preload', 'core (isomorphic)'] },
  { name: 'electron main', runtime: 'node', files: ['electron/**'], may: ['electron main', 'core (isomorphic)', 'core (Node)', 'evals', 'keymap'], mayType: ['preload'] },
  { name: 'renderer', runtime: 'browser', files: ['renderer/**'], may: ['renderer', 'keymap', 'core (isomorphic)'], mayType: ['evals'] },
];

/** Converts a glob of `*`, `**` and literal characters, matched against a `/`-separated path, into a RegExp. */
function globToRegExp(glob) {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `a/**` matches everything below a/; `**/` any number of folders.
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else source += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const compiled = LAYERS.map((layer) => ({ ...layer, patterns: layer.files.map(globToRegExp) }));

/** The layer of a repository-relative, `/`-separated path, or undefined for a path outside every layer. */
export function layerOf(path) {
  return compiled.find((layer) => layer.patterns.some((p) => p.test(path)));
}

const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '/index.ts', '/index.tsx'];

/** The repository-relative file a relative specifier names, from the importing file's path. */
function resolveSpecifier(root, fromPath, specifier) {
  const bare = specifier.replace(/\?.*$/, '');
  const joined = posix.normalize(posix.join(posix.dirname(fromPath), bare)).replace(/\.(m?js|jsx)$/, '');
  // A style sheet, an image or a JSON file is taken as named.
  if (/\.(css|svg|png|json|html|txt)$/.test(joined)) return joined;
  for (const ext of EXTENSIONS) {
    const candidate = joined + ext;
    if (ext !== '' && existsSync(join(root, candidate))) return candidate;
  }
  // A file that does not exist yet is classified by where it would be.
  return /\.[cm]?tsx?$/.test(joined) ? joined : `${joined}.ts`;
}

function isTypeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** The ESLint rule: every import of a repository module must be an edge the layer table allows. */
export const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Each layer imports only the layers scripts/layers.mjs allows it (ARCHITECTURE.md section 1).' },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const fromPath = relative(root, context.filename).split(sep).join('/');
    const from = layerOf(fromPath);
    if (!from || from.runtime === 'any') return {};
    function check(node, source, typeOnly) {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = resolveSpecifier(root, fromPath, source.value);
      // A package reached by a relative path is a package: the package rules of eslint.config.js cover it.
      if (target.startsWith('node_modules/')) return;
      const to = layerOf(target);
      const allowed = to && (from.may.includes(to.name) || (typeOnly && (from.mayType ?? []).includes(to.name)));
      if (allowed) return;
      const what = to ? `${to.name} (${target})` : `${target}, which is in no layer`;
      const typeHint = to && (from.mayType ?? []).includes(to.name) ? ' except its types (import type)' : '';
      context.report({
        node: source,
        message: `${from.name} may not import ${what}${typeHint}: it may import ${from.may.join(', ')}${from.mayType ? `, and types from ${from.mayType.join(', ')}` : ''} (scripts/layers.mjs, ARCHITECTURE.md section 1).`,
      });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source, isTypeOnly(node)),
      ExportNamedDeclaration: (node) => check(node, node.source, isTypeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      // `typeof import('../x')` in a type position.
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument, true),
    };
  },
};

/** The files of each runtime, for the globals and package rules of eslint.config.js. */
export function filesOfRuntime(runtime) {
  return compiled.filter((layer) => layer.runtime === runtime).flatMap((layer) => layer.files);
}
