/**
 * Bench suite `workspace`: what an autosave costs.
 *
 * - `drafts.save` of a package-sized text through the API (direct transport:
 *   parameters parsed, the draft read, written atomically and flushed, the view
 *   built) against the durable atomic write of the same bytes alone.
 * - The durable atomic write (temp file, fsync, rename, fsync of the folder)
 *   against a plain overwrite without a flush: the price of crash safety.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkbenchClient } from '../../core/api/client';
import { directTransport } from '../../core/api/direct';
import { Router } from '../../core/api/router';
import { createWorkbenchService } from '../../core/api/service';
import { writeFileAtomic } from '../../core/fs/atomic';
import { compare, type BenchRow } from './harness';

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'skillbench-bench-ws-'));
  const service = createWorkbenchService({ host: 'direct', version: 'bench', env: { PATH: process.env['PATH'] }, dataDir: join(root, 'data') });
  const client = createWorkbenchClient(directTransport(new Router(service)));
  const rows: BenchRow[] = [];
  try {
    const ws = join(root, 'ws');
    const file = join(ws, 'skills', 'packages', 'travel', 'weather.json');
    const text = `${JSON.stringify({ description: 'x'.repeat(20_000), change_reason: 'bench' }, null, 2)}\n`;
    await writeFileAtomic(file, text, { mkdirs: true });
    await client['workspace.open']({ dir: ws });
    const draft = await client['drafts.openFile']({ path: 'skills/packages/travel/weather.json' });
    let n = 0;
    const edited = () => text.replace('"bench"', `"bench ${n++}"`);
    const plain = join(root, 'plain.json');
    const atomic = join(root, 'atomic.json');

    const save = await compare(
      () => client['drafts.save']({ id: draft.id, text: edited() }),
      () => writeFileAtomic(atomic, edited()),
      { rounds: 21, batch: 5, warmup: 3 },
    );
    rows.push({
      suite: 'workspace',
      name: `drafts.save of ${Math.round(text.length / 1024)} KB, direct transport`,
      medianMs: save.subjectMs,
      baselineName: 'durable atomic write of the same bytes',
      baselineMs: save.baselineMs,
      ratio: save.subjectMs / save.baselineMs,
      target: 'ratio <= 2',
      met: save.subjectMs / save.baselineMs <= 2,
    });

    const durable = await compare(
      () => writeFileAtomic(atomic, edited()),
      () => writeFile(plain, edited()),
      { rounds: 21, batch: 5, warmup: 3 },
    );
    rows.push({
      suite: 'workspace',
      name: 'durable atomic write (temp, fsync, rename, fsync dir)',
      medianMs: durable.subjectMs,
      baselineName: 'plain overwrite, no flush',
      baselineMs: durable.baselineMs,
      ratio: durable.subjectMs / durable.baselineMs,
      target: 'informational',
      note: 'the price of surviving a kill or a power cut',
    });
  } finally {
    client.close();
    await service.close();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
