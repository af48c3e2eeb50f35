/**
 * The Agent Skills methods of the service: `interop.import` into the open
 * workspace (a preview with `dry_run` shows the same report the CLI prints)
 * and `interop.export` of a draft, a workspace file or a stored revision.
 * The conversion lives in core/interop; this only resolves where things are.
 *
 * Node-only: files. The conversion (its YAML and Markdown parsers) is loaded
 * on the first call, not when the service starts.
 */
import { isAbsolute, resolve } from 'node:path';
import { WorkbenchError } from '../errors';
import { resolveLimits } from '../package/index';
import type { SkillId } from '../package/types';
import { identityFromPath } from '../workspace/identity';
import type { ConnectionPool } from './pool';
import type { Handlers } from './router';
import type { SourceResolver } from './storeMethods';

/** What the interop methods need from the rest of the service. */
export interface InteropMethodsOptions {
  pool: ConnectionPool;
  /** The open workspace folder, or null. */
  root: () => string | null;
  /** Drafts and workspace files as packages. */
  resolveSource: SourceResolver;
  /** A draft's identity. */
  draft: (id: string) => Promise<{ skill: SkillId } | undefined>;
}

/** The `interop.*` handlers. */
export function interopMethods(options: InteropMethodsOptions): Handlers {
  const workspace = (): string => {
    const root = options.root();
    if (root === null) throw new WorkbenchError('not_found', 'no workspace is open: open a folder first, then import into it', { details: { reason: 'no_workspace' } });
    return root;
  };
  /** A path as typed: absolute, or relative to the open workspace. */
  const where = (path: string): string => (isAbsolute(path) ? path : resolve(workspace(), path));

  return {
    'interop.import': async (params) => {
      const root = workspace();
      const { expandSkillPaths, importSkills } = await import('../interop/files');
      const paths = await expandSkillPaths(params.paths, root);
      return importSkills(paths, { namespace: params.namespace, workspace: root, cwd: root, overwrite: params.overwrite, dryRun: params.dry_run });
    },

    'interop.export': async (params) => {
      const limits = resolveLimits();
      const { source } = params;
      let skill: SkillId;
      let pkg;
      if (source.kind === 'stored') {
        skill = source.skill;
        pkg = await options.pool.use(source.connection, async (store) => (source.version === 'published' ? await store.getPublished(source.skill) : await store.getVersion(source.skill, source.version)).package);
      } else if (source.kind === 'file') {
        const identity = identityFromPath(source.path);
        if (identity.problem) throw new WorkbenchError('invalid_request', `${source.path}: ${identity.problem}`, { details: { pointer: '/source/path' } });
        skill = identity.id;
        pkg = (await options.resolveSource(source, limits)).package;
      } else {
        const draft = await options.draft(source.draft);
        if (!draft) throw new WorkbenchError('not_found', `draft ${source.draft}: no such draft with a skill identity`, { details: { pointer: '/source/draft' } });
        skill = draft.skill;
        pkg = (await options.resolveSource(source, limits)).package;
      }
      const { writeSkillExport } = await import('../interop/files');
      return writeSkillExport(pkg, skill, where(params.to), { overwrite: params.overwrite, dryRun: params.dry_run });
    },
  };
}
