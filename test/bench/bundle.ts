/**
 * Bench suite `bundle`: what the workbench downloads before its first paint,
 * and the Electron preload, each built as shipped.
 *
 * - initial renderer JavaScript: the page's entry chunk and every chunk it
 *   imports statically (what `index.html` loads and preloads), against all the
 *   JavaScript the renderer ships (lazy views, Monaco, workers) from the same
 *   build. Target: under 1 MB; Monaco is not part of it.
 * - the editor's chunk: the Monaco chunks the first editor tab downloads,
 *   against the same build without vite.config.ts's resolver that keeps
 *   Monaco's JSON language from importing every editor contribution.
 * - Electron preload: `dist/electron/preload.cjs` as `scripts/build-electron.mjs`
 *   builds it, against the same bridge built on the zod-checked contract's
 *   names instead of `core/api/names.ts` (what the preload was). Target: under
 *   16 KB and no zod.
 *
 * Sizes are bytes of the minified output (1 KB = 1,000 bytes; 1 MB = 1,000,000).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild, type BuildOptions } from 'esbuild';
import { build as viteBuild, type PluginOption, type Rolldown, type UserConfig } from 'vite';
import type { BenchRow } from './harness';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INITIAL_TARGET_BYTES = 1_000_000;
const PRELOAD_TARGET_BYTES = 16_000;

type RendererOutput = (Rolldown.OutputChunk | Rolldown.OutputAsset)[];

/** The plugin of vite.config.ts that keeps Monaco's language features from importing every contribution. */
const MONACO_RESOLVER = 'skillbench:monaco-language-workers';

/** The renderer's chunks from one production build into a scratch folder; `without` names a plugin of vite.config.ts to leave out. */
async function rendererOutput(without?: string): Promise<RendererOutput> {
  const outDir = await mkdtemp(join(tmpdir(), 'skillbench-bench-bundle-'));
  try {
    const config = ((await import(join(ROOT, 'vite.config.ts'))) as { default: UserConfig }).default;
    // A plugin entry may be an array of plugins (react() is); flattened, the one named `without` is left out.
    const flatten = (entries: readonly unknown[]): unknown[] => entries.flatMap((e) => (Array.isArray(e) ? flatten(e) : [e]));
    const plugins = flatten(config.plugins ?? []).filter((p) => !(p && typeof p === 'object' && 'name' in p && p.name === without)) as PluginOption[];
    const result = await viteBuild({
      ...config,
      configFile: false,
      plugins,
      root: join(ROOT, 'renderer'),
      logLevel: 'silent',
      build: { ...config.build, outDir, emptyOutDir: true, write: false },
    });
    const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
    return outputs.flatMap((o) => o.output);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Bytes of the Monaco chunks (named `monaco-…`, as the browser tests check): what the first editor tab downloads beside its view. */
function editorChunkBytes(output: Readonly<RendererOutput>): number {
  return output.reduce((sum, o) => sum + (o.type === 'chunk' && /(^|\/)monaco-[\w-]+\.js$/.test(o.fileName) ? Buffer.byteLength(o.code) : 0), 0);
}

/** Bytes of the page's entry chunk and of every chunk reached from it by static imports. */
export function initialJsBytes(output: Readonly<RendererOutput>): { bytes: number; files: string[] } {
  const chunks = new Map(output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk').map((c) => [c.fileName, c]));
  const entry = [...chunks.values()].find((c) => c.isEntry && c.facadeModuleId?.endsWith('index.html'));
  if (!entry) throw new Error('the renderer build has no index.html entry chunk');
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const next of chunks.get(name)?.imports ?? []) visit(next);
  };
  visit(entry.fileName);
  const files = [...seen];
  return { bytes: files.reduce((sum, name) => sum + Buffer.byteLength(chunks.get(name)!.code), 0), files };
}

function jsBytes(output: Readonly<RendererOutput>): number {
  let total = 0;
  for (const o of output) {
    if (o.type === 'chunk') total += Buffer.byteLength(o.code);
    else if (o.fileName.endsWith('.js')) total += typeof o.source === 'string' ? Buffer.byteLength(o.source) : o.source.byteLength;
  }
  return total;
}

async function preloadBytes(options: BuildOptions): Promise<{ bytes: number; zod: boolean }> {
  const result = await esbuild({ ...options, write: false, metafile: true, sourcemap: false });
  const bundle = result.outputFiles!.find((f) => f.path.endsWith('.cjs'))!;
  return { bytes: bundle.contents.byteLength, zod: Object.keys(result.metafile!.inputs).some((p) => p.includes('node_modules/zod/')) };
}

export async function bench(): Promise<BenchRow[]> {
  const output = await rendererOutput();
  const initial = initialJsBytes(output);
  const all = jsBytes(output);
  const monaco = initial.files.filter((f) => /(^|\/)monaco-/.test(f));
  const editor = editorChunkBytes(output);
  const editorUnresolved = editorChunkBytes(await rendererOutput(MONACO_RESOLVER));

  const { preloadBuildOptions } = (await import(join(ROOT, 'scripts', 'build-electron.mjs'))) as { preloadBuildOptions: BuildOptions };
  const preload = await preloadBytes(preloadBuildOptions);
  // The bridge checking names through the contract, as the preload did before names.ts.
  const onContract = await preloadBytes({
    ...preloadBuildOptions,
    entryPoints: undefined,
    outfile: 'preload-on-contract.cjs',
    stdin: {
      contents: "import { isWorkbenchEvent, isWorkbenchMethod } from './core/api/contract';\nexport { isWorkbenchEvent, isWorkbenchMethod };\nexport * from './electron/bridge';\n",
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: 'preload-on-contract.ts',
    },
  });

  return [
    {
      suite: 'bundle',
      name: 'renderer: initial JavaScript (first paint)',
      medianMs: initial.bytes / 1000,
      baselineName: 'all renderer JavaScript',
      baselineMs: all / 1000,
      unit: 'KB',
      ratio: initial.bytes / all,
      target: '< 1 MB, no Monaco',
      met: initial.bytes < INITIAL_TARGET_BYTES && monaco.length === 0,
      note: `${initial.files.length} files${monaco.length ? `; Monaco in ${monaco.join(', ')}` : ''}`,
    },
    {
      suite: 'bundle',
      name: "renderer: the editor's Monaco chunk (first editor tab)",
      medianMs: editor / 1000,
      baselineName: "the same build with Monaco's JSON language importing every contribution",
      baselineMs: editorUnresolved / 1000,
      unit: 'KB',
      ratio: editor / editorUnresolved,
      target: 'smaller than the baseline',
      met: editor < editorUnresolved,
      note: `${((editorUnresolved - editor) / 1000).toFixed(0)} KB of contributions renderer/editor/monaco.ts leaves out`,
    },
    {
      suite: 'bundle',
      name: 'Electron preload',
      medianMs: preload.bytes / 1000,
      baselineName: 'bridge on the zod contract',
      baselineMs: onContract.bytes / 1000,
      unit: 'KB',
      ratio: preload.bytes / onContract.bytes,
      target: '< 16 KB, no zod',
      met: preload.bytes < PRELOAD_TARGET_BYTES && !preload.zod,
      note: `${preload.zod ? 'bundles zod' : 'no zod'}; ${(onContract.bytes / preload.bytes).toFixed(0)}x smaller than the baseline`,
    },
  ];
}
