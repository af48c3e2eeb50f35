/**
 * One retained revision, read-only: its metadata and the package as the
 * registry normalized it. Nothing here can be edited or published; the text is
 * shown as inert text.
 */
import { useQuery } from '@tanstack/react-query';
import { SafeText } from '../shell/SafeText';
import { revisionQuery, useLastStoreChange } from '../storeData/queries';
import { UpdatedCue } from '../storeData/UpdatedCue';
import { messageOf } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import { paramsOf } from '../shell/useTabsStore';

export function RevisionView({ tab }: TabViewProps) {
  const { connection, skill, version } = paramsOf(tab, 'revision');
  // A published revision follows publications; a retained one can only turn into a tombstone.
  const query = useQuery(revisionQuery(connection, skill, version));
  const revision = query.data;
  const error = query.error ? messageOf(query.error) : undefined;
  const skillChange = useLastStoreChange(connection, skill);
  // A fixed version changes only by its deletion; the published one by every publication.
  const lastChange = version === 'published' || (skillChange?.kind === 'deleted' && skillChange.versions?.includes(version)) ? skillChange : undefined;
  const key = `${skill.namespace}/${skill.name}`;
  return (
    <div className="view revision-view" data-testid={`revision-${key}@${version}`}>
      <div className="view-header">
        <h1>
          <SafeText text={key} /> <span className="mono">{version === 'published' ? 'published' : `v${version}`}</span>
        </h1>
        <span className="badge neutral">read-only</span>
        <UpdatedCue change={lastChange} refreshing={query.isFetching && !query.isPending} testId="revision-updated" />
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
