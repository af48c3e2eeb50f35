/**
 * Conversion to and from Agent Skills folders.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { SkillExportReport, SkillImportReport } from '../../interop/types';
import { connectionNameSchema, folderSchema, skillIdSchema, versionSchema, workspacePathSchema } from './common';
import { method, slug } from './internal';

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const interopMethods = {
  /**
   * Converts Agent Skills folders (a SKILL.md, the folder holding one, or a
   * folder of such folders; relative paths are taken from the open workspace)
   * into packages of the open workspace, `skills/packages/<namespace>/`. With
   * `dry_run` nothing is written: the report shows every conversion first.
   * A package file with other content is replaced only with `overwrite`;
   * otherwise nothing at all is written and its status is `exists`.
   */
  'interop.import': method<SkillImportReport>()(
    z.strictObject({
      paths: z.array(folderSchema).min(1).max(100),
      namespace: slug('a namespace'),
      overwrite: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    }),
  ),
  /**
   * Writes a package as an Agent Skills folder `<to>/<name>/` (SKILL.md and
   * references/); `to` relative is taken from the open workspace. An existing
   * SKILL.md there is a 409 unless `overwrite`; `dry_run` writes nothing.
   */
  'interop.export': method<SkillExportReport>()(
    z.strictObject({
      source: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('stored'), connection: connectionNameSchema, skill: skillIdSchema, version: z.union([z.literal('published'), versionSchema]).default('published') }),
        z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
        z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
      ]),
      to: folderSchema,
      overwrite: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    }),
  ),
  /**
   * Asks the user for a folder with the desktop's own picker; `path` is null
   * when they cancel. Only the desktop shell serves it: a browser shows a path
   * field instead.
   */
  'host.pickFolder': method<{ path: string | null }>()(z.strictObject({ title: z.string().max(200).optional() })),
} as const;
