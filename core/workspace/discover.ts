/**
 * Finds package files in a folder: `skills/packages/<namespace>/<name>.json`
 * when the folder is a workspace (ARCHITECTURE.md section 6), `<name>.json`
 * when the folder holds package files directly (it is then a namespace folder,
 * named after the namespace), otherwise `<namespace>/<name>.json` directly below it. Finder's `.DS_Store` and other
 * dotfiles are ignored; anything else out of place (a stray file, a folder
 * nested too deep, a name that is not a slug) comes back as an entry with a
 * problem, never skipped silently (guide section 3). Symbolic links are
 * followed only while they stay inside the folder searched: a link (to a file,
 * or to a folder) that leads out of it is a problem, never read.
 *
 * Node-only: uses node:fs.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { isSlug } from '../package/rules';
import { isInside } from './confine';
import type { SkillId } from '../package/types';

/** Why a discovered entry is not a package. */
export interface DiscoveryProblem {
  /** `unexpected_entry` (wrong place or kind), `invalid_slug` (name not a slug) or `unreadable` (I/O failure). */
  code: 'unexpected_entry' | 'invalid_slug' | 'unreadable';
  message: string;
}

/** One file or folder found under the root: a package (with `id`) or a problem. */
export interface DiscoveredFile {
  /** Absolute path. */
  file: string;
  /** Path relative to the root given to {@link discoverPackages}, with `/` separators. */
  path: string;
  /** Identity taken from the path; present exactly when this is a package. */
  id?: SkillId;
  /** Present exactly when this entry is not a package. */
  problem?: DiscoveryProblem;
}

/** Whether a workspace-relative folder exists. */
async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder that holds `<namespace>/` folders: `<root>/skills/packages` for a
 * workspace, `<root>/packages` when the root is a workspace's `skills/` folder,
 * otherwise the root itself.
 */
export async function packagesFolder(root: string): Promise<string> {
  const workspace = join(root, 'skills', 'packages');
  if (await isDirectory(workspace)) return workspace;
  if (basename(root) === 'skills' && (await isDirectory(join(root, 'packages')))) return join(root, 'packages');
  return root;
}

interface Entry {
  name: string;
  /** `outside`: a symbolic link that leads out of the folder searched. */
  kind: 'file' | 'directory' | 'other' | 'outside';
}

/** The entries of `dir`; a link is followed only when it lands inside `boundary` (a real path). */
async function list(dir: string, boundary: string): Promise<Entry[]> {
  const dirents = await readdir(dir, { withFileTypes: true });
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    // Finder and editors leave dotfiles (.DS_Store, .gitkeep); they are never packages.
    if (dirent.name.startsWith('.')) continue;
    let kind: Entry['kind'] = dirent.isFile() ? 'file' : dirent.isDirectory() ? 'directory' : 'other';
    if (dirent.isSymbolicLink()) {
      try {
        const real = await realpath(join(dir, dirent.name));
        const target = await stat(real);
        kind = !isInside(boundary, real) ? 'outside' : target.isFile() ? 'file' : target.isDirectory() ? 'directory' : 'other';
      } catch {
        kind = 'other';
      }
    }
    entries.push({ name: dirent.name, kind });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'is not a folder';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Walks `root` and returns every package file and every unexpected entry,
 * sorted by path. An unreadable or missing root yields one `unreadable` entry.
 */
export async function discoverPackages(root: string): Promise<DiscoveredFile[]> {
  const folder = await packagesFolder(root);
  const out: DiscoveredFile[] = [];
  const rel = (file: string): string => relative(root, file).split(sep).join('/') || '.';
  const problem = (file: string, code: DiscoveryProblem['code'], message: string): void => {
    out.push({ file, path: rel(file), problem: { code, message } });
  };
  const outside = 'a symbolic link that leads out of the folder: not followed';
  let namespaces: Entry[];
  let boundary: string;
  try {
    boundary = await realpath(root);
    // skills/packages itself may be a link: it too must stay inside.
    if (!isInside(boundary, await realpath(folder))) {
      problem(folder, 'unexpected_entry', `it is ${outside}`);
      return out;
    }
    namespaces = await list(folder, boundary);
  } catch (error) {
    problem(folder, 'unreadable', `cannot read the folder: ${describeError(error)}`);
    return out;
  }
  // A folder holding package files directly is itself a namespace folder (`.../<namespace>/`).
  const holdsPackages = folder === root && namespaces.some((e) => e.kind === 'file' && e.name.endsWith('.json'));
  if (holdsPackages) namespaces = [{ name: basename(root), kind: 'directory' }];
  for (const ns of namespaces) {
    const nsPath = holdsPackages ? root : join(folder, ns.name);
    if (ns.kind === 'outside') {
      problem(nsPath, 'unexpected_entry', `it is ${outside}`);
      continue;
    }
    if (ns.kind !== 'directory') {
      problem(nsPath, 'unexpected_entry', 'unexpected file: packages live in <namespace>/<name>.json, one folder per namespace');
      continue;
    }
    if (!isSlug(ns.name)) {
      problem(nsPath, 'invalid_slug', `namespace folder '${ns.name}' is not a slug: use lowercase letters, digits and internal hyphens`);
      continue;
    }
    let files: Entry[];
    try {
      files = await list(nsPath, boundary);
    } catch (error) {
      problem(nsPath, 'unreadable', `cannot read the folder: ${describeError(error)}`);
      continue;
    }
    for (const entry of files) {
      const file = join(nsPath, entry.name);
      if (entry.kind === 'outside') {
        problem(file, 'unexpected_entry', `it is ${outside}`);
        continue;
      }
      if (entry.kind === 'directory') {
        problem(file, 'unexpected_entry', 'unexpected folder: packages are <namespace>/<name>.json, with nothing nested deeper');
        continue;
      }
      if (entry.kind !== 'file' || !entry.name.endsWith('.json')) {
        problem(file, 'unexpected_entry', 'unexpected file: only <name>.json package files belong in a namespace folder');
        continue;
      }
      const name = entry.name.slice(0, -'.json'.length);
      if (!isSlug(name)) {
        problem(file, 'invalid_slug', `package name '${name}' is not a slug: use lowercase letters, digits and internal hyphens`);
        continue;
      }
      out.push({ file, path: rel(file), id: { namespace: ns.name, name } });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
