/**
 * The virtualized case × model matrix: one row per visible case, one slot per
 * model and variant showing its repeats (correct / recorded, the reports'
 * verdict colour, unusable answers in their own colour, an amber frame when
 * flaky). Only the rows in view exist in
 * the DOM, so a 10,000-cell result scrolls like a short one.
 */
import { forwardRef, memo } from 'react';
import { correctCount } from '../../core/report/repeats';
import { formatRate } from '../../core/report/format';
import type { EvalSummary } from '../../evals/types';
import { VirtualList, type VirtualListHandle } from '../shell/VirtualList';
import type { MatrixModel } from './matrix';

/** Row height of the matrix, in pixels. */
export const MATRIX_ROW_HEIGHT = 30;
const CASE_WIDTH = 320;
/** A wide window gives the request column its room, up to this width. */
const CASE_MAX_WIDTH = 760;
const SLOT_WIDTH = 150;
/** The request column: 320 px, growing into a wide window's spare width. */
const CASE_STYLE = { width: CASE_WIDTH, flex: '1 0 auto', maxWidth: CASE_MAX_WIDTH } as const;

const GLYPH = { pass: '✓', fail: '✗', invalid: '?', error: '!', pending: '…', na: '' } as const;

/** The single skill row of a (model, variant) column, when the run has one skill: its precision and recall head the column. */
function columnRates(summary: EvalSummary | null, model: string, variant: string): string | undefined {
  const skills = summary?.models.find((m) => m.model === model)?.skills.filter((s) => s.variant === variant);
  if (!skills || skills.length !== 1) return undefined;
  return `P ${formatRate(skills[0]!.precision)} · R ${formatRate(skills[0]!.recall)}`;
}

interface Props {
  matrix: MatrixModel;
  summary: EvalSummary | null;
  rows: number[];
  selected: { row: number; col: number };
  onSelect(row: number, col: number, open: boolean): void;
  /** Bumped when cells landed (forces a redraw of the rows in view). */
  version: number;
}

export const MatrixGrid = memo(
  forwardRef<VirtualListHandle, Props>(function MatrixGrid({ matrix, summary, rows, selected, onSelect }, ref) {
    const width = `max(${CASE_WIDTH + matrix.columns.length * SLOT_WIDTH}px, 100%)`;
    const header = (
      <div className="matrix-header" style={{ width, height: MATRIX_ROW_HEIGHT * 1.6 }} role="row">
        <div className="matrix-case" role="columnheader" style={CASE_STYLE}>
          case (expected)
        </div>
        {matrix.columns.map((c) => {
          const progress = matrix.columnProgress(c.index);
          const rates = columnRates(summary, c.model, c.variant);
          return (
            <div key={c.index} className="matrix-col-head" role="columnheader" style={{ width: SLOT_WIDTH }} title={`${c.model} · ${c.variant}: ${progress.recorded} of ${progress.expected} cells`} data-testid="matrix-column">
              <span className="ellipsis mono">{c.label}</span>
              <span className="faint ellipsis">
                {c.variant}
                {rates ? ` · ${rates}` : ''}
              </span>
            </div>
          );
        })}
      </div>
    );
    return (
      <VirtualList
        ref={ref}
        className="matrix"
        count={rows.length}
        rowHeight={MATRIX_ROW_HEIGHT}
        header={header}
        headerHeight={MATRIX_ROW_HEIGHT * 1.6}
        containerProps={{ role: 'grid', 'aria-label': 'Cases by model', 'aria-rowcount': rows.length, 'data-testid': 'matrix', tabIndex: 0 }}
        renderRow={(i, style) => {
          const r = rows[i]!;
          const row = matrix.rows[r]!;
          const isRow = i === selected.row;
          return (
            <div key={r} className={`matrix-row${isRow ? ' current' : ''}`} style={{ ...style, width }} role="row" aria-rowindex={i + 1} data-testid="matrix-row" data-case={row.case.id}>
              <div className="matrix-case" role="rowheader" style={CASE_STYLE} title={row.case.request}>
                <span className={`expect ${row.case.expect === 'activate' ? 'act' : 'skip'}`}>{row.case.expect === 'activate' ? '+ ACT' : '− SKIP'}</span>
                <bdi className="ellipsis">{row.case.request}</bdi>
              </div>
              {matrix.columns.map((c) => {
                const state = matrix.state(r, c.index);
                const counts = matrix.slot(r, c.index);
                const flaky = state !== 'na' && state !== 'pending' && matrix.flaky(r, c.index);
                const isSel = isRow && c.index === selected.col;
                return (
                  <div
                    key={c.index}
                    role="gridcell"
                    aria-selected={isSel}
                    className={`slot ${state}${flaky ? ' flaky' : ''}${isSel ? ' selected' : ''}`}
                    style={{ width: SLOT_WIDTH }}
                    data-testid="slot"
                    data-state={state}
                    data-col={c.index}
                    onClick={() => onSelect(i, c.index, false)}
                    onDoubleClick={() => onSelect(i, c.index, true)}
                  >
                    {state === 'na' ? (
                      <span className="faint">n/a</span>
                    ) : (
                      <>
                        <span className="glyph">{GLYPH[state]}</span>
                        <span className="n">
                          {correctCount(counts)}/{counts.n}
                          {counts.n < counts.expected ? <span className="faint"> of {counts.expected}</span> : null}
                        </span>
                        {counts.invalid > 0 && <span className="slot-tag inv" title="Answers the runtime could not use (strict decoding or revalidation rejected them)">{counts.invalid} unusable</span>}
                        {counts.errors > 0 && <span className="slot-tag err">{counts.errors} err</span>}
                        {flaky && <span className="slot-tag flaky">flaky</span>}
                      </>
                    )}
                  </div>
                );
              })}
            </div>
          );
        }}
      />
    );
  }),
);
