/**
 * The layer lint, fed violating files: each runtime sees only its own globals
 * and may import only what runs there. The files are linted as if they lived
 * at the given paths, through ESLint's public API and the repository's config.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('layer lint', () => {
  it.each([
    ['core/package/violation.ts', 'export const n = Buffer.byteLength("x");\n', /no-restricted-globals.*Buffer/],
    ['core/package/violation.ts', 'export const e = process.env.HOME;\n', /no-restricted-globals.*process/],
    ['core/selector/violation.ts', 'export const w = window.location;\n', /no-restricted-globals.*window/],
    ['core/report/violation.ts', "import { request } from 'undici';\nexport { request };\n", /no-restricted-imports.*undici/],
    ['core/package/violation.ts', "import { Redis } from 'ioredis';\nexport { Redis };\n", /no-restricted-imports.*ioredis/],
    ['core/package/violation.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };\n", /no-restricted-imports.*node:fs\/promises/],
    ['core/package/violation.ts', "import { openStore } from '../store/connect';\nexport { openStore };\n", /no-restricted-imports/],
    ['core/report/violation.ts', "import { writeFileAtomic } from '../fs/atomic';\nexport { writeFileAtomic };\n", /no-restricted-imports.*Node-only core/],
    ['renderer/violation.ts', "import { writeFileAtomic } from '../core/fs/atomic';\nexport { writeFileAtomic };\n", /no-restricted-imports.*Node-only core/],
    ['core/store/violation.ts', "import { plan } from '../../evals/plan';\nexport { plan };\n", /no-restricted-imports.*core\/ imports nothing/],
    ['renderer/violation.ts', 'export const e = process.env.HOME;\n', /no-restricted-globals.*process/],
    ['renderer/violation.ts', "import { WebSocketServer } from 'ws';\nexport { WebSocketServer };\n", /no-restricted-imports.*ws/],
    ['renderer/violation.ts', "import { runEval } from '../evals/runner';\nexport { runEval };\n", /no-restricted-imports/],
    ['core/interop/importSkill.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };\n", /no-restricted-imports.*node:fs\/promises/],
    ['core/interop/exportSkill.ts', "import { readSkillFolder } from './files';\nexport { readSkillFolder };\n", /no-restricted-imports.*Node-only core/],
    ['renderer/violation.ts', "import { importSkills } from '../core/interop/files';\nexport { importSkills };\n", /no-restricted-imports.*Node-only core/],
  ])('refuses %s: %s', async (filePath, code, expected) => {
    const found = await problems(filePath, code);
    expect(found.some((p) => expected.test(p)), found.join('\n')).toBe(true);
  });

  it.each([
    ['core/package/fine.ts', 'export const bytes = new TextEncoder().encode("x").length;\nexport const later = () => setTimeout(() => undefined, 1);\n'],
    ['core/store/fine.ts', "import { request } from 'undici';\nexport { request };\nexport const n = Buffer.byteLength('x') + Number(process.env.N ?? 0);\n"],
    ['core/store/fine.ts', "import { writeFileAtomic } from '../fs/atomic';\nexport { writeFileAtomic };\n"],
    ['core/interop/files.ts', "import { readdir } from 'node:fs/promises';\nexport { readdir };\n"],
    ['renderer/fine.ts', "import type { SkillImportReport } from '../core/interop/types';\nexport type R = SkillImportReport;\n"],
    ['renderer/fine.ts', 'export const w = () => window.location.href + document.title;\n'],
    ['renderer/fine.ts', "import type { RunHeader } from '../evals/types';\nexport type S = RunHeader;\n"],
  ])('accepts %s', async (filePath, code) => {
    expect(await problems(filePath, code)).toEqual([]);
  });
});
