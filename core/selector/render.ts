/**
 * Rendering of the body-free catalogs and the bounded lifecycle context that
 * selector prompts carry. Catalog lines are fixed JSON (independent of the
 * prompt template) so the catalog token budget means the same thing for every
 * template.
 *
 * Isomorphic: no `node:` imports.
 */
import { estimateTokens, utf8Bytes } from '../package/tokens';
import type { PinnedCandidate, ResourceHistoryEntry, SelectionContext } from './types';
import { cut, encodeText, safeJson } from './util';

/** Longest request text placed in a selector prompt, in characters. */
export const MAX_PROMPT_REQUEST_CHARS = 16_000;
/** Bounds of the lifecycle context (guide 8, 9.5, 9.8). */
export const CONTEXT_BOUNDS = Object.freeze({
  objectiveChars: 2_000,
  priorResults: 8,
  priorResultChars: 1_000,
  expectedCapabilities: 32,
  expectedCapabilityBytes: 128,
  guidanceBytes: 4_096,
  priorSelections: 32,
});

/** One activation catalog entry: body-free identity and catalog text. */
export interface ActivationCatalogEntry {
  skill: string;
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
}

/** One resource catalog entry: body-free resource metadata of an active skill. */
export interface ResourceCatalogEntry {
  skill: string;
  name: string;
  description: string;
  load_when: string;
}

/** A rendered catalog: its lines and its estimated token count. */
export interface RenderedCatalog {
  lines: string[];
  text: string;
  tokens: number;
}

/** The activation catalog entry of a pinned candidate. */
export function activationEntry(c: PinnedCandidate): ActivationCatalogEntry {
  return { skill: c.id, display_name: c.display_name, description: c.description, domains: c.domains, tags: c.tags };
}

/** A rendered catalog line and its UTF-8 length, with the fields it was rendered from. */
interface RenderedLine {
  entry: ActivationCatalogEntry | ResourceCatalogEntry;
  line: string;
  bytes: number;
}

/**
 * Lines already rendered, keyed by an entry's frozen `domains` array. An
 * evaluation renders the same catalog for every cell; a frozen registry
 * answer (see `evals/catalog.ts`) hands the same frozen arrays to every
 * pinning, so its lines are rendered once. A hit needs every field identical
 * and both arrays frozen (their content cannot have changed), so the line is
 * exactly what rendering would produce.
 */
const renderedLines = new WeakMap<readonly string[], RenderedLine>();

function sameEntry(a: ActivationCatalogEntry | ResourceCatalogEntry, b: ActivationCatalogEntry | ResourceCatalogEntry): boolean {
  if (!('domains' in a) || !('domains' in b)) return false;
  return a.skill === b.skill && a.display_name === b.display_name && a.description === b.description && a.domains === b.domains && a.tags === b.tags;
}

function renderLine(entry: ActivationCatalogEntry | ResourceCatalogEntry): RenderedLine {
  const memo = 'domains' in entry && Object.isFrozen(entry.domains) && Object.isFrozen(entry.tags);
  if (memo) {
    const known = renderedLines.get(entry.domains);
    if (known && sameEntry(known.entry, entry)) return known;
  }
  const line = safeJson(entry);
  const rendered = { entry, line, bytes: utf8Bytes(line) };
  if (memo) renderedLines.set((entry as ActivationCatalogEntry).domains, rendered);
  return rendered;
}

/** Renders catalog entries as JSON lines (tag-like characters escaped) and estimates their tokens. */
export function renderCatalog(entries: readonly (ActivationCatalogEntry | ResourceCatalogEntry)[]): RenderedCatalog {
  const rendered = entries.map(renderLine);
  const lines = rendered.map((r) => r.line);
  const text = lines.join('\n');
  // UTF-8 lengths add up over lines and their one-byte separators.
  const bytes = rendered.reduce((sum, r) => sum + r.bytes, Math.max(0, rendered.length - 1));
  return { lines, text, tokens: estimateTokens(bytes) };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Cuts text to at most `max` UTF-8 bytes at a character boundary. */
export function cutUtf8(text: string, max: number): string {
  if (text.length * 3 <= max) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  // Step back over continuation bytes so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Normalizes expected capability hints as the runtime does: trim, drop empty and over-long, dedupe, sort, cap. */
export function normalizeCapabilities(values: readonly string[] | undefined): string[] {
  if (!values) return [];
  const set = new Set<string>();
  for (const v of values) {
    const t = v.trim();
    if (t !== '' && encoder.encode(t).length <= CONTEXT_BOUNDS.expectedCapabilityBytes) set.add(t);
  }
  return [...set].sort().slice(0, CONTEXT_BOUNDS.expectedCapabilities);
}

/** Encodes the request for a prompt: bounded and with tag-like characters escaped. */
export function renderRequest(request: string): string {
  return encodeText(cut(request, MAX_PROMPT_REQUEST_CHARS));
}

/** Renders the bounded, encoded lifecycle context as plain lines ("(none)" when empty). */
export function renderContext(context: SelectionContext | undefined): string {
  if (!context) return '(none)';
  const lines: string[] = [];
  if (context.objective?.trim()) lines.push(`objective: ${encodeText(cut(context.objective.trim(), CONTEXT_BOUNDS.objectiveChars))}`);
  const capabilities = normalizeCapabilities(context.expectedCapabilities);
  if (capabilities.length > 0) lines.push(`expected_capabilities: ${encodeText(capabilities.join(', '))}`);
  const prior = (context.priorResults ?? []).filter((r) => r.trim() !== '').slice(-CONTEXT_BOUNDS.priorResults);
  if (prior.length > 0) {
    lines.push('prior_results:');
    for (const r of prior) lines.push(`- ${encodeText(cut(r.trim(), CONTEXT_BOUNDS.priorResultChars)).replace(/\n/g, ' ')}`);
  }
  return lines.length > 0 ? lines.join('\n') : '(none)';
}

/** Renders bounded selector guidance (guide 9.5), or "(none)". */
export function renderGuidance(guidance: string | undefined): string {
  const g = guidance?.trim();
  return g ? encodeText(cutUtf8(g, CONTEXT_BOUNDS.guidanceBytes)) : '(none)';
}

/** Renders prior resource selections of the execution as JSON lines, newest last, or "(none)". */
export function renderPriorSelections(history: readonly ResourceHistoryEntry[]): string {
  if (history.length === 0) return '(none)';
  return history
    .slice(-CONTEXT_BOUNDS.priorSelections)
    .map((h) => safeJson({ boundary: h.boundary, skill: h.skill, name: h.name }))
    .join('\n');
}

