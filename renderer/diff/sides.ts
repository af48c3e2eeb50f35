/**
 * One side of a diff as a tab remembers it: a package source of the
 * WorkbenchApi (a stored revision on any connection, a host draft, a
 * workspace file), or the draft of an open editor tab, sent as its text.
 */
import type { WorkbenchParams } from '../../core/api/contract';
import { useEditorStore } from '../editor/useEditorStore';

/** The skill a side shows, when it names one. */
export function sideSkill(side: DiffSide): { namespace: string; name: string } | undefined {
  return side.kind === 'stored' ? side.skill : undefined;
}

/** A source the host resolves. */
export type PackageSource = WorkbenchParams['diff.packages']['before'];

/** A diff side: a host source, or an editor tab's draft. */
export type DiffSide = Exclude<PackageSource, { kind: 'text' }> | { kind: 'editor'; tabId: string; label: string };

/** The source to send for `side`; an editor that is no longer open is an error that says so. */
export async function resolveSide(side: DiffSide): Promise<PackageSource> {
  if (side.kind !== 'editor') return side;
  const doc = useEditorStore.getState().docs[side.tabId];
  if (!doc) throw new Error(`${side.label} is not open any more: open the skill again to compare its draft`);
  return { kind: 'text', text: doc.text, label: side.label };
}

/** A short description of a side for tab titles; `labelOf` names a connection as people know it (its label). */
export function sideTitle(side: DiffSide, labelOf: (connection: string) => string = (c) => c): string {
  switch (side.kind) {
    case 'editor':
      return side.label;
    case 'stored':
      return `${labelOf(side.connection)} ${side.version === 'published' ? 'published' : `v${side.version}`}`;
    case 'draft':
      return 'draft';
    case 'file':
      return side.path.split('/').pop() ?? side.path;
  }
}
