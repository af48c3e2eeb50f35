/**
 * Normalization of a V1 package (guide section 4, "Normalization and
 * deterministic validation"). Normalization only changes form, never intent:
 *
 * - line endings: CRLF and CR become LF in every text field, resource content included;
 * - trimming: metadata and instruction entries lose surrounding whitespace
 *   (display_name, description, change_reason, domains, tags, every entry of
 *   planning_instructions, response_instructions, tool_hints and
 *   activation_examples, and a resource's name, description, load_when,
 *   applies_to entries and content_type). Resource `content` is a body, not an
 *   entry: it keeps its whitespace;
 * - domains and tags: lowercased, deduplicated and sorted by code point, as the
 *   guide says those values are lowercase labels;
 * - resource names are NOT lowercased: a resource name is an identifier other
 *   text may refer to, so `Checklist` is reported as an invalid slug instead of
 *   being silently rewritten;
 * - omitted optional fields become empty values (`applies_to: []` means every
 *   boundary, `required_when_selected` defaults to false).
 *
 * Normalization does not validate: out-of-range values (an unknown boundary, a
 * non-slug tag) pass through for the validator to report. It is idempotent.
 *
 * Isomorphic: no `node:` imports.
 */
import type { Boundary, ResourceContentType, SkillPackage, SkillResource } from './types';

/** One resource as submitted: optional fields may be omitted. */
export interface SkillResourceInput {
  name: string;
  description: string;
  load_when: string;
  applies_to?: string[];
  required_when_selected?: boolean;
  content_type: string;
  content: string;
}

/** A package as submitted (the wire format): optional fields may be omitted. */
export interface SkillPackageInput {
  display_name: string;
  description: string;
  domains?: string[];
  tags?: string[];
  planning_instructions: string[];
  response_instructions?: string[];
  tool_hints?: string[];
  resources?: SkillResourceInput[];
  activation_examples?: { should_activate?: string[]; should_not_activate?: string[] };
  change_reason: string;
}

/** Converts CRLF and lone CR line endings to LF. */
export function normalizeLineEndings(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Normalizes one metadata value or instruction entry: LF line endings, trimmed. */
export function normalizeEntry(text: string): string {
  return normalizeLineEndings(text).trim();
}

/** Compares strings by Unicode code point (not UTF-16 unit), the order canonical forms use. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800-DFFF) encode code points above U+FFFF, so they sort after U+E000-FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Normalizes a domain or tag list: trimmed, lowercased, deduplicated, sorted by code point. */
export function normalizeLabels(labels: readonly string[]): string[] {
  const set = new Set<string>();
  for (const label of labels) set.add(normalizeEntry(label).toLowerCase());
  return [...set].sort(compareCodePoints);
}

function entries(list: readonly string[] | undefined): string[] {
  return list === undefined ? [] : list.map(normalizeEntry);
}

function normalizeResource(resource: SkillResourceInput): SkillResource {
  return {
    name: normalizeEntry(resource.name),
    description: normalizeEntry(resource.description),
    load_when: normalizeEntry(resource.load_when),
    applies_to: entries(resource.applies_to) as Boundary[],
    required_when_selected: resource.required_when_selected ?? false,
    content_type: normalizeEntry(resource.content_type) as ResourceContentType,
    content: normalizeLineEndings(resource.content),
  };
}

/**
 * Returns the normalized form of a package (see the module comment for the
 * rules). The input is not modified; fields outside the V1 format are dropped.
 */
export function normalizePackage(input: SkillPackageInput): SkillPackage {
  return {
    display_name: normalizeEntry(input.display_name),
    description: normalizeEntry(input.description),
    domains: normalizeLabels(input.domains ?? []),
    tags: normalizeLabels(input.tags ?? []),
    planning_instructions: entries(input.planning_instructions),
    response_instructions: entries(input.response_instructions),
    tool_hints: entries(input.tool_hints),
    resources: (input.resources ?? []).map(normalizeResource),
    activation_examples: {
      should_activate: entries(input.activation_examples?.should_activate),
      should_not_activate: entries(input.activation_examples?.should_not_activate),
    },
    change_reason: normalizeEntry(input.change_reason),
  };
}
