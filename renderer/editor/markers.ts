/**
 * Validation findings as Monaco markers at the exact ranges the validator
 * located (1-based, end exclusive, as Monaco counts). A finding without an end
 * marks to the end of its line; one without a location marks the first line.
 */
import type { Finding } from '../../core/package/types';

/** A marker in Monaco's shape (severity: 8 error, 4 warning). */
export interface MarkerData {
  severity: 8 | 4;
  message: string;
  code: string;
  source: string;
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}

/** What the conversion needs to know about the text. */
export interface LineLengths {
  lineCount: number;
  /** Characters of line `n` (1-based), without the line break. */
  lineLength(n: number): number;
}

/** The marker of one finding. */
export function markerOf(finding: Finding, lines: LineLengths, source = 'skillbench'): MarkerData {
  const clampLine = (n: number) => Math.min(Math.max(1, n), Math.max(1, lines.lineCount));
  const startLine = clampLine(finding.line ?? 1);
  const startColumn = Math.max(1, finding.column ?? 1);
  let endLine = finding.endLine !== undefined ? clampLine(finding.endLine) : startLine;
  let endColumn = finding.endColumn ?? lines.lineLength(startLine) + 1;
  if (endLine < startLine || (endLine === startLine && endColumn <= startColumn)) {
    endLine = startLine;
    endColumn = Math.max(startColumn + 1, lines.lineLength(startLine) + 1);
  }
  return {
    severity: finding.severity === 'error' ? 8 : 4,
    message: `${finding.message}${finding.path ? ` (${finding.path})` : ''}`,
    code: finding.code,
    source,
    startLineNumber: startLine,
    startColumn,
    endLineNumber: endLine,
    endColumn,
  };
}

/** Markers of every finding. */
export function markersOf(findings: readonly Finding[], lines: LineLengths, source?: string): MarkerData[] {
  return findings.map((f) => markerOf(f, lines, source));
}
