/**
 * Checks of the paths a command writes to (`--json F`, `--junit F`, `--out DIR`, ...),
 * made before any work starts: the parent folder must already exist (nothing
 * creates arbitrary parents), and pseudo-filesystems such as /proc and /sys are
 * refused, where a recursive mkdir can loop for ever.
 */
import { realpath, stat, statfs } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { UsageError } from './exit';

/** statfs magic numbers of Linux filesystems that hold no user files. */
const PSEUDO_FS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x42494e4d, 'binfmt_misc'],
]);

/** Top folders of pseudo-filesystems, refused by name too (statfs is Linux-only and may be unavailable). */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];

/** Folders under those that hold files of their own: `/dev/shm` is a tmpfs meant for them (statfs still checks it). */
const FILE_FOLDERS_UNDER_PSEUDO_ROOTS = ['/dev/shm'];

async function pseudoFilesystem(existing: string): Promise<string | undefined> {
  let real = existing;
  try {
    real = await realpath(existing);
  } catch {
    // Keep the path as given.
  }
  const inside = (root: string) => real === root || real.startsWith(`${root}${sep}`);
  if (!FILE_FOLDERS_UNDER_PSEUDO_ROOTS.some(inside)) for (const root of PSEUDO_ROOTS) if (inside(root)) return root;
  if (process.platform !== 'linux') return undefined;
  try {
    const { type } = await statfs(real);
    const name = PSEUDO_FS.get(type);
    return name === undefined ? undefined : `a ${name} filesystem`;
  } catch {
    return undefined;
  }
}

/**
 * Checks that the file `value` of `flag` can be written: its folder exists, is a
 * folder, and is not on a pseudo-filesystem. Returns the absolute path.
 */
export async function checkOutputFile(flag: string, value: string, cwd: string): Promise<string> {
  const path = resolve(cwd, value);
  const dir = dirname(path);
  let info;
  try {
    info = await stat(dir);
  } catch {
    throw new UsageError(`${flag} ${value}: the folder ${dir} does not exist; create it first`);
  }
  if (!info.isDirectory()) throw new UsageError(`${flag} ${value}: ${dir} is not a folder`);
  const pseudo = await pseudoFilesystem(dir);
  if (pseudo !== undefined) throw new UsageError(`${flag} ${value}: ${dir} is on ${pseudo.startsWith('a ') ? pseudo : `the pseudo-filesystem ${pseudo}`}, which holds no files; choose another path`);
  return path;
}

/**
 * Checks that the folder `value` of `flag` can be used or created: it is an
 * existing folder, or its parent exists (only the last level is created), and it
 * is not on a pseudo-filesystem. Returns the absolute path.
 */
export async function checkOutputDir(flag: string, value: string, cwd: string): Promise<string> {
  const path = resolve(cwd, value);
  let existing = path;
  try {
    const info = await stat(path);
    if (!info.isDirectory()) throw new UsageError(`${flag} ${value}: ${path} exists and is not a folder`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    existing = dirname(path);
    let parent;
    try {
      parent = await stat(existing);
    } catch {
      throw new UsageError(`${flag} ${value}: the folder ${existing} does not exist; create it first`);
    }
    if (!parent.isDirectory()) throw new UsageError(`${flag} ${value}: ${existing} is not a folder`);
  }
  const pseudo = await pseudoFilesystem(existing);
  if (pseudo !== undefined) throw new UsageError(`${flag} ${value}: ${existing} is on ${pseudo.startsWith('a ') ? pseudo : `the pseudo-filesystem ${pseudo}`}, which holds no files; choose another path`);
  return path;
}
