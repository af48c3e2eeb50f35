/**
 * node-llama-cpp is an optional dependency: where it is not installed, the
 * real `skillbench` binary still starts, runs every other model, and ends a
 * `llama-cpp:` run like an unavailable model (exit 6) with one line naming the
 * package and the command that installs it.
 *
 * Absence is made with Node's own module hooks (`--import` in NODE_OPTIONS):
 * `node-llama-cpp` is resolved from an empty folder, so Node's resolver
 * itself fails, as it does on an install without the package.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess as runCli } from '../../helpers/cli';
import { writeTinyLlamaGguf } from '../../helpers/gguf';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/packages/', import.meta.url));

let work: string;
let withoutLlama: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-no-llama-'));
  await mkdir(join(work, 'empty'));
  await writeFile(
    join(work, 'resolve.mjs'),
    [
      "const elsewhere = new URL('./empty/index.mjs', import.meta.url).href;",
      'export async function resolve(specifier, context, next) {',
      "  const llama = specifier === 'node-llama-cpp' || specifier.startsWith('node-llama-cpp/');",
      '  return next(specifier, llama ? { ...context, parentURL: elsewhere } : context);',
      '}',
      '',
    ].join('\n'),
  );
  await writeFile(join(work, 'hooks.mjs'), "import { register } from 'node:module';\nregister('./resolve.mjs', import.meta.url);\n");
  withoutLlama = { SKILLBENCH_HOME: join(work, 'home'), NODE_OPTIONS: `--import=${pathToFileURL(join(work, 'hooks.mjs')).href}` };
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('skillbench without node-llama-cpp', () => {
  it('ends a llama-cpp: model with exit 6 and one line naming the package and its install command', async () => {
    const model = await writeTinyLlamaGguf(join(work, 'tiny.gguf'), { seed: 3 });
    const run = await runCli(['select', '--request', 'Will it rain on my trip?', '--catalog', EXAMPLES, '--model', `llama-cpp:${model.path}`], {
      cwd: work,
      env: withoutLlama,
    });
    expect(run.code, run.stderr).toBe(6);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain('the optional package node-llama-cpp is not installed');
    expect(lines[0]).toContain('npm install node-llama-cpp@3.21.1');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs other models as usual', async () => {
    const run = await runCli(['select', '--request', 'Will it rain on my trip?', '--catalog', EXAMPLES, '--model', 'baseline:lexical', '--json'], {
      cwd: work,
      env: withoutLlama,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toBeTypeOf('object');
  });
});
