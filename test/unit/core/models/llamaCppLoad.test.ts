/**
 * node-llama-cpp is optional: `llama-cpp:` models import it on first use, and
 * its absence is a model error naming the package and its install command.
 * Absence is real here: the importer resolves the package with Node's own
 * resolver from a folder that has none (or has a copy whose dependency is
 * missing), not a thrown error made up by the test.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../../core/models/errors';
import { NODE_LLAMA_CPP_VERSION, loadNodeLlamaCpp, type NodeLlamaCpp, type NodeLlamaCppImporter } from '../../../../core/models/llamaCpp';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-llama-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Imports node-llama-cpp the way a module in `folder` would. */
function importFrom(folder: string): NodeLlamaCppImporter {
  return async () => createRequire(join(folder, 'index.js'))('node-llama-cpp') as NodeLlamaCpp;
}

async function failureOf(importer: NodeLlamaCppImporter): Promise<ModelError> {
  const error = await loadNodeLlamaCpp(importer).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('loading node-llama-cpp', () => {
  it('names the package and the command that installs it when it is not installed, as an unavailable model (exit 6)', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const error = await failureOf(importFrom(empty));
    expect(error.code).toBe('model_unavailable');
    expect(error.kind).toBe('server');
    expect(error.provider).toBe('llama-cpp');
    expect(error.message).toContain('the optional package node-llama-cpp is not installed');
    expect(error.message).toContain(`npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`);
    expect(error.message).not.toContain(empty);
    expect(error.message).not.toMatch(/\n/);
  });

  it('says an installed copy does not load, with the reason, when a dependency of its own is missing', async () => {
    const broken = join(dir, 'broken');
    const pkg = join(broken, 'node_modules', 'node-llama-cpp');
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'node-llama-cpp', version: NODE_LLAMA_CPP_VERSION, main: 'index.js' }));
    await writeFile(join(pkg, 'index.js'), "module.exports = require('lifecycle-utils-that-is-absent');\n");
    const error = await failureOf(importFrom(broken));
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('node-llama-cpp is installed but does not load');
    expect(error.message).toContain("Cannot find module 'lifecycle-utils-that-is-absent'");
    expect(error.message).not.toContain('npm install');
  });

  it('is an optional peer (the installers leave it out) installed for development, at the version the hint names', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(manifest['dependencies']?.['node-llama-cpp']).toBeUndefined();
    expect(manifest['optionalDependencies']?.['node-llama-cpp']).toBeUndefined();
    expect(manifest['peerDependencies']?.['node-llama-cpp']).toBe(NODE_LLAMA_CPP_VERSION);
    expect(manifest['peerDependenciesMeta']?.['node-llama-cpp']).toEqual({ optional: true });
    expect(manifest['devDependencies']?.['node-llama-cpp']).toBe(NODE_LLAMA_CPP_VERSION);
  });
});
