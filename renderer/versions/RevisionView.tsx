/**
 * One retained revision, read-only: its metadata and the package as the
 * registry normalized it. Nothing here can be edited or published; the text is
 * shown as inert text.
 */
import { useEffect, useState } from 'react';
import type { SkillId } from '../../core/package/types';
import { workbenchClient, type PackageRevision } from '../api/client';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';

export function RevisionView({ tab }: TabViewProps) {
  const connection = String(tab.params['connection'] ?? '');
  const skill = tab.params['skill'] as SkillId;
  const version = tab.params['version'] as number | 'published';
  const [revision, setRevision] = useState<PackageRevision | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const api = workbenchClient();
    const read = version === 'published' ? api['packages.get']({ connection, skill, version }) : api['versions.get']({ connection, skill, version });
    read.then((r) => live && setRevision(r)).catch((e: unknown) => live && setError(messageOf(e)));
    return () => {
      live = false;
    };
  }, [connection, skill.namespace, skill.name, version]);
  const key = `${skill.namespace}/${skill.name}`;
  return (
    <div className="view revision-view" data-testid={`revision-${key}@${version}`}>
      <div className="view-header">
        <h1>
          <SafeText text={key} /> <span className="mono">{version === 'published' ? 'published' : `v${version}`}</span>
        </h1>
        <span className="badge neutral">read-only</span>
        {revision?.published && <span className="badge ok">PUBLISHED</span>}
        {revision && (
          <span className="muted" title={revision.created_at}>
            {new Date(revision.created_at).toLocaleString('en')} · “<SafeText text={revision.package.change_reason ?? ''} />”
          </span>
        )}
      </div>
      {error && (
        <div className="inline-error catalog-error" role="alert" data-testid="revision-error">
          <span className="isolate">{error}</span>
        </div>
      )}
      {revision && (
        <pre className="revision-text mono" data-testid="revision-text" tabIndex={0} data-autofocus>
          <SafeText text={revision.text} />
        </pre>
      )}
    </div>
  );
}
