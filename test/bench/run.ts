/**
 * `npm run bench`: runs every bench suite and prints one table. A suite is a
 * module in this folder exporting `bench(): Promise<BenchRow[]>`; pass suite
 * names as arguments to run only those.
 */
import { formatTable, type BenchRow } from './harness';

const SUITES: Record<string, () => Promise<{ bench: () => Promise<BenchRow[]> }>> = {
  cli: () => import('./cli'),
  package: () => import('./package'),
  'store-local': () => import('./store'),
  'store-redis': () => import('./redis'),
  selector: () => import('./selector'),
  evals: () => import('./evals'),
  optimize: () => import('./optimize'),
  api: () => import('./api'),
  'serve-memory': () => import('./serve'),
  editor: () => import('./editor'),
  workspace: () => import('./workspace'),
  interop: () => import('./interop'),
  'ui-catalog': () => import('./ui'),
  'workbench-evals': () => import('./workbench'),
  'workbench-live': () => import('./live'),
};

const only = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const [name, load] of Object.entries(SUITES)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name} ...\n`);
  const { bench } = await load();
  rows.push(...(await bench()));
}
process.stdout.write(`${formatTable(rows)}\n`);
// The UI suites share one Chromium; closing it lets the process end.
await (await import('../e2e/harness')).closeSharedBrowser();
