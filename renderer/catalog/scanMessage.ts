/**
 * What an empty catalog list says. A paged store is read incrementally, so
 * "no match in what has been read so far" must never read as "no match at all",
 * and an empty registry is not the same as a filter that matches nothing.
 */

/** Where a catalog scan stands. */
export interface ScanProgress {
  /** Entries read so far. */
  scanned: number;
  /** Entries the store holds, when it can tell. */
  total: number | null;
  /** The scan has read the whole catalog. */
  complete: boolean;
  /** A page is being read right now. */
  loading: boolean;
}

/** The empty-list message: a headline and a hint. */
export interface EmptyMessage {
  kind: 'loading' | 'partial' | 'none-matching' | 'empty';
  title: string;
  hint: string;
}

function count(n: number): string {
  return n.toLocaleString('en');
}

/** The message for an empty list of `query` results, or undefined when the list is not empty. */
export function emptyMessage(matches: number, query: string, scan: ScanProgress): EmptyMessage | undefined {
  if (matches > 0) return undefined;
  const filtered = query.trim().length > 0;
  if (!scan.complete && scan.scanned === 0) return { kind: 'loading', title: 'Reading the catalog…', hint: 'The first skills appear as soon as the store answers.' };
  if (!scan.complete) {
    const of = scan.total === null ? '' : ` of ${count(scan.total)}`;
    return {
      kind: 'partial',
      title: filtered ? `Nothing matches in the ${count(scan.scanned)}${of} skills read so far` : `No skills in the ${count(scan.scanned)}${of} entries read so far`,
      hint: scan.loading ? 'Still reading the rest of the catalog…' : 'The rest of the catalog has not been read yet: Scan more reads further.',
    };
  }
  if (filtered) return { kind: 'none-matching', title: 'No skill matches this filter', hint: `All ${count(scan.scanned)} skills were searched. Clear the filter (Esc) to see them all.` };
  return { kind: 'empty', title: 'This registry has no skills yet', hint: 'Publish a package to it, or switch to another connection.' };
}
