import { describe, expect, it } from 'vitest';
import { validatePackage } from '../../../../core/package/index';
import { markerOf, markersOf } from '../../../../renderer/editor/markers';

function linesOf(text: string) {
  const lines = text.split('\n');
  return { lineCount: lines.length, lineLength: (n: number) => lines[n - 1]?.length ?? 0 };
}

describe('editor markers', () => {
  it('put each finding at the range the validator located', () => {
    const text = '{\n  "display_name": "X",\n  "colour": 1,\n  "description": "Use when testing.",\n  "planning_instructions": ["Do it."],\n  "change_reason": "t"\n}';
    const check = validatePackage(text);
    const unknown = check.errors.find((e) => e.path === '/colour')!;
    const marker = markerOf(unknown, linesOf(text));
    expect(marker.severity).toBe(8);
    expect(marker.startLineNumber).toBe(unknown.line);
    expect(marker.startColumn).toBe(unknown.column);
    expect(marker.endLineNumber).toBe(unknown.endLine ?? unknown.line);
    expect(text.split('\n')[marker.startLineNumber - 1]!.slice(marker.startColumn - 1)).toMatch(/^"colour"/);
    expect(markersOf([...check.errors, ...check.warnings], linesOf(text))).toHaveLength(check.errors.length + check.warnings.length);
  });

  it('marks a finding without a location on the first line, never an empty range', () => {
    const marker = markerOf({ severity: 'warning', code: 'manifest_tokens_high', path: '', message: 'large' }, linesOf('{\n}'));
    expect(marker).toMatchObject({ severity: 4, startLineNumber: 1, startColumn: 1, endLineNumber: 1, endColumn: 2 });
  });

  it('clamps a location past the end of the text', () => {
    const marker = markerOf({ severity: 'error', code: 'x', path: '/a', message: 'm', line: 40, column: 1 }, linesOf('{}'));
    expect(marker.startLineNumber).toBe(1);
  });
});
