/**
 * The problems of a package as the editor lists them: the validator's
 * findings (errors first, then warnings, each at its JSON Pointer and text
 * range), filtered the way VS Code's problems panel filters (comma-separated
 * terms, a leading `!` excludes), and stepped through with F8 / Shift+F8 in
 * document order. Pure: no DOM, no Monaco.
 */
import type { Finding } from '../../core/package/types';

/** A position in the text (1-based line and column). */
export interface TextPosition {
  line: number;
  column: number;
}

/** A parsed filter: terms that must match (any of) and terms that must not (none of). */
export interface ProblemFilter {
  include: string[];
  exclude: string[];
}

/** Parses `text`: comma-separated terms, case-insensitive; `!term` excludes. */
export function parseProblemFilter(text: string): ProblemFilter {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const raw of text.split(',')) {
    const term = raw.trim().toLowerCase();
    if (term === '' || term === '!') continue;
    if (term.startsWith('!')) exclude.push(term.slice(1).trim());
    else include.push(term);
  }
  return { include, exclude };
}

function haystack(finding: Finding): string {
  return `${finding.path}\n${finding.code}\n${finding.message}\n${finding.severity}`.toLowerCase();
}

/**
 * The findings that pass `filter`: a finding is kept when it matches at least
 * one include term (or there are none) and no exclude term. Terms match the
 * JSON Pointer, the code, the message and the severity.
 */
export function filterProblems<F extends Finding>(findings: readonly F[], filter: string | ProblemFilter): F[] {
  const f = typeof filter === 'string' ? parseProblemFilter(filter) : filter;
  if (f.include.length === 0 && f.exclude.length === 0) return [...findings];
  return findings.filter((finding) => {
    const text = haystack(finding);
    if (f.exclude.some((term) => text.includes(term))) return false;
    return f.include.length === 0 || f.include.some((term) => text.includes(term));
  });
}

/** Where a finding sits in the text; a finding without a location sits at the top. */
export function positionOf(finding: Finding): TextPosition {
  return { line: finding.line ?? 1, column: finding.column ?? 1 };
}

function compare(a: TextPosition, b: TextPosition): number {
  return a.line - b.line || a.column - b.column;
}

/** Findings in document order (ties keep errors before warnings, then the validator's order). */
export function inDocumentOrder<F extends Finding>(findings: readonly F[]): F[] {
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => compare(positionOf(a.finding), positionOf(b.finding)) || (a.finding.severity === b.finding.severity ? 0 : a.finding.severity === 'error' ? -1 : 1) || a.index - b.index)
    .map((x) => x.finding);
}

/**
 * The problem F8 (`direction` 1) or Shift+F8 (-1) goes to from `from`: the
 * first one strictly after (before) the position, wrapping around the
 * document; undefined when there are none.
 */
export function stepProblem<F extends Finding>(findings: readonly F[], from: TextPosition, direction: 1 | -1): F | undefined {
  const ordered = inDocumentOrder(findings);
  if (ordered.length === 0) return undefined;
  if (direction === 1) return ordered.find((f) => compare(positionOf(f), from) > 0) ?? ordered[0];
  return [...ordered].reverse().find((f) => compare(positionOf(f), from) < 0) ?? ordered[ordered.length - 1];
}

/** Counts for the panel header and the status bar. */
export function countProblems(findings: readonly Finding[]): { errors: number; warnings: number } {
  let errors = 0;
  for (const f of findings) if (f.severity === 'error') errors++;
  return { errors, warnings: findings.length - errors };
}
