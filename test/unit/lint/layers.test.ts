/**
 * The layer lint, fed violating files: each runtime sees only its own globals,
 * and each layer imports only what scripts/layers.mjs allows it. The files are
 * linted as if they lived at the given paths, through ESLint's public API and
 * the repository's config.
 */
import { execFileSync } from 'node:child_process';
import { posix } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { LAYERS, layerOf } from '../../../scripts/layers.mjs';

const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

/** The specifier `from` would write to import `to` (both repository-relative). */
function specifier(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to.replace(/\.tsx?$/, ''));
  return rel.startsWith('.') ? rel : `./${rel}`;
}

// One real module of each layer that source files live in, and a new file's path beside it.
const tracked = execFileSync('git', ['ls-files', 'core', 'evals', 'cli', 'electron', 'renderer'], { encoding: 'utf8' }).split('\n').filter((f) => /\.tsx?$/.test(f));
const sourceLayers = LAYERS.filter((l) => l.runtime !== 'any');
const sample = new Map(sourceLayers.map((l) => [l.name, tracked.find((f) => layerOf(f)?.name === l.name)]));
const newFileIn = (layer: string): string => {
  const module = sample.get(layer)!;
  // A new file beside the sample falls in the same layer only where the layer is a folder;
  // layers of named files are fed through the sample's own path.
  const beside = posix.join(posix.dirname(module), 'edge.ts');
  return layerOf(beside)?.name === layer ? beside : module;
};

const edges = sourceLayers.flatMap((from) => sourceLayers.map((to) => [from, to] as const));
const forbidden = edges.filter(([from, to]) => !(from.may ?? []).includes(to.name));
const allowed = edges.filter(([from, to]) => (from.may ?? []).includes(to.name));

describe('layer lint: the allow-list of imports between layers', () => {
  it('has a module in every layer, so every edge below is fed a real import', () => {
    for (const [name, module] of sample) expect(module, `a file in ${name}`).toBeDefined();
  });

  it.each(forbidden.map(([from, to]) => [from.name, to.name]))('refuses %s importing %s', async (from, to) => {
    const file = newFileIn(from);
    const target = sample.get(to)!;
    const found = await problems(file, `import * as m from '${specifier(file, target)}';\nexport { m };\n`);
    expect(found.some((p) => p.startsWith('layers/allowed-imports') && p.includes(`${from} may not import ${to}`)), found.join('\n')).toBe(true);
  });

  it.each(allowed.map(([from, to]) => [from.name, to.name]))('accepts %s importing %s', async (from, to) => {
    const file = newFileIn(from);
    const target = sample.get(to)!;
    const found = await problems(file, `import * as m from '${specifier(file, target)}';\nexport { m };\n`);
    expect(found.filter((p) => p.startsWith('layers/')), found.join('\n')).toEqual([]);
  });

  it.each([
    // The holes a deny-list left open.
    ['renderer/violation.ts', "import { createWorkbenchService } from '../core/api/service';\nexport { createWorkbenchService };\n"],
    ['renderer/violation.ts', "import { ConnectionManager } from '../core/connections/manager';\nexport { ConnectionManager };\n"],
    ['core/package/violation.ts', "import { ConnectionManager } from '../connections/manager';\nexport { ConnectionManager };\n"],
    ['core/selector/violation.ts', "export const load = () => import('../api/pool');\n"],
    ['core/report/violation.ts', "export { writeFileAtomic } from '../fs/atomic';\n"],
    ['renderer/violation.ts', "import { runEval } from '../evals/runner';\nexport { runEval };\n"],
    ['renderer/violation.ts', "import { main } from '../cli/main';\nexport { main };\n"],
    ['core/store/violation.ts', "import { plan } from '../../evals/plan';\nexport { plan };\n"],
    ['evals/violation.ts', "import { main } from '../cli/main';\nexport { main };\n"],
    ['electron/preload.ts', "import { createWorkbenchService } from '../core/api/service';\nexport { createWorkbenchService };\n"],
    ['core/package/violation.ts', "import { x } from '../../somewhere/new';\nexport { x };\n"],
  ])('refuses %s: %s', async (filePath, code) => {
    const found = await problems(filePath, code);
    expect(found.some((p) => p.startsWith('layers/allowed-imports')), found.join('\n')).toBe(true);
  });

  it.each([
    ['renderer/fine.ts', "import type { RunHeader } from '../evals/types';\nexport type S = RunHeader;\n"],
    ['renderer/fine.ts', "import { type RunHeader } from '../evals/types';\nexport type S = RunHeader;\n"],
    ['renderer/fine.ts', "import type { SkillImportReport } from '../core/interop/types';\nexport type R = SkillImportReport;\n"],
    ['renderer/fine.ts', "import worker from './validationWorker?worker';\nexport { worker };\n"],
    ['electron/menu.ts', "import { keymapEntry } from '../renderer/shell/keymap';\nexport { keymapEntry };\n"],
    ['test/unit/fine.test.ts', "import { main } from '../../cli/main';\nexport { main };\n"],
  ])('accepts %s: %s', async (filePath, code) => {
    const found = await problems(filePath, code);
    expect(found.filter((p) => p.startsWith('layers/')), found.join('\n')).toEqual([]);
  });
});

describe('layer lint: runtimes', () => {
  it.each([
    ['core/package/violation.ts', 'export const n = Buffer.byteLength("x");\n', /no-restricted-globals.*Buffer/],
    ['core/package/violation.ts', 'export const e = process.env.HOME;\n', /no-restricted-globals.*process/],
    ['core/selector/violation.ts', 'export const w = window.location;\n', /no-restricted-globals.*window/],
    ['renderer/shell/keymap.ts', 'export const w = document.title;\n', /no-restricted-globals.*document/],
    ['renderer/catalog/keymap.ts', 'export const w = document.title;\n', /no-restricted-globals.*document/],
    ['core/report/violation.ts', "import { request } from 'undici';\nexport { request };\n", /no-restricted-imports.*undici/],
    ['core/package/violation.ts', "import { Redis } from 'ioredis';\nexport { Redis };\n", /no-restricted-imports.*ioredis/],
    ['core/package/violation.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };\n", /no-restricted-imports.*node:fs\/promises/],
    ['core/interop/importSkill.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };\n", /no-restricted-imports.*node:fs\/promises/],
    ['core/store/violation.ts', "import { app } from 'electron';\nexport { app };\n", /no-restricted-imports.*electron/],
    ['renderer/violation.ts', 'export const e = process.env.HOME;\n', /no-restricted-globals.*process/],
    ['renderer/violation.ts', "import { WebSocketServer } from 'ws';\nexport { WebSocketServer };\n", /no-restricted-imports.*ws/],
    ['renderer/violation.ts', "import { ipcRenderer } from 'electron';\nexport { ipcRenderer };\n", /no-restricted-imports.*electron/],
  ])('refuses %s: %s', async (filePath, code, expected) => {
    const found = await problems(filePath, code);
    expect(found.some((p) => expected.test(p)), found.join('\n')).toBe(true);
  });

  it.each([
    ['core/package/fine.ts', 'export const bytes = new TextEncoder().encode("x").length;\nexport const later = () => setTimeout(() => undefined, 1);\n'],
    ['core/store/fine.ts', "import { request } from 'undici';\nexport { request };\nexport const n = Buffer.byteLength('x') + Number(process.env.N ?? 0);\n"],
    ['core/store/fine.ts', "import { writeFileAtomic } from '../fs/atomic';\nexport { writeFileAtomic };\n"],
    ['core/interop/files.ts', "import { readdir } from 'node:fs/promises';\nexport { readdir };\n"],
    ['renderer/fine.ts', 'export const w = () => window.location.href + document.title;\n'],
    ['electron/preload.ts', "import { contextBridge } from 'electron';\nexport { contextBridge };\n"],
  ])('accepts %s', async (filePath, code) => {
    expect(await problems(filePath, code)).toEqual([]);
  });
});
