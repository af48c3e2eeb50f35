/**
 * What `skillbench serve` loads before its first request: the command built as
 * scripts/build-cli.mjs builds the CLI (esbuild, split chunks, packages
 * external), then its static import graph walked from the entry. The model
 * transport (undici), the AI SDK, Redis (ioredis), llama.cpp, the sentence
 * encoder and the Agent Skills conversion (yaml, the Markdown parser) are
 * reached only through dynamic imports, so the server starts without them
 * (about a third of its start) and loads each on first use.
 */
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Packages a server needs only once a model, a Redis connection or a conversion is used. */
const ON_FIRST_USE = ['undici', 'ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/groq', '@ai-sdk/openai-compatible', 'ioredis', 'node-llama-cpp', '@energetic-ai/core', 'yaml', 'unified', 'remark-parse'];

/** The package a bare import names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** External packages reachable from `entry`'s output through imports of `kinds`. */
function reachablePackages(metafile: Metafile, entry: string, kinds: ReadonlySet<string>): Set<string> {
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
  walk(entry);
  return packages;
}

describe('skillbench serve at start', () => {
  it('imports no model, Redis or conversion package statically; each stays reachable on first use', async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: { serve: 'cli/commands/serve.ts' },
      outdir: 'out',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const entry = Object.keys(result.metafile.outputs).find((o) => result.metafile.outputs[o]!.entryPoint === 'cli/commands/serve.ts')!;
    const atStart = reachablePackages(result.metafile, entry, new Set(['import-statement', 'require-call']));
    const onUse = reachablePackages(result.metafile, entry, new Set(['import-statement', 'require-call', 'dynamic-import']));
    expect(ON_FIRST_USE.filter((p) => atStart.has(p))).toEqual([]);
    // The server itself: its contract, WebSocket and watcher load at start.
    expect([...atStart]).toEqual(expect.arrayContaining(['zod', 'ws', 'chokidar']));
    // Not left out of the build: an evaluation, a Redis connection and an import still reach them.
    expect(['undici', 'ai', 'ioredis', 'yaml', 'unified'].filter((p) => !onUse.has(p))).toEqual([]);
  });
});
