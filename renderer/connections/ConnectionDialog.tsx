/**
 * Add, edit or clone a connection: label, environment (colour preset), target,
 * the read-only and protected switches, and its secrets. A Redis target takes
 * its topology (standalone, Sentinel with its master group, Cluster with seed
 * nodes), TLS (with a CA file and server name), the ACL user and the Sentinel
 * credentials. Test runs on the unsaved form values and saves nothing; Save
 * writes the profile. Editing reads the saved profile whole, so Save keeps
 * what the form does not show; a clone copies the profile but not its secrets.
 * A host that does not serve `connections.test` or `connections.save` says so.
 */
import { useEffect, useId, useState } from 'react';
import { create } from 'zustand';
import { WorkbenchApiError, workbenchClient, type ConnectionProfile, type ConnectionTestResult, type ProfileInput } from '../api/client';
import { Modal } from '../shell/Modal';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { ENV_PRESETS, NO_ENV_COLOUR, textOn } from './env';
import { checkConnection } from './module';
import { refreshConnections } from './queries';

interface DialogState {
  /** Open for a new connection (`name` undefined), for editing `name`, or for a copy of it. */
  visible: boolean;
  name: string | undefined;
  clone: boolean;
  open(name: string | undefined, options?: { clone?: boolean }): void;
  close(): void;
}

export const useConnectionDialog = create<DialogState>((set) => ({
  visible: false,
  name: undefined,
  clone: false,
  open: (name, options) => set({ visible: true, name, clone: options?.clone === true }),
  close: () => set({ visible: false, name: undefined, clone: false }),
}));

type Kind = 'local' | 'redis' | 'http';
type Topology = 'standalone' | 'sentinel' | 'cluster';

/** The form's fields, all text or switches as typed. */
export interface ConnectionForm {
  name: string;
  label: string;
  env: string;
  kind: Kind;
  dir: string;
  topology: Topology;
  /** `host:port`, or several separated by commas or spaces (Sentinel nodes, Cluster seeds). */
  hosts: string;
  masterName: string;
  deployment: string;
  username: string;
  tls: boolean;
  caFile: string;
  servername: string;
  sentinelUsername: string;
  url: string;
  secret: string;
  sentinelSecret: string;
  readOnly: boolean;
  protected: boolean;
  enforces: boolean;
  /** The profile's name, typed to confirm switching protection off. */
  unprotect: string;
}

export const EMPTY_FORM: ConnectionForm = {
  name: '',
  label: '',
  env: '',
  kind: 'http',
  dir: '',
  topology: 'standalone',
  hosts: '127.0.0.1:6379',
  masterName: '',
  deployment: 'default',
  username: '',
  tls: false,
  caFile: '',
  servername: '',
  sentinelUsername: '',
  url: '',
  secret: '',
  sentinelSecret: '',
  readOnly: false,
  protected: false,
  enforces: false,
  unprotect: '',
};

/** `host:port, host:port` as a host list (a bare host gets the Redis port; `[::1]:6379` keeps its brackets off). */
export function parseHosts(text: string): { host: string; port: number }[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => {
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
      if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 6379) };
      const at = item.lastIndexOf(':');
      return at > 0 && /^\d+$/.test(item.slice(at + 1)) ? { host: item.slice(0, at), port: Number(item.slice(at + 1)) } : { host: item, port: 6379 };
    });
}

function formatHosts(hosts: { host: string; port: number }[]): string {
  return hosts.map((h) => (h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`)).join(', ');
}

/** The profile the form describes, for `connections.test` and `connections.save`; `saved` keeps what the form does not show. */
export function profileOf(form: ConnectionForm, saved?: ConnectionProfile): ProfileInput {
  const preset = ENV_PRESETS.find((p) => p.label === form.env);
  const previous = saved?.target;
  let target: ProfileInput['target'];
  if (form.kind === 'local') target = { kind: 'local', dir: form.dir };
  else if (form.kind === 'redis') {
    const kept = previous?.kind === 'redis' ? { ...(previous.connect_timeout_ms !== undefined && { connect_timeout_ms: previous.connect_timeout_ms }), ...(previous.command_timeout_ms !== undefined && { command_timeout_ms: previous.command_timeout_ms }) } : {};
    const tls = form.tls ? { ...(form.caFile.trim() && { ca_file: form.caFile.trim() }), ...(form.servername.trim() && { servername: form.servername.trim() }) } : undefined;
    target = {
      kind: 'redis',
      topology: form.topology,
      hosts: parseHosts(form.hosts),
      deployment: form.deployment,
      ...(form.topology === 'sentinel' && { master_name: form.masterName.trim() }),
      ...(form.username.trim() && { username: form.username.trim() }),
      ...(form.topology === 'sentinel' && form.sentinelUsername.trim() && { sentinel_username: form.sentinelUsername.trim() }),
      ...(tls && { tls }),
      ...kept,
    };
  } else {
    const kept = previous?.kind === 'http' ? previous : undefined;
    target = { ...kept, kind: 'http', url: form.url, auth: kept && kept.auth !== 'bearer' && kept.auth !== 'none' ? kept.auth : form.secret || kept?.auth === 'bearer' ? 'bearer' : 'none' };
  }
  return {
    name: form.name,
    label: form.label || form.name,
    environment: preset ? { label: preset.label, colour: preset.colour } : saved?.environment && form.env === saved.environment.label ? saved.environment : null,
    read_only: form.readOnly,
    protected: form.protected,
    ...(form.enforces && { enforces_approvals: true }),
    target,
  };
}

/** The secrets the form sets (an empty field keeps the saved one). */
export function secretsOf(form: ConnectionForm): Record<string, unknown> | undefined {
  const secrets: Record<string, unknown> = {};
  if (form.secret) secrets[form.kind === 'redis' ? 'password' : 'token'] = form.secret;
  if (form.kind === 'redis' && form.topology === 'sentinel' && form.sentinelSecret) secrets['sentinel_password'] = form.sentinelSecret;
  return Object.keys(secrets).length > 0 ? secrets : undefined;
}

/** The form of a saved profile. */
export function formOf(profile: ConnectionProfile, clone: boolean): ConnectionForm {
  const t = profile.target;
  const form: ConnectionForm = {
    ...EMPTY_FORM,
    name: clone ? `${profile.name}-copy` : profile.name,
    label: clone ? `${profile.label} (copy)` : profile.label,
    env: profile.environment?.label ?? '',
    kind: t.kind,
    readOnly: profile.read_only,
    protected: profile.protected,
    enforces: profile.enforces_approvals === true,
  };
  if (t.kind === 'local') form.dir = t.dir;
  if (t.kind === 'http') form.url = t.url;
  if (t.kind === 'redis') {
    Object.assign(form, {
      topology: t.topology,
      hosts: formatHosts(t.hosts),
      masterName: t.master_name ?? '',
      deployment: t.deployment,
      username: t.username ?? '',
      sentinelUsername: t.sentinel_username ?? '',
      tls: t.tls !== undefined,
      caFile: t.tls?.ca_file ?? '',
      servername: t.tls?.servername ?? '',
    });
  }
  return form;
}

/** Whether the form's profile says what the saved one says (the times aside). */
function sameProfile(profile: ProfileInput, saved: ConnectionProfile): boolean {
  const canonical = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
  const { created_at: _c, updated_at: _u, ...rest } = saved;
  return canonical(profile) === canonical(rest);
}

/** A failure as the dialog shows it; `not_implemented` says the host lacks the feature. */
function failureText(action: string, error: unknown): string {
  if (error instanceof WorkbenchApiError && error.code === 'not_implemented') return `This host cannot ${action} connections yet: ${error.message}`;
  return messageOf(error);
}

const CAUSES: Record<string, string> = {
  refused: 'connection refused',
  dns: 'unknown host',
  tls: 'TLS',
  auth: 'credentials refused',
  forbidden: 'not allowed',
  wrong_base_url: 'wrong URL',
  not_admin_api: 'not an admin API',
  wrong_deployment: 'wrong deployment',
  wrong_master: 'unknown master group',
  wrong_topology: 'wrong topology',
  timeout: 'timed out',
  not_a_registry: 'not a registry',
  invalid: 'invalid settings',
  unavailable: 'unavailable',
};

export function ConnectionDialog() {
  const visible = useConnectionDialog((s) => s.visible);
  const editing = useConnectionDialog((s) => s.name);
  const clone = useConnectionDialog((s) => s.clone);
  if (!visible) return null;
  return <ConnectionFormDialog key={`${editing ?? '(new)'}:${clone}`} editing={editing} clone={clone} />;
}

function ConnectionFormDialog({ editing, clone }: { editing: string | undefined; clone: boolean }) {
  const close = useConnectionDialog((s) => s.close);
  const [form, setForm] = useState<ConnectionForm>(EMPTY_FORM);
  const [saved, setSaved] = useState<ConnectionProfile | undefined>();
  const [busy, setBusy] = useState<'test' | 'save' | 'load' | undefined>(editing ? 'load' : undefined);
  const [test, setTest] = useState<ConnectionTestResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  const updating = editing !== undefined && !clone;

  // The saved profile whole, so the form shows (and Save keeps) every setting.
  useEffect(() => {
    if (!editing) return;
    let live = true;
    const api = workbenchClient();
    api['connections.list']({})
      .then(({ connections }) => {
        const view = connections.find((c) => c.profile.name === editing);
        if (!live) return;
        if (view) {
          setSaved(view.profile);
          setForm(formOf(view.profile, clone));
        } else setError(`The connection ${editing} no longer exists.`);
      })
      .catch((e: unknown) => live && setError(messageOf(e)))
      .finally(() => live && setBusy(undefined));
    return () => {
      live = false;
    };
  }, [editing, clone]);

  const set = <K extends keyof ConnectionForm>(key: K, value: ConnectionForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setTest(undefined);
    setError(undefined);
  };
  const preset = ENV_PRESETS.find((p) => p.label === form.env);
  const colour = preset?.colour ?? NO_ENV_COLOUR;
  // Switching a guard off is never silent: the user types the connection's name (it is a rail either way).
  const lowering = updating && saved !== undefined && ((saved.protected && !form.protected) || (saved.enforces_approvals === true && !form.enforces));
  const unconfirmed = lowering && form.unprotect.trim() !== saved?.name;

  const runTest = async () => {
    setBusy('test');
    setError(undefined);
    setTest(undefined);
    try {
      const secrets = secretsOf(form);
      const profile = profileOf(form, saved);
      // Unchanged settings and no secret typed: the saved connection is tested by name, with its saved secrets.
      const unchanged = updating && saved && !secrets && sameProfile(profile, saved);
      const result = await workbenchClient()['connections.test'](unchanged ? { name: editing } : { profile, ...(secrets && { secrets }) });
      setTest(result);
      // A saved connection that answers gets its dot filled at once.
      if (result.ok && updating) void checkConnection(editing);
    } catch (e) {
      setError(failureText('test', e));
    } finally {
      setBusy(undefined);
    }
  };

  const save = async () => {
    setBusy('save');
    setError(undefined);
    try {
      const secrets = secretsOf(form);
      const view = await workbenchClient()['connections.save']({
        profile: profileOf(form, saved),
        ...(updating && { previous_name: editing }),
        ...(secrets && { secrets }),
        ...(lowering && { confirm_unprotect: form.unprotect.trim() }),
      });
      await refreshConnections();
      close();
      void checkConnection(view.profile.name);
    } catch (e) {
      setError(failureText('save', e));
    } finally {
      setBusy(undefined);
    }
  };

  const field = (key: keyof ConnectionForm) => `${id}-${key}`;
  const text = (key: keyof ConnectionForm, label: string, props: { placeholder?: string; hint?: string; mono?: boolean; type?: string } = {}) => (
    <>
      <label htmlFor={field(key)}>{label}</label>
      <input
        id={field(key)}
        className={`input${props.mono ? ' mono' : ''}`}
        type={props.type ?? 'text'}
        autoComplete="off"
        spellCheck={false}
        value={String(form[key])}
        onChange={(e) => set(key, e.target.value as never)}
        placeholder={props.placeholder}
        data-testid={`connection-field-${key}`}
      />
      {props.hint && <span className="hint">{props.hint}</span>}
    </>
  );
  const title = clone ? `Clone connection ${editing}` : updating ? `Edit connection ${editing}` : 'Add connection';
  const redis = form.kind === 'redis';

  return (
    <Modal title={title} testId="connection-dialog" onDismiss={close} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (busy === undefined && form.name.trim() !== '' && !unconfirmed) void save();
        }}
      >
        <div className="form-grid">
          <label htmlFor={field('name')}>Name</label>
          <input id={field('name')} className="input" value={form.name} onChange={(e) => set('name', e.target.value)} placeholder="prod-redis" data-testid="connection-field-name" data-autofocus />
          {text('label', 'Label', { placeholder: 'Production' })}
          <label htmlFor={field('env')}>Environment</label>
          <span className="row-gap">
            <select id={field('env')} className="input" value={form.env} onChange={(e) => set('env', e.target.value)} data-testid="connection-field-env">
              <option value="">None</option>
              {ENV_PRESETS.map((p) => (
                <option key={p.label} value={p.label}>
                  {p.label}
                </option>
              ))}
            </select>
            <span className="env-label" style={{ background: colour, color: textOn(colour) }} data-testid="connection-env-preview" data-colour={colour}>
              {preset?.label ?? 'no environment'}
            </span>
          </span>
          <label htmlFor={field('kind')}>Store</label>
          <select id={field('kind')} className="input" value={form.kind} onChange={(e) => set('kind', e.target.value as Kind)} data-testid="connection-field-kind">
            <option value="http">Admin API over HTTP(S)</option>
            <option value="redis">Redis / Valkey</option>
            <option value="local">Local registry folder</option>
          </select>
          {form.kind === 'http' && text('url', 'URL', { placeholder: 'https://registry.example/api/v1/skills', mono: true })}
          {redis && (
            <>
              <label htmlFor={field('topology')}>Topology</label>
              <select id={field('topology')} className="input" value={form.topology} onChange={(e) => set('topology', e.target.value as Topology)} data-testid="connection-field-topology">
                <option value="standalone">Standalone</option>
                <option value="sentinel">Sentinel</option>
                <option value="cluster">Cluster</option>
              </select>
              {text('hosts', form.topology === 'standalone' ? 'Host:port' : form.topology === 'sentinel' ? 'Sentinels' : 'Seed nodes', {
                mono: true,
                placeholder: form.topology === 'standalone' ? '127.0.0.1:6379' : 'host1:26379, host2:26379',
                ...(form.topology !== 'standalone' && { hint: form.topology === 'sentinel' ? 'The Sentinel processes, host:port separated by commas.' : 'One or more nodes of the cluster, host:port separated by commas.' }),
              })}
              {form.topology === 'sentinel' && text('masterName', 'Master group', { mono: true, placeholder: 'mymaster' })}
              {text('deployment', 'Deployment', { mono: true, hint: 'The key namespace of the registry (truvag3:v1:<deployment>:…).' })}
              {text('username', 'ACL user', { placeholder: 'default user when empty' })}
            </>
          )}
          {form.kind === 'local' && text('dir', 'Folder', { mono: true, placeholder: '/absolute/path/to/registry' })}
          {form.kind !== 'local' && (
            <>
              <label htmlFor={field('secret')}>{redis ? 'Password' : 'Token'}</label>
              <input
                id={field('secret')}
                className="input"
                type="password"
                autoComplete="off"
                value={form.secret}
                onChange={(e) => set('secret', e.target.value)}
                placeholder={updating ? 'unchanged' : clone ? 'not copied: type it again' : ''}
                data-testid="connection-field-secret"
              />
            </>
          )}
          {redis && form.topology === 'sentinel' && (
            <>
              {text('sentinelUsername', 'Sentinel user', { placeholder: 'when the Sentinels use ACLs' })}
              <label htmlFor={field('sentinelSecret')}>Sentinel password</label>
              <input
                id={field('sentinelSecret')}
                className="input"
                type="password"
                autoComplete="off"
                value={form.sentinelSecret}
                onChange={(e) => set('sentinelSecret', e.target.value)}
                placeholder={updating ? 'unchanged' : ''}
                data-testid="connection-field-sentinelSecret"
              />
            </>
          )}
          {redis && (
            <>
              <span />
              <label className="checkbox-row">
                <input type="checkbox" checked={form.tls} onChange={(e) => set('tls', e.target.checked)} data-testid="connection-field-tls" /> TLS (rediss://)
              </label>
              {form.tls && text('caFile', 'CA file', { mono: true, placeholder: 'system roots when empty', hint: 'An absolute path to a PEM file, for a private certificate authority.' })}
              {form.tls && text('servername', 'Server name', { mono: true, placeholder: 'the host name when empty' })}
            </>
          )}
          <span />
          <label className="checkbox-row">
            <input type="checkbox" checked={form.readOnly} onChange={(e) => set('readOnly', e.target.checked)} data-testid="connection-field-readonly" /> Read-only (nothing is published or deleted through it)
          </label>
          <span />
          <label className="checkbox-row">
            <input type="checkbox" checked={form.protected} onChange={(e) => set('protected', e.target.checked)} data-testid="connection-field-protected" /> Protected (publishes and deletes only from approved reviews)
          </label>
          <span />
          <label className="checkbox-row">
            <input type="checkbox" checked={form.enforces} onChange={(e) => set('enforces', e.target.checked)} data-testid="connection-field-enforces" /> Its host enforces approvals (registry serve --require-approval)
          </label>
          {lowering && (
            <>
              <label htmlFor={field('unprotect')}>Confirm</label>
              <input
                id={field('unprotect')}
                className="input"
                autoComplete="off"
                spellCheck={false}
                value={form.unprotect}
                onChange={(e) => set('unprotect', e.target.value)}
                placeholder={`type ${saved?.name ?? ''} to switch protection off`}
                data-testid="connection-field-unprotect"
              />
              <span className="hint">Without protection, this client publishes and deletes through {saved?.name} without a review. Type its name to confirm.</span>
            </>
          )}
        </div>
        {busy === 'load' && <p className="muted">Reading the saved connection…</p>}
        {test && (
          <div className={test.ok ? 'inline-ok' : 'inline-error'} role="status" data-testid="connection-test-result" data-ok={test.ok} data-cause={test.cause}>
            <strong className="test-verdict">{test.ok ? 'Connected.' : `Failed${test.cause ? ` (${CAUSES[test.cause] ?? test.cause})` : ''}.`}</strong>{' '}
            <span className="isolate test-message">
              <SafeText text={test.message} />
            </span>
          </div>
        )}
        {error && (
          <div className="inline-error" role="alert" data-testid="connection-error">
            <span className="isolate">{error}</span>
          </div>
        )}
        <div className="actions">
          <button type="button" className="btn left" disabled={busy !== undefined} onClick={() => void runTest()} data-testid="connection-test">
            {busy === 'test' ? 'Testing…' : 'Test'}
          </button>
          <button type="button" className="btn" onClick={close} data-testid="connection-cancel">
            Cancel
          </button>
          <button
            type="submit"
            className="btn primary"
            disabled={busy !== undefined || form.name.trim() === '' || unconfirmed}
            title={unconfirmed ? `Type ${saved?.name ?? ''} to confirm switching protection off` : undefined}
            data-testid="connection-save"
          >
            {busy === 'save' ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
