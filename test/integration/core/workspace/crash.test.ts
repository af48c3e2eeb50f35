/**
 * Crash safety of workspace saves and autosaved drafts: a child process runs
 * the workbench service, saving a package file and autosaving its draft in a
 * loop through the API, and is killed with SIGKILL at a random point: 100
 * kills, in two chains of 50 that run at once, each killing over its own
 * folders again and again. After every kill the package file parses and is
 * exactly one of the versions written, never older than the last save the
 * child saw acknowledged, and the draft on disk is never older than the last
 * acknowledged autosave. A new service then offers the draft back.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DraftStore } from '../../../../core/workspace/drafts';
import { bundleChild, type ChildBundle } from '../../../helpers/childBundle';
import { openWorkbench } from '../../../helpers/workbench';
import { SAVE_PATH, draftText, fileText, numberOf } from './fixtures/saveTexts';

const KILLS = 100;

let dir: string;
let child: ChildBundle | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-crash-'));
  // One bundle instead of a TypeScript loader per child: 100 starts stay cheap on a loaded machine.
  child = await bundleChild(new URL('./fixtures/saveLoop.ts', import.meta.url));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await child?.remove();
});

/** Runs the loop once and SIGKILLs it after `lines` acknowledgements (plus `delayMs`); returns the acknowledgements seen. */
function runUntilKilled(dataDir: string, root: string, lines: number, delayMs: number): Promise<{ file: number; draft: number; killed: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child!.file, dataDir, root], { cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let ready = false;
    let seen = 0;
    let scheduled = false;
    const acks = { file: 0, draft: 0 };
    proc.stderr.on('data', (c) => (stderr += String(c)));
    proc.stdout.on('data', (chunk) => {
      out += String(chunk);
      const parts = out.split('\n');
      out = parts.pop() ?? '';
      for (const line of parts) {
        if (line === 'ready') ready = true;
        const m = /^(file|draft) (\d+)$/.exec(line);
        if (m) {
          acks[m[1] as 'file' | 'draft'] = Number(m[2]);
          seen++;
        }
      }
      if (ready && seen >= lines && !scheduled) {
        scheduled = true;
        setTimeout(() => proc.kill('SIGKILL'), delayMs);
      }
    });
    proc.on('error', reject);
    proc.on('close', (_code, signal) => resolve({ ...acks, killed: signal === 'SIGKILL', stderr }));
  });
}

/**
 * One chain of `kills` runs over its own workspace and app-data folders: after
 * every kill, what is on the disk is checked against what the child had
 * acknowledged; at the end a new workbench on the same folders offers the draft back.
 */
async function killChain(name: string, kills: number): Promise<void> {
  const root = join(dir, name, 'workspace');
  const dataDir = join(dir, name, 'app-data');
  await mkdir(join(root, 'skills', 'packages', 'travel'), { recursive: true });
  await writeFile(join(root, SAVE_PATH), fileText(0));
  let fileAck = 0;
  let draftAck = 0;
  const landed = { exact: 0, ahead: 0 };
  for (let run = 0; run < kills; run++) {
    // Random points: after 0 to 7 acknowledged saves, then 0 to 3 ms more (often inside a write).
    const result = await runUntilKilled(dataDir, root, Math.floor(Math.random() * 8), Math.floor(Math.random() * 4));
    expect(result.killed, result.stderr).toBe(true);
    fileAck = Math.max(fileAck, result.file);
    draftAck = Math.max(draftAck, result.draft);

    const text = await readFile(join(root, SAVE_PATH), 'utf8');
    const n = numberOf(text);
    expect(text).toBe(fileText(n));
    expect(n).toBeGreaterThanOrEqual(fileAck);
    expect(n).toBeLessThanOrEqual(fileAck + 1);
    if (n === fileAck) landed.exact++;
    else landed.ahead++;
    // A save in flight when the kill came may have landed without its acknowledgement: later runs count on from it.
    fileAck = n;

    const drafts = await new DraftStore(join(dataDir, 'drafts')).list();
    if (draftAck > 0) {
      expect(drafts).toHaveLength(1);
      const m = numberOf(drafts[0]!.text);
      expect(drafts[0]!.text).toBe(draftText(m));
      expect(m).toBeGreaterThanOrEqual(draftAck);
      expect(m).toBeLessThanOrEqual(Math.max(draftAck, fileAck) + 1);
      draftAck = m;
    }
  }
  expect(landed.exact + landed.ahead).toBe(kills);
  expect(fileAck).toBeGreaterThan(0);
  expect(draftAck).toBeGreaterThan(0);

  // A new workbench on the same folders offers the draft back, with the last text it acknowledged or a newer one.
  const wb = await openWorkbench('direct', { dataDir });
  try {
    const view = await wb.client['workspace.open']({ dir: root });
    expect(view.entries.map((e) => e.path)).toEqual([SAVE_PATH]);
    const offered = (await wb.client['drafts.list']()).drafts;
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({ origin: { kind: 'file', path: SAVE_PATH }, dirty: true, text: draftText(draftAck) });
    // What the killed writers left half-written is gone once the workspace and the drafts are opened again.
    expect((await readdir(join(root, 'skills', 'packages', 'travel'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect((await readdir(join(dataDir, 'drafts'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  } finally {
    await wb.close();
  }
}

describe('crash safety', () => {
  // Two chains of kills over two pairs of folders at once: while one child waits on the
  // disk (every save is flushed), the other starts or writes.
  it(`leaves no torn package file and loses no acknowledged draft over ${KILLS} kills mid-save`, async () => {
    await Promise.all([killChain('a', KILLS / 2), killChain('b', KILLS / 2)]);
  }, 900_000);
});
