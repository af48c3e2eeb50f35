/**
 * The "updated" cue of a view showing store data: after an event re-read it,
 * the view says so, with what changed and who changed it, highlighted for a
 * few seconds and then kept as a quiet line, so a changed head is never silent.
 */
import { useEffect, useState } from 'react';
import type { StoreChange } from '../../core/api/contract';
import { SafeText } from '../shell/SafeText';
import './updatedCue.css';

/** How long the cue stays highlighted after an update. */
const FRESH_MS = 6000;

/** What a change says in a cue: "v3 published by ana", "v1, v2 deleted", "changed elsewhere". */
export function describeChange(change: StoreChange, withSkill: boolean): string {
  const skill = withSkill && change.skill ? `${change.skill.namespace}/${change.skill.name} ` : '';
  const by = change.actor ? ` by ${change.actor}` : '';
  switch (change.kind) {
    case 'published':
      return `${skill}v${change.version ?? '?'} published${by}`;
    case 'deleted': {
      const versions = (change.versions ?? []).map((v) => `v${v}`).join(', ');
      return `${skill}${versions || 'versions'} deleted${by}`;
    }
    case 'changed':
      if (!change.skill) return 'the store changed elsewhere';
      return change.version === undefined ? `${skill}removed elsewhere` : `${skill}v${change.version} published elsewhere`;
  }
}

/** The time of day of an ISO time, as people read it. */
function timeOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/**
 * The cue for the last `change` a view followed. `refreshing` is true while
 * the view re-reads; the cue then says "Updating…".
 */
export function UpdatedCue({ change, refreshing, withSkill = false, testId }: { change: StoreChange | undefined; refreshing: boolean; withSkill?: boolean; testId: string }) {
  const [fresh, setFresh] = useState(false);
  const at = change?.at;
  useEffect(() => {
    if (!at) return;
    setFresh(true);
    const timer = setTimeout(() => setFresh(false), FRESH_MS);
    return () => clearTimeout(timer);
  }, [at]);
  if (!change) return null;
  return (
    <span className={`updated-cue${fresh ? ' fresh' : ''}`} role="status" data-testid={testId} data-state={refreshing ? 'updating' : 'updated'} data-kind={change.kind} title={change.at}>
      {refreshing ? (
        'Updating…'
      ) : (
        <>
          Updated {timeOf(change.at)}: <SafeText text={describeChange(change, withSkill)} />
        </>
      )}
    </span>
  );
}
