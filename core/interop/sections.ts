/**
 * The parts of a SKILL.md body that map to V1 fields rather than to
 * resources: a leading `# Title` (the display name), `## Planning
 * instructions`, `## Response instructions` and `## Tool hints` sections made
 * of one list (one entry per item), and a `## References` list in the layout
 * `skillbench export` writes (each item a link to a reference file with its
 * description and "Load when:" line). Anything else stays in the body.
 *
 * The lists are parsed with `remark-parse`; only the small section is parsed,
 * never the whole body (see `outline.ts` for why).
 *
 * Isomorphic: no `node:` imports.
 */
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import type { List, Root } from 'mdast';
import { BOUNDARIES, type Boundary, type ResourceContentType } from '../package/types';
import { isSlug } from '../package/rules';
import type { Outline, OutlineHeading } from './outline';

/** The V1 list fields a body section can carry, by the section's title (lowercase). */
export const INSTRUCTION_SECTIONS = {
  'planning instructions': 'planning_instructions',
  'response instructions': 'response_instructions',
  'tool hints': 'tool_hints',
} as const;

/** Titles of the sections as export writes them, by field. */
export const SECTION_TITLES = {
  planning_instructions: 'Planning instructions',
  response_instructions: 'Response instructions',
  tool_hints: 'Tool hints',
} as const;

/** The title of the reference list export writes. */
export const REFERENCES_TITLE = 'References';

/** The labels of a reference entry's lines after its description. */
export const REFERENCE_LABELS = { load_when: 'Load when', applies_to: 'Applies to', required: 'Required when selected', content_type: 'Content type' } as const;

type InstructionField = (typeof INSTRUCTION_SECTIONS)[keyof typeof INSTRUCTION_SECTIONS];

/** A reference file's resource fields as a `## References` entry gives them. */
export interface ReferenceEntry {
  name: string;
  /** The linked path, relative to the skill folder. */
  path: string;
  description: string;
  load_when: string;
  applies_to: Boundary[];
  required_when_selected: boolean;
  content_type: ResourceContentType;
}

/** What the body holds besides its free text. */
export interface BodySections {
  /** The body without the title and the recognised sections (the pieces joined, blank lines at the ends dropped). */
  rest: string;
  /** The leading `# Title`, when the body starts with one. */
  title?: { text: string; line: number };
  instructions: Record<InstructionField, string[]>;
  /** Reference entries by linked path. */
  references: Map<string, ReferenceEntry>;
  /** Titles of the sections taken out of the body, for the report. */
  taken: string[];
}

/** Largest section parsed for a list: instruction fields are bounded far below this by the manifest limit. */
const MAX_SECTION_CHARS = 64 * 1024;

const parser = unified().use(remarkParse);

/** The items of the list a fragment starts with (their text, marker and indentation removed), and where the list ends. */
export function leadingList(fragment: string): { items: string[]; end: number } | undefined {
  const bounded = fragment.length > MAX_SECTION_CHARS ? fragment.slice(0, MAX_SECTION_CHARS) : fragment;
  const tree = parser.parse(bounded) as Root;
  const list = tree.children[0];
  if (!list || list.type !== 'list') return undefined;
  const end = list.position!.end.offset!;
  if (bounded.length < fragment.length && end >= bounded.length) return undefined;
  const children = (list as List).children;
  const items = children.map((item, index) => {
    const start = item.position!.start.offset!;
    // Items never overlap: an unclosed HTML block can make micromark end one inside the next item's marker.
    const next = children[index + 1];
    const end = Math.min(item.position!.end.offset!, next ? next.position!.start.offset! : Infinity);
    const source = bounded.slice(start, end);
    const first = item.children[0];
    // The content column of the item: continuation lines are indented by it.
    const column = first ? first.position!.start.column - 1 : 0;
    const markerWidth = first ? first.position!.start.offset! - start : source.length;
    const lines = source.slice(markerWidth).split('\n');
    const rest = lines.slice(1).map((line) => {
      let i = 0;
      while (i < column && i < line.length && line[i] === ' ') i++;
      return line.slice(i);
    });
    return [lines[0] ?? '', ...rest].join('\n').trim();
  });
  return { items, end };
}

/** Parses one `## References` entry; undefined when it is not in export's layout. */
function referenceEntry(item: string, markdownPaths: ReadonlySet<string>): ReferenceEntry | undefined {
  const link = /^\[([^\]\n]+)\]\(([^()\s]+)\)(?::[ \t]*)?/.exec(item);
  if (!link) return undefined;
  const [, name, path] = link;
  if (!isSlug(name!) || !markdownPaths.has(path!)) return undefined;
  const rest = item.slice(link[0].length);
  const labels = Object.values(REFERENCE_LABELS).join('|');
  const parts = rest.split(new RegExp(`\\n(?=(?:${labels}):)`));
  const description = parts[0]!.trim();
  const fields = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const m = new RegExp(`^(${labels}):[ \\t]?([\\s\\S]*)$`).exec(part);
    if (!m || fields.has(m[1]!)) return undefined;
    fields.set(m[1]!, m[2]!.trim());
  }
  const loadWhen = fields.get(REFERENCE_LABELS.load_when);
  if (!description || !loadWhen) return undefined;
  const appliesText = fields.get(REFERENCE_LABELS.applies_to);
  const applies = appliesText === undefined ? [] : appliesText.split(/\s*,\s*/);
  if (!applies.every((b) => (BOUNDARIES as readonly string[]).includes(b))) return undefined;
  const required = fields.get(REFERENCE_LABELS.required);
  if (required !== undefined && required !== 'yes' && required !== 'no') return undefined;
  const contentType = fields.get(REFERENCE_LABELS.content_type) ?? 'text/markdown';
  if (contentType !== 'text/markdown' && contentType !== 'text/plain') return undefined;
  return {
    name: name!,
    path: path!,
    description,
    load_when: loadWhen,
    applies_to: applies as Boundary[],
    required_when_selected: required === 'yes',
    content_type: contentType,
  };
}

/** Where the section under `heading` ends: the next heading of depth 1 or 2, or the end. */
function sectionEnd(structure: Outline, index: number, length: number): number {
  for (let i = index + 1; i < structure.headings.length; i++) {
    if (structure.headings[i]!.depth <= 2) return structure.headings[i]!.start;
  }
  return length;
}

/**
 * Finds the title and the recognised sections of `body` (LF line endings,
 * `structure` its outline). `markdownPaths` are the folder's markdown files:
 * a `## References` list is taken only when every item links one of them in
 * export's layout. `bodyLine` is the SKILL.md line the body starts on.
 */
export function bodySections(body: string, structure: Outline, markdownPaths: ReadonlySet<string>, bodyLine: number): BodySections {
  const removed: [number, number][] = [];
  const instructions: Record<InstructionField, string[]> = { planning_instructions: [], response_instructions: [], tool_hints: [] };
  const references = new Map<string, ReferenceEntry>();
  const taken: string[] = [];
  let title: BodySections['title'];

  const first: OutlineHeading | undefined = structure.headings[0];
  const leading = body.search(/\S/);
  if (first && first.depth === 1 && leading !== -1 && first.start <= leading && body.slice(first.start, leading).trim() === '') {
    title = { text: first.text.replace(/\s*\n\s*/g, ' '), line: bodyLine + first.line - 1 };
    removed.push([0, first.end]);
  }

  structure.headings.forEach((heading, index) => {
    if (heading.depth !== 2) return;
    const key = heading.text.toLowerCase().replace(/\s+/g, ' ');
    const field = (INSTRUCTION_SECTIONS as Record<string, InstructionField>)[key];
    const isReferences = key === REFERENCES_TITLE.toLowerCase();
    if (!field && !isReferences) return;
    const end = sectionEnd(structure, index, body.length);
    const list = leadingList(body.slice(heading.end, end));
    if (!list) return;
    if (field) {
      instructions[field].push(...list.items.filter((item) => item !== ''));
    } else {
      const entries = list.items.map((item) => referenceEntry(item, markdownPaths));
      if (entries.some((e) => e === undefined)) return;
      for (const entry of entries) references.set(entry!.path, entry!);
    }
    taken.push(heading.text);
    // The list and the line break after it go with the section.
    let to = heading.end + list.end;
    if (body[to] === '\n') to++;
    removed.push([heading.start, to]);
  });

  let rest = '';
  let from = 0;
  for (const [a, b] of removed.sort((x, y) => x[0] - y[0])) {
    rest += body.slice(from, a);
    from = Math.max(from, b);
  }
  rest += body.slice(from);
  rest = rest.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
  return { rest, ...(title && { title }), instructions, references, taken };
}
