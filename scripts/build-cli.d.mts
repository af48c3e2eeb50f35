import type * as Esbuild from 'esbuild';

/** The esbuild options of the CLI bundle (entry `cli/main.ts`, split chunks, packages external), nothing written. */
export function cliBuildOptions(): Esbuild.BuildOptions & { metafile: true; write: false };

/** Builds the CLI bundle into dist/cli and writes its manifest; `prune` removes files of earlier builds. */
export function buildCli(options?: { esbuild?: typeof Esbuild; prune?: boolean }): Promise<{ files: number; inputs: number }>;
