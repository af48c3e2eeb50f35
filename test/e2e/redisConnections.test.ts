/**
 * The Add Connection form against real `redis-server` processes: a Sentinel
 * setup (master and sentinel), a three-node Cluster, a TLS-only server with a
 * private CA, and a server whose only account is an ACL user. Each is filled
 * in by the form's visible labels, tested (a TLS failure and refused
 * credentials are named as such, as a refused port is for a standalone
 * server; an unknown Sentinel master group and a server of another topology
 * are named too), saved, and opened by a click: its catalog shows the skill that was
 * published there beforehand.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisStore } from '../../core/store/redis';
import { samplePackage } from '../integration/core/store/samplePackage';
import { freePort, SENTINEL_MASTER, startCluster, startRedisWithAcl, startRedisWithTls, startSentinelSetup, type RedisSetup } from '../helpers/redis';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotSizes, startApp, type App } from './harness';

/** What the form is filled with; empty fields are left as they are. */
interface RedisForm {
  name: string;
  label: string;
  topology: 'Standalone' | 'Sentinel' | 'Cluster';
  hosts: string;
  master?: string;
  user?: string;
  password?: string;
  tls?: boolean;
  caFile?: string;
  servername?: string;
}

/** Publishes one skill named after the setup into its `default` deployment, as another tool would. */
async function seedSkill(url: string, name: string): Promise<void> {
  const store = await openRedisStore(url);
  try {
    const body = samplePackage(name, { display_name: `Probe through ${name}` });
    await store.publish({ id: { namespace: 'ops', name }, body: JSON.stringify(body), precondition: { kind: 'create' }, actor: 'seed' });
  } finally {
    await store.close();
  }
}

/** `host:port` of each process of a setup, as a person would type them. */
function hostList(setup: RedisSetup, which = setup.processes): string {
  return which.map((p) => `${p.host}:${p.port}`).join(', ');
}

async function openAddDialog(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Add connection', exact: true }).click();
  await page.getByTestId('connection-dialog').waitFor();
}

/** Fills the Add Connection form by its labels, as a person does. */
async function fillRedisForm(page: Page, form: RedisForm): Promise<void> {
  const dialog = page.getByTestId('connection-dialog');
  await dialog.getByLabel('Name', { exact: true }).fill(form.name);
  await dialog.getByLabel('Label', { exact: true }).fill(form.label);
  await dialog.getByLabel('Store', { exact: true }).selectOption({ label: 'Redis / Valkey' });
  await dialog.getByLabel('Topology', { exact: true }).selectOption({ label: form.topology });
  const hostsLabel = form.topology === 'Standalone' ? 'Host:port' : form.topology === 'Sentinel' ? 'Sentinels' : 'Seed nodes';
  await dialog.getByLabel(hostsLabel, { exact: true }).fill(form.hosts);
  if (form.master !== undefined) await dialog.getByLabel('Master group', { exact: true }).fill(form.master);
  if (form.user !== undefined) await dialog.getByLabel('ACL user', { exact: true }).fill(form.user);
  if (form.password !== undefined) await dialog.getByLabel('Password', { exact: true }).fill(form.password);
  if (form.tls !== undefined) await dialog.getByLabel('TLS (rediss://)').setChecked(form.tls);
  if (form.caFile !== undefined) await dialog.getByLabel('CA file', { exact: true }).fill(form.caFile);
  if (form.servername !== undefined) await dialog.getByLabel('Server name', { exact: true }).fill(form.servername);
}

/** Presses Test and returns the verdict the dialog shows. */
async function testForm(page: Page): Promise<{ ok: boolean; cause: string | null; text: string }> {
  const dialog = page.getByTestId('connection-dialog');
  await dialog.getByRole('button', { name: 'Test', exact: true }).click();
  const result = dialog.getByTestId('connection-test-result');
  await result.waitFor();
  return { ok: (await result.getAttribute('data-ok')) === 'true', cause: await result.getAttribute('data-cause'), text: (await result.textContent()) ?? '' };
}

/** Saves the form, then opens the new connection's catalog by a click and waits for the seeded skill. */
async function saveAndOpen(page: Page, name: string, skill: string): Promise<void> {
  const dialog = page.getByTestId('connection-dialog');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator(`[data-testid="connection-row-${name}"][data-reachability="up"]`).waitFor();
  await page.getByTestId(`connection-row-${name}`).click();
  await page.getByTestId(`catalog-${name}`).waitFor();
  await page.getByTestId(`catalog-row-ops/${skill}`).waitFor();
}

describe('Redis connections through the form', () => {
  let app: App;
  let sentinel: Awaited<ReturnType<typeof startSentinelSetup>>;
  let cluster: RedisSetup;
  let tls: Awaited<ReturnType<typeof startRedisWithTls>>;
  let acl: RedisSetup;
  const PASSWORD = 'acl-pass-7f3e91';

  beforeAll(async () => {
    [app, sentinel, cluster, tls, acl] = await Promise.all([startApp(), startSentinelSetup(), startCluster(3), startRedisWithTls(), startRedisWithAcl('ana', PASSWORD)]);
    await seedSkill(sentinel.url, 'sentinel-probe');
    await seedSkill(cluster.url, 'cluster-probe');
    await seedSkill(`${tls.url}?ca=${encodeURIComponent(tls.caFile)}`, 'tls-probe');
    await seedSkill(acl.url.replace('redis://', `redis://ana:${PASSWORD}@`), 'acl-probe');
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await Promise.all([sentinel?.stop(), cluster?.stop(), tls?.stop(), acl?.stop()]);
  });

  it('names a refused port on a standalone server', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openAddDialog(page);
    // A port nothing listens on.
    await fillRedisForm(page, { name: 'nowhere', label: 'Nowhere', topology: 'Standalone', hosts: `127.0.0.1:${await freePort()}` });
    const verdict = await testForm(page);
    expect(verdict).toMatchObject({ ok: false, cause: 'refused' });
    expect(verdict.text).toContain('Failed (connection refused).');
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('names an unknown master group and a server that is no Sentinel, then connects through a Sentinel, saves, and opens its catalog', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openAddDialog(page);
    // A master group the Sentinel does not monitor.
    await fillRedisForm(page, { name: 'ha', label: 'HA through Sentinel', topology: 'Sentinel', hosts: hostList(sentinel, [sentinel.sentinel]), master: 'orders-master' });
    const unknownMaster = await testForm(page);
    expect(unknownMaster).toMatchObject({ ok: false, cause: 'wrong_master' });
    expect(unknownMaster.text).toContain('Failed (unknown master group).');
    await screenshotSizes(page, 'connection-dialog-sentinel-failed-dark');
    // The master's own address where the Sentinels belong.
    await fillRedisForm(page, { name: 'ha', label: 'HA through Sentinel', topology: 'Sentinel', hosts: hostList(sentinel, [sentinel.master]), master: SENTINEL_MASTER });
    const notASentinel = await testForm(page);
    expect(notASentinel).toMatchObject({ ok: false, cause: 'wrong_topology' });
    expect(notASentinel.text).toContain('Failed (wrong topology).');
    await fillRedisForm(page, { name: 'ha', label: 'HA through Sentinel', topology: 'Sentinel', hosts: hostList(sentinel, [sentinel.sentinel]), master: SENTINEL_MASTER });
    await screenshotSizes(page, 'connection-dialog-sentinel-dark');
    const verdict = await testForm(page);
    expect(verdict.ok, verdict.text).toBe(true);
    expect(verdict.text).toMatch(/^Connected\. connected to .*1 skill$/);
    await saveAndOpen(page, 'ha', 'sentinel-probe');
    // The saved profile is what the form said.
    const { connections } = await app.call<{ connections: { profile: { name: string; target: Record<string, unknown> } }[] }>('connections.list');
    expect(connections.find((c) => c.profile.name === 'ha')?.profile.target).toMatchObject({ kind: 'redis', topology: 'sentinel', master_name: SENTINEL_MASTER, hosts: [{ host: '127.0.0.1', port: sentinel.sentinel.port }] });
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('names a server without cluster support, then connects to a Cluster from one seed node, saves, and opens its catalog', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openAddDialog(page);
    // A plain server (the Sentinel setup's master) runs without cluster support.
    await fillRedisForm(page, { name: 'sharded', label: 'Sharded cluster', topology: 'Cluster', hosts: hostList(sentinel, [sentinel.master]) });
    const plain = await testForm(page);
    expect(plain).toMatchObject({ ok: false, cause: 'wrong_topology' });
    expect(plain.text).toContain('Failed (wrong topology).');
    // Standalone at one node of the Cluster would reach only that node's slots.
    await fillRedisForm(page, { name: 'sharded', label: 'Sharded cluster', topology: 'Standalone', hosts: hostList(cluster, cluster.processes.slice(0, 1)) });
    const oneNode = await testForm(page);
    expect(oneNode).toMatchObject({ ok: false, cause: 'wrong_topology' });
    expect(oneNode.text).toContain('Failed (wrong topology).');
    await fillRedisForm(page, { name: 'sharded', label: 'Sharded cluster', topology: 'Cluster', hosts: hostList(cluster, cluster.processes.slice(0, 1)) });
    const verdict = await testForm(page);
    expect(verdict.ok, verdict.text).toBe(true);
    await saveAndOpen(page, 'sharded', 'cluster-probe');
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('names a TLS failure (no CA, a wrong server name), then connects with the CA file', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openAddDialog(page);
    await fillRedisForm(page, { name: 'secure', label: 'TLS only', topology: 'Standalone', hosts: hostList(tls), tls: true });
    // The server's certificate comes from a private CA the system does not trust.
    const untrusted = await testForm(page);
    expect(untrusted).toMatchObject({ ok: false, cause: 'tls' });
    expect(untrusted.text).toContain('Failed (TLS).');
    expect(untrusted.text).toContain('the TLS handshake failed');
    await screenshotSizes(page, 'connection-dialog-tls-failed-dark');
    // The right CA, but a name the certificate does not carry.
    await fillRedisForm(page, { name: 'secure', label: 'TLS only', topology: 'Standalone', hosts: hostList(tls), caFile: tls.caFile, servername: 'registry.example' });
    const misnamed = await testForm(page);
    expect(misnamed).toMatchObject({ ok: false, cause: 'tls' });
    await fillRedisForm(page, { name: 'secure', label: 'TLS only', topology: 'Standalone', hosts: hostList(tls), servername: '' });
    const verdict = await testForm(page);
    expect(verdict.ok, verdict.text).toBe(true);
    await saveAndOpen(page, 'secure', 'tls-probe');
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('names refused credentials for an ACL user, then connects with the right password and keeps it apart', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openAddDialog(page);
    // The default user is switched off on this server.
    await fillRedisForm(page, { name: 'acl', label: 'ACL user', topology: 'Standalone', hosts: hostList(acl) });
    const anonymous = await testForm(page);
    expect(anonymous).toMatchObject({ ok: false, cause: 'auth' });
    expect(anonymous.text).toContain('Failed (credentials refused).');
    await fillRedisForm(page, { name: 'acl', label: 'ACL user', topology: 'Standalone', hosts: hostList(acl), user: 'ana', password: 'not-the-password' });
    const wrong = await testForm(page);
    expect(wrong).toMatchObject({ ok: false, cause: 'auth' });
    expect(wrong.text).not.toContain('not-the-password');
    await screenshotSizes(page, 'connection-dialog-auth-failed-dark');
    await fillRedisForm(page, { name: 'acl', label: 'ACL user', topology: 'Standalone', hosts: hostList(acl), password: PASSWORD });
    const verdict = await testForm(page);
    expect(verdict.ok, verdict.text).toBe(true);
    await saveAndOpen(page, 'acl', 'acl-probe');
    // The password is saved apart from the profile: Edit shows it as unchanged, and Test without retyping it connects.
    const { connections } = await app.call<{ connections: { profile: { name: string; target: Record<string, unknown> }; secrets: Record<string, boolean> }[] }>('connections.list');
    const saved = connections.find((c) => c.profile.name === 'acl')!;
    expect(saved.profile.target).toMatchObject({ username: 'ana' });
    expect(JSON.stringify(saved.profile)).not.toContain(PASSWORD);
    await page.getByTestId('connection-row-acl').click({ button: 'right' });
    await page.getByTestId('menu-edit').click();
    const dialog = page.getByTestId('connection-dialog');
    await expect.poll(() => dialog.getByLabel('ACL user', { exact: true }).inputValue()).toBe('ana');
    await expect(dialog.getByLabel('Password', { exact: true }).getAttribute('placeholder')).resolves.toBe('unchanged');
    const again = await testForm(page);
    expect(again.ok, again.text).toBe(true);
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });
});
