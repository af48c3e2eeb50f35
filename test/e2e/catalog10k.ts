/**
 * The 10,000-skill registry of journey 4 (catalogScale.test.ts), published
 * through the store API. Publishing it costs a worker tens of seconds of CPU
 * and file-system time, so `npm test` publishes it ahead, beside the node tests
 * (which leave a core idle while they wait on processes and sockets), into the
 * folder `SKILLBENCH_E2E_CATALOG` names (prepareCatalog.ts); the test then moves
 * that registry into its app instead of publishing it again. Run on its own, the
 * test publishes it itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SkillStore } from '../../core/store/types';
import { seedMany, seedRefund } from './fixtures';

/** Skills in the catalog: `billing/refund` and 9,999 `ns-<i % 100>/skill-<i>`. */
export const CATALOG_SKILLS = 10_000;

/** Publishes the catalog into `store`. */
export async function seedCatalog(store: SkillStore): Promise<void> {
  await seedMany(store, CATALOG_SKILLS - 1);
  await seedRefund(store, 1);
}

/** The registry folder and the marker of a prepared catalog under `folder`. */
export function preparedPaths(folder: string): { registry: string; done: string } {
  return { registry: join(folder, 'registry'), done: join(folder, 'done') };
}

/** What the preparation writes to the marker once every skill is published and the store is closed. */
export const PREPARED_MARKER = `published ${CATALOG_SKILLS}\n`;

/**
 * The registry `npm test` prepared (`SKILLBENCH_E2E_CATALOG`), when its
 * preparation finished; undefined otherwise (the test then publishes its own).
 */
export function preparedCatalog(): string | undefined {
  const folder = process.env['SKILLBENCH_E2E_CATALOG'];
  if (!folder) return undefined;
  const { registry, done } = preparedPaths(folder);
  try {
    return readFileSync(done, 'utf8') === PREPARED_MARKER && existsSync(registry) ? registry : undefined;
  } catch {
    return undefined;
  }
}
