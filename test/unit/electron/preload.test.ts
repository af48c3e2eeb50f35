/**
 * The preload is built exactly as shipped (the build script's own esbuild
 * options) and its inputs read from esbuild's metafile: it checks names, never
 * parameters, so it must not bundle zod or the contract's schemas.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const BUILD_SCRIPT = new URL('../../../scripts/build-electron.mjs', import.meta.url).href;

async function preloadInputs(): Promise<{ inputs: string[]; bytes: number }> {
  const { preloadBuildOptions } = (await import(BUILD_SCRIPT)) as { preloadBuildOptions: BuildOptions };
  const result = await build({ ...preloadBuildOptions, write: false, metafile: true, sourcemap: false });
  const metafile = result.metafile as Metafile;
  const bundle = result.outputFiles!.find((f) => f.path.endsWith('preload.cjs'))!;
  return { inputs: Object.keys(metafile.inputs), bytes: bundle.contents.byteLength };
}

describe('the Electron preload bundle', () => {
  it('holds the bridge and the names, not zod or the contract', async () => {
    const { inputs, bytes } = await preloadInputs();
    expect(inputs).toContain('core/api/names.ts');
    expect(inputs).toContain('electron/bridge.ts');
    expect(inputs.filter((p) => p.includes('node_modules/'))).toEqual([]);
    expect(inputs).not.toContain('core/api/contract.ts');
    // Its whole text is a few kilobytes: the bridge and the name lists.
    expect(bytes).toBeLessThan(16 * 1024);
  });
});
