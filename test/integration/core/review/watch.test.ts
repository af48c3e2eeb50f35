/**
 * The requests watcher against the real file system: the first request of a
 * workspace creates `skills/reviews/` and is renamed into it a moment later, as
 * an atomic write does. chokidar reads a new folder before it watches it, so a
 * request that lands in between used to go unannounced (another workbench's
 * list never showed it). Over a range of gaps between the folder and the file,
 * every request must be announced.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchReviews } from '../../../../core/review/watch';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watching the requests folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-review-watch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('announces the first request of a workspace, whatever the gap between its folder and its file', async () => {
    for (let attempt = 0; attempt < 64; attempt++) {
      const gapMs = attempt % 32;
      const root = join(dir, `ws-${attempt}`);
      await mkdir(join(root, 'skills', 'packages'), { recursive: true });
      const seen = new Set<string>();
      let announced: () => void = () => undefined;
      const arrived = new Promise<void>((resolve) => (announced = resolve));
      const watcher = await watchReviews(root, (ids) => {
        for (const id of ids) seen.add(id);
        if (seen.has('first')) announced();
      }, { polling: false });
      try {
        const reviews = join(root, 'skills', 'reviews');
        await mkdir(reviews);
        await sleep(gapMs);
        // An atomic write: a hidden temporary file renamed into place.
        await writeFile(join(reviews, '.first.json.tmp'), '{}');
        await rename(join(reviews, '.first.json.tmp'), join(reviews, 'first.json'));
        // Only a request that is never announced ends this wait with the test's timeout.
        await arrived;
        expect([...seen]).toEqual(['first']);
      } finally {
        await watcher.close();
      }
    }
  });
});
