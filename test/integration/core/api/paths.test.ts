/**
 * A NUL or another control character in a path parameter is refused by the
 * contract, over every transport, before it reaches the file system: the
 * error points at the parameter and never quotes where this machine keeps the
 * workspace (Node's own refusal of a NUL would quote the absolute path).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { TRANSPORTS, openWorkbench, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const EXAMPLES = new URL('../../../../examples/skills/packages/', import.meta.url);
const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

describe.each(TRANSPORTS)('control characters in paths over %s', (transport) => {
  let wb: Workbench;
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbench-paths-'));
    await cp(EXAMPLES, join(root, 'skills', 'packages'), { recursive: true });
    wb = await openWorkbench(transport);
    await wb.client['workspace.open']({ dir: root });
  });
  afterAll(async () => {
    await wb?.close();
    await rm(root, { recursive: true, force: true });
  });

  it.each(['\u0000', '\u0001', '\n', '\u001f', '\u007f'])('refuses %j in a workspace path or a folder, naming the parameter and no absolute path', async (char) => {
    const path = `skills/packages/travel/weather${char}-assessment.json`;
    // Each call starts only when awaited, so no rejection waits unhandled for its turn.
    const calls = [
      () => wb.client.call('workspace.read', { path }),
      () => wb.client.call('drafts.openFile', { path }),
      () => wb.client.call('workspace.save', { path, text: '{}', base_hash: null }),
      () => wb.client.call('reviews.create', { source: { kind: 'file', path }, connection: 'default' }),
      () => wb.client.call('workspace.open', { dir: `${root}${char}` }),
      () => wb.client.call('interop.import', { paths: [`skills/import${char}ed`], namespace: 'imported', dry_run: true }),
      () => wb.client.call('interop.export', { source: { kind: 'file', path: 'skills/packages/travel/weather-assessment.json' }, to: `export${char}ed`, dry_run: true }),
    ];
    for (const call of calls) {
      const error = await failure(call());
      expect(error.data.code).toBe('invalid_request');
      expect(error.data.message).toMatch(/must not contain a NUL or another control character/);
      expect(JSON.stringify(error.data)).not.toContain(root);
    }
    // The workspace is still the one opened before.
    expect((await wb.client['workspace.list']())?.root).toBe(root);
  });

  it('refuses a name longer than the file system takes naming the workspace path, not where the workspace is', async () => {
    const path = `skills/packages/travel/${'w'.repeat(300)}.json`;
    for (const call of [() => wb.client.call('workspace.read', { path }), () => wb.client.call('drafts.openFile', { path })]) {
      const error = await failure(call());
      expect(error.data.code).toBe('invalid_request');
      expect(error.data.message).toBe(`${path}: cannot read it: a name in the path is longer than the file system allows`);
      expect(JSON.stringify(error.data)).not.toContain(root);
    }
  });

  it.each(['\u0000', '\n', '\u007f'])('refuses %j in a saved connection\'s folder, naming the field and no absolute path', async (char) => {
    const dir = join(root, `registry${char}copy`);
    const profile = { name: 'odd-folder', target: { kind: 'local' as const, dir } };
    const calls = [
      () => wb.client.call('connections.save', { profile }),
      () => wb.client.call('connections.import', { document: { format: 'skillbench.connections/v1', profiles: [profile] }, on_conflict: 'skip' }),
    ];
    for (const call of calls) {
      const error = await failure(call());
      expect(error.data.code).toBe('invalid_request');
      expect(error.data.message).toMatch(/target\/dir: the registry folder must not contain a NUL or another control character/);
      expect(JSON.stringify(error.data)).not.toContain(root);
    }
    expect((await wb.client['connections.list']({})).connections.map((c) => c.profile.name)).not.toContain('odd-folder');
  });
});
