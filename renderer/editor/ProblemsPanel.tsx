/**
 * The problems panel: every finding of the active document with its JSON
 * Pointer and line, a filter (comma-separated terms, `!term` excludes), and a
 * click (or Enter) that puts the cursor on the problem.
 */
import { forwardRef, useMemo, useState } from 'react';
import type { Finding } from '../../core/package/types';
import { SafeText } from '../shell/SafeText';
import { countProblems, filterProblems, inDocumentOrder } from './problems';

export interface ProblemsPanelProps {
  findings: Finding[];
  /** Where the findings come from, when not the live validator ("registry: publish refused"). */
  source?: string;
  onSelect(finding: Finding): void;
}

export const ProblemsPanel = forwardRef<HTMLInputElement, ProblemsPanelProps>(function ProblemsPanel({ findings, source, onSelect }, filterRef) {
  const [filter, setFilter] = useState('');
  const ordered = useMemo(() => {
    const errors = inDocumentOrder(findings.filter((f) => f.severity === 'error'));
    const warnings = inDocumentOrder(findings.filter((f) => f.severity !== 'error'));
    return [...errors, ...warnings];
  }, [findings]);
  const shown = useMemo(() => filterProblems(ordered, filter), [ordered, filter]);
  const counts = countProblems(findings);
  return (
    <section className="problems" aria-label="Problems" data-testid="problems-panel">
      <header className="problems-header">
        <strong>Problems</strong>
        <span className={counts.errors ? 'err' : undefined} data-testid="problems-errors">
          ✖ {counts.errors}
        </span>
        <span className={counts.warnings ? 'warn' : undefined} data-testid="problems-warnings">
          ⚠ {counts.warnings}
        </span>
        {source && (
          <span className="problems-source" data-testid="problems-source">
            {source}
          </span>
        )}
        <input
          ref={filterRef}
          className="problems-filter"
          type="search"
          placeholder="Filter (e.g. description, !warning)"
          aria-label="Filter problems: comma-separated terms, ! to exclude"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="problems-filter"
          spellCheck={false}
        />
        {filter && (
          <span className="muted" data-testid="problems-shown">
            {shown.length} of {findings.length}
          </span>
        )}
      </header>
      <ul className="problems-list" role="listbox" aria-label="Problem list">
        {shown.length === 0 && <li className="muted problems-empty">{findings.length === 0 ? 'No problems.' : 'No problem matches the filter.'}</li>}
        {shown.map((f, i) => (
          <li
            key={`${f.code}:${f.path}:${f.line ?? 0}:${f.column ?? 0}:${i}`}
            role="option"
            aria-selected={false}
            tabIndex={0}
            className={`problem ${f.severity}`}
            data-testid={`problem-${f.code}`}
            data-pointer={f.path}
            data-line={f.line}
            onClick={() => onSelect(f)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onSelect(f);
              }
            }}
          >
            <span className={f.severity === 'error' ? 'err' : 'warn'} aria-label={f.severity}>
              {f.severity === 'error' ? '✖' : '⚠'}
            </span>
            <code className="problem-path">{f.path || '(package)'}</code>
            <span className="problem-message">
              <SafeText text={f.message} />
            </span>
            <span className="problem-line muted">{f.line ? `Ln ${f.line}, Col ${f.column ?? 1}` : ''}</span>
          </li>
        ))}
      </ul>
    </section>
  );
});
