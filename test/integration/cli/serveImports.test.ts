/**
 * What `skillbench serve` loads before its first request: the CLI built as
 * scripts/build-cli.mjs builds it (nothing written), then the static import
 * graph of its entry and of the `serve` command's chunk, which the entry
 * imports when the command runs. The model transport (undici), the AI SDK,
 * Redis (ioredis), llama.cpp, the sentence encoder and the Agent Skills
 * conversion (yaml, the Markdown parser) are reached only through dynamic
 * imports, so the server starts without them (about a third of its start)
 * and loads each on first use.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cliBuildOptions } from '../../../scripts/build-cli.mjs';

/** Packages a server needs only once a model, a Redis connection or a conversion is used. */
const ON_FIRST_USE = ['undici', 'ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/groq', '@ai-sdk/openai-compatible', 'ioredis', 'node-llama-cpp', '@energetic-ai/core', 'yaml', 'unified', 'remark-parse'];

/** The package a bare import names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** External packages reachable from the outputs `from` through imports of `kinds`. */
function reachablePackages(metafile: Metafile, from: string[], kinds: ReadonlySet<string>): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (output: string): void => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const edge of metafile.outputs[output]?.imports ?? []) {
      if (!kinds.has(edge.kind)) continue;
      if (edge.external) {
        if (!edge.path.startsWith('node:')) packages.add(packageOf(edge.path));
      } else walk(edge.path);
    }
  };
  for (const output of from) walk(output);
  return packages;
}

describe('skillbench serve at start', () => {
  it('imports no model, Redis or conversion package statically; each stays reachable on first use', async () => {
    const { metafile } = await build({ ...cliBuildOptions(), sourcemap: false, logLevel: 'silent' });
    const outputs = Object.keys(metafile.outputs).filter((o) => o.endsWith('.mjs'));
    const entry = outputs.find((o) => metafile.outputs[o]!.entryPoint === 'cli/main.ts')!;
    const command = outputs.find((o) => Object.keys(metafile.outputs[o]!.inputs).includes('cli/commands/serve.ts'))!;
    expect(entry).toBeDefined();
    expect(command).toBeDefined();
    const atStart = reachablePackages(metafile, [entry, command], new Set(['import-statement', 'require-call']));
    const onUse = reachablePackages(metafile, [entry, command], new Set(['import-statement', 'require-call', 'dynamic-import']));
    expect(ON_FIRST_USE.filter((p) => atStart.has(p))).toEqual([]);
    // The server itself: its contract, WebSocket and watcher load at start.
    expect([...atStart]).toEqual(expect.arrayContaining(['zod', 'ws', 'chokidar']));
    // Not left out of the build: an evaluation, a Redis connection and an import still reach them.
    expect(['undici', 'ai', 'ioredis', 'yaml', 'unified'].filter((p) => !onUse.has(p))).toEqual([]);
  });
});
