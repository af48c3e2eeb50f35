/**
 * The diff tab: Monaco's diff editor over both sides' normalized JSON (so key
 * order and whitespace never show), with the semantic summary of
 * `core/package` on top; a chip click jumps to the change. Side by side or
 * inline, unchanged regions hidden or shown, F7 / Shift+F7 between changes.
 * A side that is an open editor's draft follows its edits.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DiffView as DiffResult } from '../../core/api/contract';
import { parseJsonDocument } from '../../core/package/parse';
import { workbenchClient } from '../api/client';
import { useCommands } from '../shell/commands';
import { SafeText } from '../shell/SafeText';
import { useTabScope } from '../shell/Tabs';
import { messageOf } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import { monaco, monacoTheme } from '../editor/monaco';
import { useEditorStore } from '../editor/useEditorStore';
import { concerns, useStoreChanges } from '../storeData/queries';
import { UpdatedCue } from '../storeData/UpdatedCue';
import { headline, summaryChips, type SummaryChip } from './summary';
import { resolveSide, type DiffSide } from './sides';
import './diff.css';
import { paramsOf } from '../shell/useTabsStore';


/** The latest store change that alters a stored side (a publication for `published`, a deletion for a fixed version). */
function useSideChange(side: DiffSide) {
  return useStoreChanges((s) => {
    if (side.kind !== 'stored') return undefined;
    for (let i = s.changes.length - 1; i >= 0; i--) {
      const change = s.changes[i]!;
      if (!concerns(change, side.connection, side.skill)) continue;
      if (side.version === 'published' ? change.kind !== 'deleted' : change.kind === 'deleted' && change.versions?.includes(side.version)) return change;
    }
    return undefined;
  });
}

type State = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; result: DiffResult };

function useSideText(side: DiffSide): string | undefined {
  return useEditorStore((s) => (side.kind === 'editor' ? s.docs[side.tabId]?.text : undefined));
}

export function DiffView({ tab, active }: TabViewProps) {
  const params = paramsOf(tab, 'diff');
  const scope = useTabScope();
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const [state, setState] = useState<State>({ state: 'loading' });
  const [inline, setInline] = useState(false);
  const [hideUnchanged, setHideUnchanged] = useState(true);
  const beforeText = useSideText(params.before);
  const afterText = useSideText(params.after);
  const beforeChange = useSideChange(params.before);
  const afterChange = useSideChange(params.after);
  const lastChange = [beforeChange, afterChange].filter((c) => c !== undefined).sort((a, b) => a.at.localeCompare(b.at)).pop();
  const [refreshing, setRefreshing] = useState(false);

  // Resolve both sides through the host (drafts in an editor go as text), debounced while typing.
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => {
      const api = workbenchClient();
      setRefreshing(true);
      Promise.all([resolveSide(params.before), resolveSide(params.after)])
        .then(([before, after]) => api['diff.packages']({ before, after }))
        .then((result) => !cancelled && setState({ state: 'ready', result }))
        .catch((error: unknown) => !cancelled && setState({ state: 'failed', message: messageOf(error) }))
        .finally(() => !cancelled && setRefreshing(false));
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // A store change of a stored side (a new head, a deleted version) compares again.
  }, [params.before, params.after, beforeText, afterText, beforeChange?.at, afterChange?.at]);

  // The diff editor lives as long as the tab.
  useEffect(() => {
    if (!host.current) return;
    const editor = monaco.editor.createDiffEditor(host.current, {
      theme: monacoTheme(),
      automaticLayout: true,
      readOnly: true,
      originalEditable: false,
      renderSideBySide: true,
      useInlineViewWhenSpaceIsLimited: false,
      minimap: { enabled: false },
      wordWrap: 'on',
      links: false,
      scrollBeyondLastLine: false,
      hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 3, revealLineCount: 20 },
      ariaLabel: 'Package diff',
    });
    editorRef.current = editor;
    return () => {
      const model = editor.getModel();
      editor.dispose();
      model?.original.dispose();
      model?.modified.dispose();
      editorRef.current = null;
    };
  }, []);

  // Fresh models for each result: the diff editor computes its unchanged regions when its model is set.
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor || state.state !== 'ready') return;
    const previous = editor.getModel();
    if (previous && previous.original.getValue() === state.result.before.text && previous.modified.getValue() === state.result.after.text) return;
    const original = monaco.editor.createModel(state.result.before.text, 'json');
    const modified = monaco.editor.createModel(state.result.after.text, 'json');
    // Keep the reader's place when a draft side changes while typing.
    const top = previous ? editor.getModifiedEditor().getScrollTop() : 0;
    editor.setModel({ original, modified });
    if (previous) editor.getModifiedEditor().setScrollTop(top);
    previous?.original.dispose();
    previous?.modified.dispose();
  }, [state]);

  useEffect(() => {
    editorRef.current?.updateOptions({ renderSideBySide: !inline, hideUnchangedRegions: { enabled: hideUnchanged } });
  }, [inline, hideUnchanged]);

  useEffect(() => {
    if (active) editorRef.current?.layout();
  }, [active]);

  const chips = useMemo(() => (state.state === 'ready' ? summaryChips(state.result.diff) : []), [state]);
  const head = state.state === 'ready' ? headline(state.result.diff) : undefined;

  const jump = (chip: SummaryChip) => {
    const editor = editorRef.current;
    if (!editor || state.state !== 'ready') return;
    const text = chip.side === 'before' ? state.result.before.text : state.result.after.text;
    const parsed = parseJsonDocument(text);
    const range = parsed.ok ? (parsed.locate(chip.pointer) ?? parsed.locate(chip.pointer.split('/').slice(0, -1).join('/'))) : undefined;
    if (!range) return;
    // Inline view shows removed lines in the modified editor's zones; jump to the nearest place there.
    const target = chip.side === 'before' && !inline ? editor.getOriginalEditor() : editor.getModifiedEditor();
    if (chip.side === 'before' && inline) {
      const change = editor.getLineChanges()?.find((c) => c.originalStartLineNumber <= range.line && range.line <= Math.max(c.originalEndLineNumber, c.originalStartLineNumber));
      const line = change ? Math.max(1, change.modifiedStartLineNumber) : 1;
      target.revealLineInCenter(line);
      target.setPosition({ lineNumber: line, column: 1 });
    } else {
      target.revealLineInCenter(range.line);
      target.setPosition({ lineNumber: range.line, column: range.column });
    }
    target.focus();
  };

  useCommands(scope, {
    'diff.nextChange': () => {
      editorRef.current?.goToDiff('next');
    },
    'diff.previousChange': () => {
      editorRef.current?.goToDiff('previous');
    },
    'diff.toggleInline': () => setInline((v) => !v),
    'diff.toggleUnchanged': () => setHideUnchanged((v) => !v),
  });

  const beforeLabel = state.state === 'ready' ? state.result.before.label : '…';
  const afterLabel = state.state === 'ready' ? state.result.after.label : '…';

  return (
    <div className="diff-view" data-testid="diff-view">
      <header className="toolbar diff-toolbar">
        <span className="toolbar-title diff-title isolate" data-testid="diff-title">
          Changes <SafeText text={beforeLabel} /> → <SafeText text={afterLabel} />
        </span>
        <UpdatedCue change={lastChange} refreshing={refreshing && lastChange !== undefined} testId="diff-updated" />
        <span className="spacer" />
        <div className="segmented" role="group" aria-label="Layout">
          <button type="button" className={`btn small${!inline ? ' primary' : ''}`} aria-pressed={!inline} onClick={() => setInline(false)} data-testid="diff-side-by-side">
            Side by side
          </button>
          <button type="button" className={`btn small${inline ? ' primary' : ''}`} aria-pressed={inline} onClick={() => setInline(true)} data-testid="diff-inline">
            Inline
          </button>
        </div>
        <label className="diff-toggle">
          <input type="checkbox" checked={hideUnchanged} onChange={(e) => setHideUnchanged(e.target.checked)} data-testid="diff-hide-unchanged" />
          Hide unchanged
        </label>
        <span className="muted diff-keys">F7 / Shift+F7</span>
      </header>
      <section className="diff-summary" aria-label="Summary of changes" data-testid="diff-summary" data-kind={head?.kind ?? 'loading'}>
        {state.state === 'loading' && <span className="muted">Comparing…</span>}
        {state.state === 'failed' && (
          <span className="err" data-testid="diff-error">
            <SafeText text={state.message} />
          </span>
        )}
        {head && (
          <strong className={head.kind === 'changes' ? undefined : 'muted'} data-testid="diff-headline">
            {head.text}
          </strong>
        )}
        {chips.map((chip, i) => (
          <button
            type="button"
            key={`${chip.pointer}:${chip.text}:${i}`}
            className={`diff-chip ${chip.sign === '+' ? 'added' : chip.sign === '−' ? 'removed' : 'changed'}`}
            title={`${chip.group}: ${chip.pointer || '/'}`}
            onClick={() => jump(chip)}
            data-testid="diff-chip"
            data-pointer={chip.pointer}
          >
            {chip.sign}
            <SafeText text={chip.text} />
          </button>
        ))}
      </section>
      <div className="diff-monaco" ref={host} data-autofocus tabIndex={-1} onFocus={(e) => e.target === e.currentTarget && editorRef.current?.getModifiedEditor().focus()} data-testid="diff-monaco" />
    </div>
  );
}
