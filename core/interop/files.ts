/**
 * The disk side of Agent Skills import and export: reading a skill folder
 * with bounds (file sizes, entries, depth, total bytes), never reading a path
 * outside the folder (a symbolic link leading out is listed, not followed),
 * writing packages into a workspace and exported folders atomically, and
 * never replacing a different file unless asked.
 *
 * Node-only: uses node:fs.
 */
import { constants as fsConstants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { WorkbenchError } from '../errors';
import { writeFileAtomic } from '../fs/atomic';
import { isSlug } from '../package/rules';
import { DEFAULT_AUTHORING_LIMITS, checkLimits } from '../package/limits';
import type { SkillAuthoringLimits, SkillPackage } from '../package/types';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from '../workspace/read';
import { exportSkill } from './exportSkill';
import { convertSkillFolder, isMarkdownPath, referenceOrder } from './importSkill';
import { EXPORT_REPORT_FORMAT, IMPORT_REPORT_FORMAT, type Conversion, type FolderFile, type ImportedSkill, type ImportFailure, type SkillExportReport, type SkillFolder, type SkillImportReport } from './types';

/** Bounds of a folder walk. */
export interface FolderBounds {
  /** Largest file read (default: the V1 package limit, 1 MiB: a larger file cannot fit a package). */
  maxFileBytes?: number;
  /** Entries examined at most (default 5,000). */
  maxEntries?: number;
  /** Folder depth below the skill folder (default 16). */
  maxDepth?: number;
  /** Markdown bytes read at most in all (default: twice the package limit; what is past it could not fit). */
  maxTotalBytes?: number;
}

const SCRIPT_EXTENSIONS = new Set(['.py', '.js', '.mjs', '.cjs', '.ts', '.tsx', '.jsx', '.sh', '.bash', '.zsh', '.fish', '.ps1', '.bat', '.cmd', '.rb', '.pl', '.php', '.go', '.rs', '.java', '.kt', '.swift', '.c', '.cc', '.cpp', '.h', '.hpp', '.cs', '.lua', '.r', '.scala', '.exe', '.dll', '.so', '.dylib', '.wasm', '.jar', '.pyc']);
const BINARY_EXTENSIONS = new Set(['.ttf', '.otf', '.woff', '.woff2', '.eot', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.ico', '.tif', '.tiff', '.psd', '.pdf', '.zip', '.gz', '.tgz', '.bz2', '.xz', '.7z', '.rar', '.tar', '.docx', '.xlsx', '.pptx', '.odt', '.mp3', '.mp4', '.wav', '.ogg', '.mov', '.avi', '.webm', '.bin', '.dat', '.db', '.sqlite', '.parquet', '.npy', '.pkl']);
/** Bytes sniffed to tell text from binary for an unknown extension. */
const SNIFF_BYTES = 512;

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether bytes look like text: no NUL, valid UTF-8 (a multi-byte sequence cut at the end is forgiven). */
function looksLikeText(bytes: Uint8Array, complete: boolean): boolean {
  if (bytes.includes(0)) return false;
  let end = bytes.length;
  if (!complete) {
    // Back off over a sequence the sniff window cut in two.
    let back = 0;
    while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
    if (end - back - 1 >= 0 && bytes[end - back - 1]! >= 0xc0) end = end - back - 1;
  }
  try {
    fatalUtf8.decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/** The first `n` bytes of a regular file (no link followed at its name, no waiting on a FIFO). */
async function readHead(path: string, n: number): Promise<Uint8Array> {
  const handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file');
    const buffer = new Uint8Array(n);
    const { bytesRead } = await handle.read(buffer, 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The SKILL.md of a path: the file itself, or the one in the folder. */
async function locate(path: string): Promise<{ root: string; skillMd: string }> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkbenchError('not_found', `${path}: no such file or folder`, { cause: error });
    throw new WorkbenchError('invalid_request', `${path}: cannot read it (${code ?? (error as Error).message})`, { cause: error });
  }
  if (info.isFile()) {
    if (basename(path).toLowerCase() !== 'skill.md') throw new WorkbenchError('invalid_request', `${path} is not a SKILL.md: name a SKILL.md file or the folder holding one`);
    return { root: dirname(path), skillMd: basename(path) };
  }
  if (!info.isDirectory()) throw new WorkbenchError('invalid_request', `${path} is neither a file nor a folder`);
  const names = await readdir(path);
  const found = names.find((n) => n === 'SKILL.md') ?? names.find((n) => n.toLowerCase() === 'skill.md');
  if (!found) throw new WorkbenchError('not_found', `${path} holds no SKILL.md: an Agent Skills folder has one at its top`);
  return { root: path, skillMd: found };
}

/**
 * Reads a skill folder (or the folder of a SKILL.md path): SKILL.md, every
 * markdown file (the ones SKILL.md mentions first, within the byte budget),
 * and the kind and size of every other file. A symbolic link is followed only
 * when it leads to a place inside the folder; every file is opened without
 * following a link at its own name. Throws `not_found` when there is no
 * SKILL.md, `payload_too_large` when SKILL.md is over the file limit.
 */
export async function readSkillFolder(path: string, bounds: FolderBounds = {}): Promise<SkillFolder> {
  const maxFileBytes = bounds.maxFileBytes ?? PACKAGE_FILE_MAX_BYTES;
  const maxEntries = bounds.maxEntries ?? 5000;
  const maxDepth = bounds.maxDepth ?? 16;
  const maxTotalBytes = bounds.maxTotalBytes ?? 2 * DEFAULT_AUTHORING_LIMITS.maxPackageBytes;
  const { root, skillMd } = await locate(path);
  const rootReal = await realpath(root);
  const skillText = new TextDecoder().decode(await readFileBounded(join(rootReal, skillMd), maxFileBytes, `${path === root ? join(path, skillMd) : path}`));

  const files: FolderFile[] = [];
  const skipped: Conversion[] = [];
  const markdown: { file: FolderFile; real: string; size: number }[] = [];
  const visited = new Set<string>([rootReal]);
  let entries = 0;
  let truncated = false;
  const tooDeep: string[] = [];
  const vcs: string[] = [];

  const classify = async (rel: string, real: string, size: number): Promise<void> => {
    if (isMarkdownPath(rel)) {
      const file: FolderFile = { path: rel, kind: 'markdown', bytes: size };
      if (size > maxFileBytes) {
        files.push({ path: rel, kind: 'too_large', bytes: size, note: `larger than ${maxFileBytes} bytes` });
        return;
      }
      files.push(file);
      markdown.push({ file, real, size });
      return;
    }
    const ext = extensionOf(rel);
    if (SCRIPT_EXTENSIONS.has(ext)) return void files.push({ path: rel, kind: 'script', bytes: size });
    if (BINARY_EXTENSIONS.has(ext)) return void files.push({ path: rel, kind: 'binary', bytes: size });
    try {
      const head = await readHead(real, SNIFF_BYTES);
      const text = looksLikeText(head, size <= SNIFF_BYTES);
      const shebang = head[0] === 0x23 && head[1] === 0x21;
      files.push({ path: rel, kind: !text ? 'binary' : shebang ? 'script' : 'text', bytes: size });
    } catch (error) {
      files.push({ path: rel, kind: 'unreadable', bytes: size, note: (error as Error).message });
    }
  };

  const walk = async (dirReal: string, prefix: string, depth: number): Promise<void> => {
    let dirents;
    try {
      dirents = await readdir(dirReal, { withFileTypes: true });
    } catch (error) {
      files.push({ path: prefix || '.', kind: 'unreadable', bytes: 0, note: (error as Error).message });
      return;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      if (prefix === '' && d.name === skillMd) continue;
      if (entries >= maxEntries) {
        truncated = true;
        return;
      }
      entries++;
      const rel = prefix ? `${prefix}/${d.name}` : d.name;
      const full = join(dirReal, d.name);
      if (d.name === '.git' || d.name === '.hg' || d.name === '.svn') {
        vcs.push(rel);
        continue;
      }
      if (d.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(full);
        } catch {
          files.push({ path: rel, kind: 'unreadable', bytes: 0, note: 'a symbolic link to nothing' });
          continue;
        }
        if (!isInside(rootReal, target)) {
          files.push({ path: rel, kind: 'outside', bytes: 0, note: 'a symbolic link leading outside the skill folder' });
          continue;
        }
        const info = await stat(target).catch(() => undefined);
        if (info?.isDirectory()) {
          if (visited.has(target)) continue;
          if (depth + 1 > maxDepth) tooDeep.push(rel);
          else {
            visited.add(target);
            await walk(target, rel, depth + 1);
          }
        } else if (info?.isFile()) await classify(rel, target, info.size);
        else files.push({ path: rel, kind: 'unreadable', bytes: 0, note: 'not a regular file' });
        continue;
      }
      if (d.isDirectory()) {
        if (depth + 1 > maxDepth) {
          tooDeep.push(rel);
          continue;
        }
        const real = await realpath(full).catch(() => full);
        if (visited.has(real)) continue;
        visited.add(real);
        await walk(real, rel, depth + 1);
        continue;
      }
      if (d.isFile()) {
        const info = await lstat(full).catch(() => undefined);
        if (!info?.isFile()) files.push({ path: rel, kind: 'unreadable', bytes: 0, note: 'it changed while it was read' });
        else await classify(rel, full, info.size);
        continue;
      }
      files.push({ path: rel, kind: 'unreadable', bytes: 0, note: 'not a regular file (a FIFO, socket or device)' });
    }
  };
  await walk(rootReal, '', 0);

  // Markdown: the files SKILL.md mentions first, while the byte budget lasts.
  const order = referenceOrder(skillText, markdown.map((m) => m.file.path));
  const byPath = new Map(markdown.map((m) => [m.file.path, m]));
  let total = 0;
  for (const p of order) {
    const m = byPath.get(p)!;
    if (total + m.size > maxTotalBytes) continue;
    try {
      const bytes = await readFileBounded(m.real, maxFileBytes, p, { noFollow: true });
      total += bytes.length;
      if (!looksLikeText(bytes, true)) {
        m.file.kind = 'binary';
        continue;
      }
      m.file.text = new TextDecoder().decode(bytes);
      m.file.bytes = bytes.length;
    } catch (error) {
      m.file.kind = error instanceof WorkbenchError && error.code === 'payload_too_large' ? 'too_large' : 'unreadable';
      m.file.note = (error as Error).message;
    }
  }

  if (truncated) skipped.push({ field: 'files', change: 'left_out', reason: `the folder has more than ${maxEntries.toLocaleString('en-US')} entries: the rest were not examined` });
  if (tooDeep.length > 0) skipped.push({ field: 'files', change: 'left_out', reason: `folders more than ${maxDepth} levels deep: not examined`, paths: tooDeep });
  if (vcs.length > 0) skipped.push({ field: 'files', change: 'left_out', reason: 'version control data: not part of the skill', paths: vcs });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { label: path, folderName: basename(rootReal), skillMd: skillText, files, skipped };
}

/** Most skill folders one folder of skill folders is expanded to. */
export const MAX_SKILL_FOLDERS = 200;

/**
 * The skill folders a path names: itself when it is a SKILL.md or holds one,
 * otherwise its subfolders that hold one (a folder of skills, as a repository
 * of skills is laid out), in name order, at most {@link MAX_SKILL_FOLDERS}. A
 * path that is neither is returned as is, so the import reports it.
 */
export async function expandSkillPaths(paths: readonly string[], cwd: string = process.cwd()): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    const info = await stat(full).catch(() => undefined);
    if (!info?.isDirectory()) {
      out.push(path);
      continue;
    }
    const names = await readdir(full).catch(() => [] as string[]);
    if (names.some((n) => n.toLowerCase() === 'skill.md')) {
      out.push(path);
      continue;
    }
    const found: string[] = [];
    for (const name of names.sort()) {
      if (found.length >= MAX_SKILL_FOLDERS) break;
      const sub = await readdir(join(full, name)).catch(() => [] as string[]);
      if (sub.some((n) => n.toLowerCase() === 'skill.md')) found.push(join(path, name));
    }
    out.push(...(found.length > 0 ? found : [path]));
  }
  return out;
}

/** Options of {@link importSkills}. */
export interface ImportOptions {
  namespace: string;
  /** The workspace folder (it must exist): packages go to `skills/packages/<namespace>/<name>.json` in it. */
  workspace: string;
  /** Replace a different existing package file (default: refuse, and write nothing). */
  overwrite?: boolean;
  /** Convert and report only; write nothing. */
  dryRun?: boolean;
  limits?: Partial<SkillAuthoringLimits>;
  bounds?: FolderBounds;
  /** What relative paths are resolved against (default: the process's working directory); reports name the paths as given. */
  cwd?: string;
}

/** The workspace-relative file of a package. */
export function packagePath(namespace: string, name: string): string {
  return `skills/packages/${namespace}/${name}.json`;
}

/**
 * The folder of `rel` inside `root`, checked: every part that exists must be
 * a real folder inside `root` (a symbolic link leading out refuses the write).
 */
async function insideWorkspace(root: string, rel: string): Promise<string> {
  const rootReal = await realpath(root);
  let current = rootReal;
  for (const part of rel.split('/').slice(0, -1)) {
    const next = join(current, part);
    const info = await lstat(next).catch(() => undefined);
    if (!info) return join(rootReal, ...rel.split('/'));
    if (info.isSymbolicLink()) {
      const target = await realpath(next);
      if (!isInside(rootReal, target)) throw new WorkbenchError('forbidden', `${relative(rootReal, next)} is a symbolic link leading outside the workspace: nothing is written through it`);
      current = target;
    } else if (!info.isDirectory()) {
      throw new WorkbenchError('invalid_request', `${relative(rootReal, next)} is a file, not a folder: cannot write ${rel}`);
    } else current = next;
  }
  return join(current, rel.slice(rel.lastIndexOf('/') + 1));
}

/**
 * Imports skill folders into a workspace as V1 packages: reads and converts
 * each (a folder that cannot be read or converted is reported in `failed`),
 * then writes them atomically. Nothing is written when a package file exists
 * with different content and `overwrite` is not set (its status is `exists`),
 * when two folders give the same name, or with `dryRun`.
 */
export async function importSkills(paths: readonly string[], options: ImportOptions): Promise<SkillImportReport> {
  if (!isSlug(options.namespace) || options.namespace.length > 64) {
    throw new WorkbenchError('invalid_request', `namespace '${options.namespace}' is not a slug (lowercase letters, digits and inner hyphens, at most 64 characters)`);
  }
  const checked = checkLimits(options.limits);
  if (!checked.ok) throw new WorkbenchError('invalid_request', checked.problems.map((p) => p.message).join('; '));
  const wsInfo = await stat(options.workspace).catch(() => undefined);
  if (!wsInfo?.isDirectory()) throw new WorkbenchError('not_found', `workspace ${options.workspace}: no such folder`);

  const imported: ImportedSkill[] = [];
  const failed: ImportFailure[] = [];
  const texts: string[] = [];
  const targets: string[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    let folder: SkillFolder;
    try {
      folder = { ...(await readSkillFolder(resolve(options.cwd ?? process.cwd(), path), options.bounds)), label: path };
    } catch (error) {
      if (!(error instanceof WorkbenchError)) throw error;
      failed.push({ source: path, code: error.code, message: error.message });
      continue;
    }
    const converted = convertSkillFolder(folder, { namespace: options.namespace, ...(options.limits && { limits: options.limits }) });
    if (!converted.ok) {
      failed.push(converted.failure);
      continue;
    }
    const { skill } = converted;
    const other = seen.get(skill.name);
    if (other !== undefined) {
      failed.push({ source: path, code: 'conflict', message: `the skill name '${skill.name}' is also the name of ${other}: import them into different namespaces` });
      continue;
    }
    seen.set(skill.name, path);
    const file = packagePath(options.namespace, skill.name);
    const target = await insideWorkspace(options.workspace, file);
    const existing = await readFileBounded(target, 16 * 1024 * 1024, file).then(
      (b) => new TextDecoder().decode(b),
      (error) => {
        if (error instanceof WorkbenchError && error.code === 'not_found') return undefined;
        throw error;
      },
    );
    const status: ImportedSkill['status'] = existing === undefined ? 'new' : existing === skill.text ? 'unchanged' : options.overwrite ? 'replaced' : 'exists';
    imported.push({
      skill: `${options.namespace}/${skill.name}`,
      file,
      source: path,
      conversions: skill.conversions,
      valid: skill.validation.valid,
      errors: skill.validation.errors,
      warnings: skill.validation.warnings,
      resources: skill.package.resources.length,
      bytes: new TextEncoder().encode(skill.text).length,
      status,
      written: false,
    });
    texts.push(skill.text);
    targets.push(target);
  }
  const blocked = imported.some((s) => s.status === 'exists') || failed.some((f) => f.code === 'conflict');
  const dryRun = options.dryRun === true || blocked;
  if (!dryRun) {
    for (let i = 0; i < imported.length; i++) {
      const entry = imported[i]!;
      if (entry.status !== 'unchanged') await writeFileAtomic(targets[i]!, texts[i]!, { mkdirs: true });
      entry.written = true;
    }
  }
  return { format: IMPORT_REPORT_FORMAT, namespace: options.namespace, dry_run: dryRun, imported, failed };
}

/** Options of {@link writeSkillExport}. */
export interface ExportOptions {
  /** Replace an existing SKILL.md and reference files of the same names (default: refuse when the folder holds a SKILL.md). */
  overwrite?: boolean;
  dryRun?: boolean;
  limits?: Partial<SkillAuthoringLimits>;
}

/** Files under `dir` (relative, `/` separators), bounded, without following links. */
async function listFiles(dir: string, prefix = '', out: string[] = [], budget = { left: 2000 }): Promise<string[]> {
  const dirents = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const d of dirents) {
    if (budget.left-- <= 0) break;
    const rel = prefix ? `${prefix}/${d.name}` : d.name;
    if (d.isDirectory()) await listFiles(join(dir, d.name), rel, out, budget);
    else out.push(rel);
  }
  return out;
}

/**
 * Writes the Agent Skills folder of `pkg` as `to/<name>/` (SKILL.md and
 * references/), each file atomically. `to` is created when missing. Refuses
 * (`conflict`) when the folder already holds a SKILL.md and `overwrite` is not
 * set, and (`forbidden`) when the folder or its `references/` is a symbolic
 * link. Files already there that the export does not write are left in place
 * and listed in `kept`.
 */
export async function writeSkillExport(pkg: SkillPackage, skill: { namespace: string; name: string }, to: string, options: ExportOptions = {}): Promise<SkillExportReport> {
  const checked = checkLimits(options.limits);
  const limits = checked.ok ? checked.limits : DEFAULT_AUTHORING_LIMITS;
  const { files, conversions } = exportSkill(pkg, skill.name, limits);
  const dir = resolve(to, skill.name);
  for (const folder of [dir, join(dir, 'references')]) {
    const info = await lstat(folder).catch(() => undefined);
    if (info?.isSymbolicLink()) throw new WorkbenchError('forbidden', `${folder} is a symbolic link: an export never writes through one`);
    if (info && !info.isDirectory()) throw new WorkbenchError('invalid_request', `${folder} is a file, not a folder`);
  }
  const present = await listFiles(dir);
  if (present.includes('SKILL.md') && !options.overwrite) {
    throw new WorkbenchError('conflict', `${join(dir, 'SKILL.md')} already exists: choose another folder, or overwrite it`, { details: { reason: 'exists', dir } });
  }
  const written = new Set(files.map((f) => f.path));
  const kept = present.filter((p) => !written.has(p)).sort();
  const encoder = new TextEncoder();
  if (!options.dryRun) {
    for (const file of files) await writeFileAtomic(join(dir, ...file.path.split('/')), file.text, { mkdirs: true });
  }
  return {
    format: EXPORT_REPORT_FORMAT,
    skill: `${skill.namespace}/${skill.name}`,
    dir,
    files: files.map((f) => ({ path: f.path, bytes: encoder.encode(f.text).length })),
    conversions,
    kept,
    dry_run: options.dryRun === true,
  };
}
