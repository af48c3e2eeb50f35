import { describe, expect, it } from 'vitest';
import { cursorText } from '../../../../renderer/shell/useStatusStore';

describe("the status bar's cursor item", () => {
  it('reads as line and column, with the selection counted only when there is one', () => {
    expect(cursorText({ line: 12, column: 5, selected: 0, selections: 1 })).toBe('Ln 12, Col 5');
    expect(cursorText({ line: 38, column: 58, selected: 51, selections: 1 })).toBe('Ln 38, Col 58 (51 selected)');
  });

  it('counts cursors instead of naming one position when there are several', () => {
    expect(cursorText({ line: 3, column: 1, selected: 0, selections: 3 })).toBe('3 selections');
    expect(cursorText({ line: 3, column: 9, selected: 24, selections: 3 })).toBe('3 selections (24 selected)');
  });
});
