/**
 * Add or edit a connection: label, environment (colour preset), target, the
 * read-only and protected switches, and its secret. Test runs on the unsaved
 * form values and saves nothing; Save writes the profile. A host that does not
 * serve `connections.test` or `connections.save` says so in the dialog.
 */
import { useEffect, useState } from 'react';
import { create } from 'zustand';
import { WorkbenchApiError, workbenchClient, type ConnectionTestResult } from '../api/client';
import { Modal } from '../shell/Modal';
import { messageOf } from '../shell/useNotificationsStore';
import { ENV_PRESETS, NO_ENV_COLOUR, textOn } from './env';
import { refreshConnections } from './module';
import { useConnectionsStore } from './useConnectionsStore';

interface DialogState {
  /** Open for a new connection (`name` undefined) or for editing `name`. */
  visible: boolean;
  name: string | undefined;
  open(name: string | undefined): void;
  close(): void;
}

export const useConnectionDialog = create<DialogState>((set) => ({
  visible: false,
  name: undefined,
  open: (name) => set({ visible: true, name }),
  close: () => set({ visible: false, name: undefined }),
}));

type Kind = 'local' | 'redis' | 'http';

interface Form {
  name: string;
  label: string;
  env: string;
  kind: Kind;
  dir: string;
  redisHost: string;
  deployment: string;
  url: string;
  secret: string;
  readOnly: boolean;
  protected: boolean;
  enforces: boolean;
  /** The profile's name, typed to confirm switching protection off. */
  unprotect: string;
}

const EMPTY: Form = { name: '', label: '', env: '', kind: 'http', dir: '', redisHost: '127.0.0.1:6379', deployment: 'default', url: '', secret: '', readOnly: false, protected: false, enforces: false, unprotect: '' };

function profileOf(form: Form): Record<string, unknown> {
  const preset = ENV_PRESETS.find((p) => p.label === form.env);
  const [host, port] = form.redisHost.split(':');
  const target =
    form.kind === 'local'
      ? { kind: 'local', dir: form.dir }
      : form.kind === 'redis'
        ? { kind: 'redis', topology: 'standalone', hosts: [{ host: host ?? '', port: Number(port ?? 6379) }], deployment: form.deployment }
        : { kind: 'http', url: form.url, auth: form.secret ? 'bearer' : 'none' };
  return {
    name: form.name,
    label: form.label || form.name,
    environment: preset ? { label: preset.label, colour: preset.colour } : null,
    read_only: form.readOnly,
    protected: form.protected,
    enforces_approvals: form.enforces,
    target,
  };
}

function secretsOf(form: Form): Record<string, unknown> | undefined {
  if (!form.secret) return undefined;
  return form.kind === 'redis' ? { password: form.secret } : { token: form.secret };
}

/** A failure as the dialog shows it; `not_implemented` says the host lacks the feature. */
function failureText(action: string, error: unknown): string {
  if (error instanceof WorkbenchApiError && error.code === 'not_implemented') return `This host cannot ${action} connections yet: ${error.message}`;
  return messageOf(error);
}

export function ConnectionDialog() {
  const visible = useConnectionDialog((s) => s.visible);
  const editing = useConnectionDialog((s) => s.name);
  if (!visible) return null;
  return <ConnectionForm key={editing ?? '(new)'} editing={editing} />;
}

function ConnectionForm({ editing }: { editing: string | undefined }) {
  const close = useConnectionDialog((s) => s.close);
  const existing = useConnectionsStore((s) => s.connections.find((c) => c.name === editing));
  const [form, setForm] = useState<Form>(EMPTY);
  const [busy, setBusy] = useState<'test' | 'save' | undefined>();
  const [test, setTest] = useState<ConnectionTestResult | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!existing) return;
    setForm((f) => ({
      ...f,
      name: existing.name,
      label: existing.label,
      env: ENV_PRESETS.find((p) => p.label === existing.environment?.label)?.label ?? '',
      kind: existing.kind,
      readOnly: existing.read_only,
      protected: existing.protected,
      enforces: existing.enforces_approvals === true,
    }));
  }, [existing]);

  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setTest(undefined);
    setError(undefined);
  };
  const preset = ENV_PRESETS.find((p) => p.label === form.env);
  const colour = preset?.colour ?? NO_ENV_COLOUR;
  // Switching a guard off is never silent: the user types the connection's name (it is a rail either way).
  const lowering = existing !== undefined && ((existing.protected && !form.protected) || (existing.enforces_approvals === true && !form.enforces));
  const unconfirmed = lowering && form.unprotect.trim() !== existing?.name;

  const runTest = async () => {
    setBusy('test');
    setError(undefined);
    setTest(undefined);
    try {
      const secrets = secretsOf(form);
      setTest(await workbenchClient()['connections.test']({ profile: profileOf(form), ...(secrets && { secrets }) }));
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
      await workbenchClient()['connections.save']({
        profile: profileOf(form),
        ...(editing && { previous_name: editing }),
        ...(secrets && { secrets }),
        ...(lowering && { confirm_unprotect: form.unprotect.trim() }),
      });
      await refreshConnections();
      close();
    } catch (e) {
      setError(failureText('save', e));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <Modal title={editing ? `Edit connection ${editing}` : 'Add connection'} testId="connection-dialog" onDismiss={close}>
      <div className="form-grid">
        <label htmlFor="conn-name">Name</label>
        <input id="conn-name" className="input" value={form.name} onChange={(e) => set('name', e.target.value)} placeholder="prod-redis" data-testid="connection-field-name" data-autofocus />
        <label htmlFor="conn-label">Label</label>
        <input id="conn-label" className="input" value={form.label} onChange={(e) => set('label', e.target.value)} placeholder="Production" data-testid="connection-field-label" />
        <label htmlFor="conn-env">Environment</label>
        <span className="row-gap">
          <select id="conn-env" className="input" value={form.env} onChange={(e) => set('env', e.target.value)} data-testid="connection-field-env">
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
        <label htmlFor="conn-kind">Store</label>
        <select id="conn-kind" className="input" value={form.kind} onChange={(e) => set('kind', e.target.value as Kind)} data-testid="connection-field-kind">
          <option value="http">Admin API over HTTP(S)</option>
          <option value="redis">Redis / Valkey</option>
          <option value="local">Local registry folder</option>
        </select>
        {form.kind === 'http' && (
          <>
            <label htmlFor="conn-url">URL</label>
            <input id="conn-url" className="input" value={form.url} onChange={(e) => set('url', e.target.value)} placeholder="https://registry.example/api/v1/skills" data-testid="connection-field-url" />
          </>
        )}
        {form.kind === 'redis' && (
          <>
            <label htmlFor="conn-host">Host:port</label>
            <input id="conn-host" className="input" value={form.redisHost} onChange={(e) => set('redisHost', e.target.value)} data-testid="connection-field-host" />
            <label htmlFor="conn-deployment">Deployment</label>
            <input id="conn-deployment" className="input" value={form.deployment} onChange={(e) => set('deployment', e.target.value)} data-testid="connection-field-deployment" />
          </>
        )}
        {form.kind === 'local' && (
          <>
            <label htmlFor="conn-dir">Folder</label>
            <input id="conn-dir" className="input" value={form.dir} onChange={(e) => set('dir', e.target.value)} data-testid="connection-field-dir" />
          </>
        )}
        {form.kind !== 'local' && (
          <>
            <label htmlFor="conn-secret">{form.kind === 'redis' ? 'Password' : 'Token'}</label>
            <input
              id="conn-secret"
              className="input"
              type="password"
              autoComplete="off"
              value={form.secret}
              onChange={(e) => set('secret', e.target.value)}
              placeholder={editing ? 'unchanged' : ''}
              data-testid="connection-field-secret"
            />
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
            <label htmlFor="conn-unprotect">Confirm</label>
            <input
              id="conn-unprotect"
              className="input"
              value={form.unprotect}
              onChange={(e) => set('unprotect', e.target.value)}
              placeholder={`type ${existing?.name ?? ''} to switch protection off`}
              data-testid="connection-field-unprotect"
            />
            <span className="hint">Without protection, this client publishes and deletes through {existing?.name} without a review. Type its name to confirm.</span>
          </>
        )}
      </div>
      {test && (
        <div className={test.ok ? 'inline-ok' : 'inline-error'} role="status" data-testid="connection-test-result" data-ok={test.ok}>
          <strong>{test.ok ? 'Connected.' : 'Failed.'}</strong> <span className="isolate">{test.message}</span>
          {test.ok && test.skills !== undefined && <span> {test.skills.toLocaleString()} skills.</span>}
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
        <button type="button" className="btn primary" disabled={busy !== undefined || form.name.trim() === '' || unconfirmed} title={unconfirmed ? `Type ${existing?.name ?? ''} to confirm switching protection off` : undefined} onClick={() => void save()} data-testid="connection-save">
          {busy === 'save' ? 'Saving…' : 'Save'}
        </button>
      </div>
    </Modal>
  );
}
