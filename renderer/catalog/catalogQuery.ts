/**
 * Catalog search and sort, pure and fast enough to run on every (debounced)
 * keystroke over 10,000 entries: each entry's searchable fields are folded once
 * (NFKC, lower case, controls removed) when the page arrives.
 *
 * A query is whitespace-separated terms, all of which must match. A bare term
 * matches the name, namespace, display name, a domain or a tag; a prefixed term
 * (`ns:`, `name:`, `display:`, `domain:`, `tag:`) only that field. `"quoted
 * words"` form one term.
 */
import type { SkillMetadata } from '../../core/store/types';

/** The fields a term can address. */
export type SearchField = 'name' | 'namespace' | 'display' | 'domain' | 'tag';

const PREFIXES: Record<string, SearchField> = {
  ns: 'namespace',
  namespace: 'namespace',
  name: 'name',
  display: 'display',
  domain: 'domain',
  tag: 'tag',
};

/** One term of a query. */
export interface QueryTerm {
  field?: SearchField;
  text: string;
}

/** An entry with its folded search fields. */
export interface IndexedEntry {
  /** `namespace/name`. */
  key: string;
  entry: SkillMetadata;
  name: string;
  namespace: string;
  display: string;
  domains: string[];
  tags: string[];
}

const CONTROLS = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** Folds text for matching: NFKC, lower case, invisible and direction controls removed. */
export function fold(text: string): string {
  return text.normalize('NFKC').replace(CONTROLS, '').toLowerCase();
}

/** Precomputes the search fields of a page of entries. */
export function indexEntries(entries: readonly SkillMetadata[]): IndexedEntry[] {
  return entries.map((entry) => ({
    key: `${entry.namespace}/${entry.name}`,
    entry,
    name: fold(entry.name),
    namespace: fold(entry.namespace),
    display: fold(entry.display_name),
    domains: entry.domains.map(fold),
    tags: entry.tags.map(fold),
  }));
}

/** Parses a query into terms; an unknown prefix is searched as text. */
export function parseQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const pattern = /(?:(\w+):)?(?:"([^"]*)"?|(\S+))/g;
  for (const match of query.matchAll(pattern)) {
    const prefix = match[1]?.toLowerCase();
    const value = fold(match[2] ?? match[3] ?? '');
    const field = prefix ? PREFIXES[prefix] : undefined;
    if (prefix && !field) {
      terms.push({ text: fold(`${prefix}:${value}`) });
      continue;
    }
    if (value === '') continue;
    terms.push(field ? { field, text: value } : { text: value });
  }
  return terms;
}

function termMatches(e: IndexedEntry, term: QueryTerm): boolean {
  const t = term.text;
  switch (term.field) {
    case 'name':
      return e.name.includes(t);
    case 'namespace':
      return e.namespace.includes(t);
    case 'display':
      return e.display.includes(t);
    case 'domain':
      return e.domains.some((d) => d.includes(t));
    case 'tag':
      return e.tags.some((d) => d.includes(t));
    default:
      // `billing/refund` typed whole matches the key.
      return (
        e.name.includes(t) ||
        e.namespace.includes(t) ||
        e.display.includes(t) ||
        e.domains.some((d) => d.includes(t)) ||
        e.tags.some((d) => d.includes(t)) ||
        (t.includes('/') && e.key.includes(t))
      );
  }
}

/** The entries matching every term (all entries for an empty query), in input order. */
export function filterEntries(entries: readonly IndexedEntry[], query: string): IndexedEntry[] {
  const terms = parseQuery(query);
  if (terms.length === 0) return [...entries];
  return entries.filter((e) => terms.every((term) => termMatches(e, term)));
}

/** Sortable columns. */
export type SortColumn = 'name' | 'display' | 'version' | 'updated' | 'domains' | 'tags';

/** A sort order. */
export interface SortOrder {
  column: SortColumn;
  direction: 'asc' | 'desc';
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function compareBy(column: SortColumn): (a: IndexedEntry, b: IndexedEntry) => number {
  switch (column) {
    case 'name':
      return (a, b) => collator.compare(a.key, b.key);
    case 'display':
      return (a, b) => collator.compare(a.display, b.display) || collator.compare(a.key, b.key);
    case 'version':
      return (a, b) => a.entry.version - b.entry.version || collator.compare(a.key, b.key);
    case 'updated':
      return (a, b) => a.entry.updated_at.localeCompare(b.entry.updated_at) || collator.compare(a.key, b.key);
    case 'domains':
      return (a, b) => collator.compare(a.domains.join(','), b.domains.join(',')) || collator.compare(a.key, b.key);
    case 'tags':
      return (a, b) => collator.compare(a.tags.join(','), b.tags.join(',')) || collator.compare(a.key, b.key);
  }
}

/** A sorted copy; ties fall back to the key, so the order is total and stable across reloads. */
export function sortEntries(entries: readonly IndexedEntry[], order: SortOrder): IndexedEntry[] {
  const compare = compareBy(order.column);
  const sign = order.direction === 'asc' ? 1 : -1;
  return [...entries].sort((a, b) => sign * compare(a, b));
}
