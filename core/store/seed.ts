/**
 * Seeding of a fresh default registry with the example workspace, so a first run
 * has skills to list, select and evaluate. Identity comes from the path
 * `…/<namespace>/<name>.json`, as the guide's example setup script derives it.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConnection, openStore, type OpenStoreOptions } from './connect';
import { isStoreError } from './errors';
import { isSlug } from './publication';
import type { SkillStore } from './types';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from '../workspace/read';

/** The example workspace a fresh default registry is seeded from (`examples/skills/packages/`). */
export function examplesPackagesDir(): string {
  return fileURLToPath(new URL('../../examples/skills/packages/', import.meta.url));
}

/** Outcome of {@link seedExamples}: what was published and what was skipped, with why. */
export interface SeedReport {
  published: { namespace: string; name: string; version: number; file: string }[];
  skipped: { file: string; code: string; message: string }[];
}

async function walk(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
  }
  return files;
}

/**
 * Publishes every `<namespace>/<name>.json` below `dir` with the create precondition
 * and a deterministic Idempotency-Key. Never throws for one bad file: invalid or
 * already existing packages are reported in `skipped`. A missing `dir` seeds nothing.
 */
export async function seedExamples(store: SkillStore, dir: string): Promise<SeedReport> {
  const report: SeedReport = { published: [], skipped: [] };
  for (const file of await walk(dir)) {
    const rel = relative(dir, file);
    const id = { namespace: basename(dirname(file)), name: basename(file, '.json') };
    if (!isSlug(id.namespace) || !isSlug(id.name)) {
      report.skipped.push({ file: rel, code: 'invalid_request', message: 'path is not <namespace>/<name>.json with slug names' });
      continue;
    }
    try {
      const body = await readFileBounded(file, PACKAGE_FILE_MAX_BYTES, rel);
      const result = await store.publish({
        id,
        body,
        precondition: { kind: 'create' },
        idempotencyKey: `skillbench-seed:${id.namespace}/${id.name}`,
        actor: 'skillbench-seed',
      });
      report.published.push({ ...id, version: result.version, file: rel });
    } catch (error) {
      if (!isStoreError(error)) {
        report.skipped.push({ file: rel, code: 'unreadable', message: error instanceof Error ? error.message : String(error) });
        continue;
      }
      report.skipped.push({ file: rel, code: error.code, message: error.message });
    }
  }
  return report;
}

/** Options of {@link openSeededStore}. */
export interface OpenSeededOptions extends OpenStoreOptions {
  /** Environment the default connection is read from (`SKILLBENCH_HOME`, XDG). */
  env?: Record<string, string | undefined>;
  /** Folder of `<namespace>/<name>.json` examples (default {@link examplesPackagesDir}). */
  examples?: string;
}

/**
 * Opens `connection`, or the default embedded registry when it is undefined.
 * The default registry is created when absent and seeded with the examples the
 * first time it is found empty (`seed` reports what was published); a named
 * connection is never seeded, and a named `local:` registry that does not exist
 * is `not_found` unless `options.create` is true (an explicit write).
 */
export async function openSeededStore(
  connection: string | undefined,
  options: OpenSeededOptions = {},
): Promise<{ store: SkillStore; seed?: SeedReport }> {
  const { env, examples, create, ...open } = options;
  const store = await openStore(connection ?? defaultConnection(env), { ...open, ...(env && { env }), create: connection === undefined || create === true });
  if (connection !== undefined) return { store };
  try {
    if ((await store.listMetadata({ limit: 1 })).length > 0) return { store };
    return { store, seed: await seedExamples(store, examples ?? examplesPackagesDir()) };
  } catch (error) {
    await store.close();
    throw error;
  }
}
