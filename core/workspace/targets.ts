/**
 * What a user names to evaluate, resolved against a workspace: a package file
 * (a draft), a workspace folder (every package in it), or `<namespace>/<name>`
 * (a published revision), each with the extra cases kept beside the workspace
 * in `skills/evals/<namespace>/<name>.json` (ARCHITECTURE.md section 6).
 *
 * The rule for which cases a target brings is one, whichever front end asks:
 * its package's activation examples, plus the extra-cases file of its
 * workspace when that workspace has one. A package file's workspace is the
 * one it lies in; a published skill's is the evaluating workspace (the
 * workbench's open workspace, the CLI's `--workspace`).
 *
 * Node-only: uses node:fs.
 */
import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { WorkbenchError } from '../errors';
import { skillKey, type SkillId } from '../package/types';
import { expectInside } from './confine';
import { discoverPackages } from './discover';
import { identityFromPath, parseSkillId } from './identity';

/** A draft package file to evaluate. */
export interface DraftTarget {
  kind: 'draft';
  id: SkillId;
  /** The path as shown to the user (relative to the working directory). */
  file: string;
  /** Absolute path of the package file. */
  abs: string;
  /** Absolute path of its extra-cases file, when there is one. */
  extras?: string;
}

/** A published revision to evaluate. */
export interface StoredTarget {
  kind: 'stored';
  id: SkillId;
  /** Absolute path of its extra-cases file in the working directory's workspace, when there is one. */
  extras?: string;
}

/** One skill to evaluate. */
export type Target = DraftTarget | StoredTarget;

/** An entry of a workspace folder that is not a package, skipped with why. */
export interface SkippedEntry {
  /** The path as shown to the user (relative to the working directory). */
  file: string;
  message: string;
}

/** Result of {@link resolveTargets}. */
export interface ResolvedTargets {
  targets: Target[];
  /** Entries of the given folders that are not packages (never skipped silently). */
  skipped: SkippedEntry[];
}

/** Whether anything at all is at `path` (a file, a folder, a FIFO, a dangling link). */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the extra cases of `id` belong, whether or not the file exists:
 * `<root>/evals/<namespace>/<name>.json` when `packagesDir` is a workspace's
 * `.../packages` folder, else undefined.
 */
export function extraCasesPath(packagesDir: string, id: SkillId): string | undefined {
  if (basename(packagesDir) !== 'packages') return undefined;
  return join(dirname(packagesDir), 'evals', id.namespace, `${id.name}.json`);
}

/**
 * The extra-cases file of `id`: `<root>/evals/<namespace>/<name>.json` when
 * `packagesDir` is a workspace's `.../packages` folder and something is at
 * that path. Whatever is there is returned, a folder or a FIFO too: the
 * planner reads it as it reads a package file and refuses what is not a
 * regular file, so an eval never runs without cases the user put there.
 */
export async function extraCasesFile(packagesDir: string, id: SkillId): Promise<string | undefined> {
  const file = extraCasesPath(packagesDir, id);
  return file !== undefined && (await exists(file)) ? file : undefined;
}

/**
 * The extra-cases file of `id` in the workspace `root` (see {@link extraCasesFile}),
 * for a host reading on someone else's behalf: refused (`forbidden`) when a
 * symbolic link leads it out of the workspace.
 */
export async function workspaceExtraCases(root: string, id: SkillId): Promise<string | undefined> {
  const file = await extraCasesFile(join(root, 'skills', 'packages'), id);
  if (file) await expectInside(root, file, `skills/evals/${id.namespace}/${id.name}.json`);
  return file;
}

function refuse(argument: string, message: string): WorkbenchError {
  return new WorkbenchError('invalid_request', `${argument}: ${message}`, { details: { argument } });
}

/** Options of {@link resolveTargets}. */
export interface ResolveTargetsOptions {
  /** Base of relative paths, and of the paths shown to the user. */
  cwd: string;
  /** The workspace folder whose `skills/evals` serves `<namespace>/<name>` targets (default: `cwd`). */
  workspace?: string;
}

/**
 * Resolves what the user named, relative to `cwd`: a package file, a folder of
 * packages, or `<namespace>/<name>`. Throws `invalid_request` (with the
 * argument in `details.argument`) for a name that is none of these, a folder
 * without packages, a file whose path gives no identity, or a skill named twice.
 */
export async function resolveTargets(args: readonly string[], options: ResolveTargetsOptions): Promise<ResolvedTargets> {
  const targets: Target[] = [];
  const skipped: SkippedEntry[] = [];
  const display = (abs: string) => relative(options.cwd, abs) || '.';
  for (const arg of args) {
    const abs = resolve(options.cwd, arg);
    let kind: 'file' | 'dir' | undefined;
    try {
      kind = (await stat(abs)).isDirectory() ? 'dir' : 'file';
    } catch {
      kind = undefined;
    }
    if (kind === 'dir') {
      const found = await discoverPackages(abs);
      for (const f of found) {
        if (!f.id) {
          skipped.push({ file: display(f.file), message: f.problem?.message ?? 'not a package' });
          continue;
        }
        // The folder of namespace folders, whichever level was named.
        const extras = await extraCasesFile(dirname(dirname(f.file)), f.id);
        targets.push({ kind: 'draft', id: f.id, file: display(f.file), abs: f.file, ...(extras && { extras }) });
      }
      if (!found.some((f) => f.id)) throw refuse(arg, 'holds no package (<namespace>/<name>.json or skills/packages/<namespace>/<name>.json)');
      continue;
    }
    if (kind === 'file') {
      const { id, problem } = identityFromPath(abs);
      if (problem) throw refuse(arg, problem);
      const extras = await extraCasesFile(dirname(dirname(abs)), id);
      targets.push({ kind: 'draft', id, file: display(abs), abs, ...(extras && { extras }) });
      continue;
    }
    const id = parseSkillId(arg);
    if (id) {
      const extras = await workspaceExtraCases(options.workspace ?? options.cwd, id);
      targets.push({ kind: 'stored', id, ...(extras && { extras }) });
      continue;
    }
    throw refuse(arg, 'no such file or folder, and not a <namespace>/<name> identity');
  }
  const seen = new Set<string>();
  for (const t of targets) {
    const key = skillKey(t.id);
    if (seen.has(key)) throw new WorkbenchError('invalid_request', `${key} is given twice`, { details: { skill: key } });
    seen.add(key);
  }
  return { targets, skipped };
}
