/**
 * The workspace section of the sidebar: the open workspace folder, its
 * packages (with the ones that are not valid packages marked), and the
 * autosaved drafts that hold unpublished edits. A draft opens in the editor;
 * a package file opens its comparison with what the active connection
 * publishes. The lists follow `workspace.changed` and `drafts.changed`.
 */
import { useQuery } from '@tanstack/react-query';
import { workbenchClient, type DraftView, type WorkspaceEntry } from '../api/client';
import { useConnections } from '../connections/queries';
import { useConnectionsStore } from '../connections/useConnectionsStore';
import { ago } from '../catalog/CatalogView';
import { Icon } from '../shell/icons';
import { useIntent } from '../shell/intents';
import { SafeText, visibleControls } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { workspaceKeys } from '../storeData/queries';
import './workspace.css';

function draftTitle(draft: DraftView): string {
  const o = draft.origin;
  return o.kind === 'store' ? `${o.skill.namespace}/${o.skill.name}` : o.path;
}

export function WorkspaceSection() {
  const files = useQuery({ queryKey: workspaceKeys.files, queryFn: () => workbenchClient()['workspace.list']({}) });
  const drafts = useQuery({ queryKey: workspaceKeys.drafts, queryFn: () => workbenchClient()['drafts.list']({}) });
  const connections = useConnections();
  const active = useConnectionsStore((s) => s.activeName);
  const activeLabel = connections.find((c) => c.name === active)?.label ?? active;
  const edit = useIntent('skill.edit');
  const diff = useIntent('skill.diff');
  const workspace = files.data;
  const unpublished = (drafts.data?.drafts ?? []).filter((d) => d.dirty);
  const root = workspace?.root.split(/[\\/]/).filter(Boolean).pop() ?? '';

  const openFile = (entry: WorkspaceEntry) => {
    if (!entry.skill || !active || typeof diff !== 'function') return;
    diff({ before: { kind: 'stored', connection: active, skill: entry.skill, version: 'published' }, after: { kind: 'file', path: entry.path } });
  };
  const openDraft = (draft: DraftView) => {
    if (draft.origin.kind === 'store' && typeof edit === 'function') edit({ connection: draft.origin.connection, skill: draft.origin.skill, preview: false });
  };

  return (
    <div className="sidebar-section workspace-section" data-testid="workspace-section">
      <div className="section-header">
        <span className="title">Workspace</span>
        {workspace && (
          <span className="workspace-root ellipsis" title={workspace.root}>
            <SafeText text={root} />
          </span>
        )}
      </div>
      {files.error && (
        <div className="inline-error workspace-hint" role="alert">
          <span className="isolate">{messageOf(files.error)}</span>
        </div>
      )}
      {files.isSuccess && !workspace && <div className="muted workspace-hint">No workspace is open. Start the workbench in a folder of packages to see them here.</div>}
      {unpublished.length > 0 && (
        <>
          <div className="workspace-group">Drafts with unpublished edits</div>
          <div role="list" aria-label="Drafts" data-testid="workspace-drafts">
            {unpublished.map((d) => {
              const o = d.origin;
              const where = o.kind === 'store' ? (connections.find((c) => c.name === o.connection)?.label ?? o.connection) : 'file';
              return (
                <button
                  key={d.id}
                  type="button"
                  role="listitem"
                  className="workspace-row"
                  title={`${visibleControls(draftTitle(d))} @ ${visibleControls(where)}: edited ${ago(d.updated_at)} ago${d.conflict ? ` (${visibleControls(d.conflict.message)})` : ''}`}
                  disabled={o.kind !== 'store'}
                  onClick={() => openDraft(d)}
                  data-testid={`workspace-draft-${draftTitle(d)}`}
                >
                  <Icon name="edit" size={14} />
                  <span className="ellipsis workspace-name">
                    <SafeText text={draftTitle(d)} />
                  </span>
                  <span className="muted workspace-detail ellipsis">
                    <SafeText text={where} />
                  </span>
                  {d.conflict && <span className="dot down" title={visibleControls(d.conflict.message)} />}
                </button>
              );
            })}
          </div>
        </>
      )}
      {workspace && (
        <>
          <div className="workspace-group">
            Packages <span className="faint">({workspace.entries.length})</span>
          </div>
          <div role="list" aria-label="Workspace packages" data-testid="workspace-files">
            {workspace.entries.map((entry) => {
              const can = !entry.skill ? (entry.problem?.message ?? 'Not a package') : !active ? 'No connection is active' : typeof diff === 'string' ? diff : true;
              return (
                <button
                  key={entry.path}
                  type="button"
                  role="listitem"
                  className="workspace-row"
                  disabled={can !== true}
                  title={can === true ? `${visibleControls(entry.path)}: compare with what ${visibleControls(activeLabel ?? '')} publishes` : visibleControls(can)}
                  onClick={() => openFile(entry)}
                  data-testid={`workspace-file-${entry.path}`}
                >
                  <Icon name={entry.problem ? 'file' : 'file-code'} size={14} />
                  <span className="ellipsis workspace-name">
                    <SafeText text={entry.skill ? `${entry.skill.namespace}/${entry.skill.name}` : (entry.path.split('/').pop() ?? entry.path)} />
                  </span>
                  {entry.draft && <span className="dirty-dot" aria-label="unsaved changes" />}
                  {entry.problem && <span className="badge warn">not a package</span>}
                </button>
              );
            })}
          </div>
        </>
      )}
    </div>
  );
}
