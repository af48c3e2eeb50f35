/**
 * `connections.save` and `connections.test` check the profile with the
 * connection domain's own schema at the API boundary: a malformed profile is
 * refused as invalid parameters, located at its field, before any handler runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { TRANSPORTS, openWorkbench, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

describe.each(TRANSPORTS)('a connection profile at the API boundary over %s', (transport) => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await openWorkbench(transport);
  });
  afterAll(async () => {
    await wb?.close();
  });

  const badPort = { name: 'cache', target: { kind: 'redis', hosts: [{ host: '127.0.0.1', port: 'six' }] } };

  it('refuses a malformed profile on save, naming the field', async () => {
    const bad = await failure(wb.client.call('connections.save', { profile: badPort } as never));
    expect(bad.data).toMatchObject({ code: 'invalid_request', status: 400, pointer: '/profile/target/hosts/0/port' });
    expect(bad.data.message).toMatch(/^invalid parameters of connections\.save: \/profile\/target\/hosts\/0\/port: /);
    expect((await wb.client['connections.list']()).connections.map((c) => c.profile.name)).not.toContain('cache');
  });

  it('refuses a malformed profile on test, naming the field rather than the union', async () => {
    const bad = await failure(wb.client.call('connections.test', { profile: badPort } as never));
    expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/profile/target/hosts/0/port' });
    expect(bad.data.message).toMatch(/^invalid parameters of connections\.test: \/profile\/target\/hosts\/0\/port: /);
  });

  it('refuses a relative registry folder and an unknown target kind, each at its field', async () => {
    const relative = await failure(wb.client.call('connections.save', { profile: { name: 'here', target: { kind: 'local', dir: 'registry' } } }));
    expect(relative.data).toMatchObject({ pointer: '/profile/target/dir' });
    expect(relative.data.message).toMatch(/^invalid parameters of connections\.save: .*must be an absolute path/);
    const kind = await failure(wb.client.call('connections.test', { profile: { name: 'x', target: { kind: 'ftp' } } } as never));
    expect(kind.data).toMatchObject({ code: 'invalid_request', pointer: '/profile/target/kind' });
  });

  it('names a secret found in a profile without echoing it', async () => {
    const bad = await failure(wb.client.call('connections.save', { profile: { name: 'leaky', password: 'hunter2-marker', target: { kind: 'local', dir: '/srv/registry' } } } as never));
    expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/profile' });
    expect(bad.data.message).toContain("'password' is a secret");
    expect(JSON.stringify(bad.data)).not.toContain('hunter2-marker');
  });
});
