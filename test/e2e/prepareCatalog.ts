/**
 * Publishes journey 4's 10,000-skill catalog into `<folder>/registry` through
 * the store API, then writes `<folder>/done`; `npm test` runs it beside the node
 * tests and hands the folder to the e2e phase (see catalog10k.ts).
 *
 *   node --import tsx test/e2e/prepareCatalog.ts <folder>
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { openLocalStore } from '../../core/store/local';
import { PREPARED_MARKER, preparedPaths, seedCatalog } from './catalog10k';

const folder = process.argv[2];
if (!folder) {
  process.stderr.write('usage: prepareCatalog <folder>\n');
  process.exit(2);
}
const { registry, done } = preparedPaths(folder);
await mkdir(folder, { recursive: true });
const store = await openLocalStore(registry, { durable: false });
try {
  await seedCatalog(store);
} finally {
  await store.close();
}
await writeFile(done, PREPARED_MARKER);
