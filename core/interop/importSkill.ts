/**
 * Agent Skills (`SKILL.md` folder) → V1 package, as a pure function of the
 * folder's text, so the CLI, the WorkbenchApi and the workbench's preview
 * report the same conversion.
 *
 * The mapping (docs/interop.md has the whole table):
 * - frontmatter `name` → the package name; `description` → `description`;
 *   any other key (`license`, `allowed-tools`, `metadata`, `compatibility`...)
 *   is left out and listed with its value;
 * - the body → resources `instructions` (or `instructions-1..n` when it is
 *   over the V1 resource limit, cut at heading boundaries), loaded whenever the
 *   skill is selected, plus one planning instruction saying so (V1 needs one);
 *   a leading `# Title` becomes `display_name`, and `## Planning instructions`,
 *   `## Response instructions` and `## Tool hints` lists become those fields;
 * - every markdown file of the folder → a resource (split the same way), the
 *   ones the body mentions first; scripts, binaries and other files are left
 *   out and listed, as are reference files past the V1 resource count or
 *   package size;
 * - `<script>` tags and shebang lines are escaped and credential-looking values
 *   redacted (see `neutralize.ts`); no activation example is invented.
 * Every such change is a {@link Conversion} in the result and is summarised in
 * the package's `change_reason`.
 *
 * Isomorphic: no `node:` imports.
 */
import { checkLimits, DEFAULT_AUTHORING_LIMITS } from '../package/limits';
import { isSlug } from '../package/rules';
import { estimateTokens, utf8Bytes } from '../package/tokens';
import type { Finding, SkillAuthoringLimits, SkillPackage, SkillResource } from '../package/types';
import { validatePackage } from '../package/validate';
import { neutralize } from './neutralize';
import { outline } from './outline';
import { bodySections, type ReferenceEntry } from './sections';
import { parseSkillMd } from './skillMd';
import { splitAtLimit, type SplitBoundary } from './split';
import type { Conversion, ConvertedSkill, FolderFile, ImportFailure, SkillFolder } from './types';

/** Options of {@link convertSkillFolder}. */
export interface ConvertOptions {
  /** The namespace the package is imported into (a slug). */
  namespace: string;
  /** Authoring limits to fit (default: the guide's). */
  limits?: Partial<SkillAuthoringLimits>;
}

/** The outcome of {@link convertSkillFolder}. */
export type ConvertResult = { ok: true; skill: ConvertedSkill } | { ok: false; failure: ImportFailure };

/** Name of the resource holding a SKILL.md body that fits one resource. */
export const BODY_RESOURCE = 'instructions';

/** The file extensions read as markdown reference files. */
export const MARKDOWN_EXTENSIONS = ['.md', '.markdown'] as const;

/** Whether a folder path names a markdown file. */
export function isMarkdownPath(path: string): boolean {
  const lower = path.toLowerCase();
  return MARKDOWN_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * The largest UTF-8 size of one resource's content under `limits`: within
 * both the byte limit and the token limit (estimated at 3.5 bytes a token).
 */
export function maxResourceContentBytes(limits: SkillAuthoringLimits): number {
  let bytes = Math.min(limits.maxResourceBytes, Math.floor(limits.maxResourceTokens * 3.5) + 3);
  while (bytes > 4 && estimateTokens(bytes) > limits.maxResourceTokens) bytes--;
  return bytes;
}

/** `algorithmic-art` → `Algorithmic Art`. */
export function titleFromName(name: string): string {
  return name
    .split('-')
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** A V1 slug made from any text (empty when nothing is left), at most `max` characters. */
export function slugify(text: string, max = 64): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, max).replace(/-+$/, '');
}

/** The resource name of a reference file: its path without the extension and a leading `references/` folder, as a slug. */
export function referenceName(path: string): string {
  const withoutExt = path.replace(/\.(?:md|markdown)$/i, '');
  const inner = withoutExt.replace(/^references?\//i, '');
  return slugify(inner) || 'reference';
}

/**
 * The planning instruction that points at the body's resources. V1 needs at
 * least one planning instruction; a SKILL.md has none apart from its body.
 * Export recognises it (the same function) and leaves it out of the SKILL.md.
 */
export function bodyPointer(names: readonly string[]): string {
  if (names.length === 1) return `Load and follow the resource "${names[0]}": it holds this skill's instructions (the SKILL.md body).`;
  return `Load and follow the resources "${names[0]}" to "${names[names.length - 1]}" in order: together they hold this skill's instructions (the SKILL.md body).`;
}

/** The resources a body becomes (already fixed), named and described deterministically from its text. */
export function bodyResources(rest: string, limits: SkillAuthoringLimits): { resources: SkillResource[]; boundary: SplitBoundary } {
  if (rest.trim() === '') return { resources: [], boundary: 'none' };
  const structure = outline(rest);
  const split = splitAtLimit(rest, maxResourceContentBytes(limits), structure);
  const parts = split.parts;
  const resources = parts.map((part, i): SkillResource => {
    const content = rest.slice(part.start, part.end);
    const topics = structure.headings
      .filter((h) => h.start >= part.start && h.start < part.end && h.depth <= 2)
      .map((h) => h.text.replace(/\s+/g, ' '))
      .filter((t) => t !== '');
    const covering = topics.length > 0 ? `: ${clip(topics.join('; '), 300)}` : '';
    if (parts.length === 1) {
      return {
        name: BODY_RESOURCE,
        description: `This skill's instructions, the body of its SKILL.md${covering}.`,
        load_when: "Load whenever this skill is selected: these are the skill's own instructions, before any reference file.",
        applies_to: [],
        required_when_selected: true,
        content_type: 'text/markdown',
        content,
      };
    }
    return {
      name: `${BODY_RESOURCE}-${i + 1}`,
      description: `Part ${i + 1} of ${parts.length} of this skill's instructions, the body of its SKILL.md${covering}.`,
      load_when: `Load whenever this skill is selected, with the other ${parts.length - 1} part${parts.length === 2 ? '' : 's'}: together they are the skill's own instructions.`,
      applies_to: [],
      required_when_selected: true,
      content_type: 'text/markdown',
      content,
    };
  });
  return { resources, boundary: split.boundary };
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** Shortens a description to `max` code points at the last sentence end (or word) that fits, and says what went. */
export function shortenDescription(description: string, max: number): { text: string; dropped: string } {
  const chars = [...description];
  if (chars.length <= max) return { text: description, dropped: '' };
  const head = chars.slice(0, max).join('');
  let cut = -1;
  const sentence = /[.!?](?=\s)/g;
  for (let m = sentence.exec(head); m !== null; m = sentence.exec(head)) cut = m.index + 1;
  if (cut >= max / 2) return { text: head.slice(0, cut).trimEnd(), dropped: description.slice(cut).trim() };
  const word = [...chars.slice(0, max - 1).join('').matchAll(/\s/g)].pop();
  const at = word && word.index! >= max / 2 ? word.index! : chars.slice(0, max - 1).join('').length;
  const kept = description.slice(0, at).trimEnd();
  return { text: `${kept}…`, dropped: description.slice(at).trim() };
}

function countedList(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** What a frontmatter value looked like, for the report (bounded). */
function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return clip(text.replace(/\s+/g, ' '), 160);
}

/** Where each markdown file is first mentioned in the body (its path, or its file name when that is unique; any case), or -1. */
export function mentionOrder(body: string, paths: readonly string[]): Map<string, number> {
  // Case-insensitive: bodies write "see FORMS.md" for forms.md.
  const lower = body.toLowerCase();
  // Lowercasing a few characters changes their length; then offsets would not be the body's.
  const caseless = lower.length === body.length;
  const folded = caseless ? lower : body;
  const baseCount = new Map<string, number>();
  for (const p of paths) {
    const base = p.slice(p.lastIndexOf('/') + 1).toLowerCase();
    baseCount.set(base, (baseCount.get(base) ?? 0) + 1);
  }
  const order = new Map<string, number>();
  for (const p of paths) {
    const path = caseless ? p.toLowerCase() : p;
    const base = path.slice(path.lastIndexOf('/') + 1);
    let at = folded.indexOf(path);
    if (at === -1 && path !== base && baseCount.get(base) === 1) at = folded.indexOf(base);
    order.set(p, at);
  }
  return order;
}

/** Markdown files in the order they are taken: the ones the body mentions, by first mention, then the rest by path. */
export function referenceOrder(body: string, paths: readonly string[]): string[] {
  const order = mentionOrder(body, paths);
  return [...paths].sort((a, b) => {
    const x = order.get(a)!;
    const y = order.get(b)!;
    if (x !== -1 || y !== -1) return x === -1 ? 1 : y === -1 ? -1 : x - y || (a < b ? -1 : 1);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** The sentence of the body around `index` (the line holding it, markdown markers dropped), bounded. */
function sentenceAround(body: string, index: number): string {
  const lineStart = body.lastIndexOf('\n', index) + 1;
  const lineEnd = body.indexOf('\n', index);
  const line = body.slice(lineStart, lineEnd === -1 ? body.length : lineEnd);
  const offset = index - lineStart;
  // The sentence: from the last sentence end before the mention to the next one after it.
  let from = 0;
  const ends = /[.!?](?=\s)/g;
  for (let m = ends.exec(line); m !== null && m.index < offset; m = ends.exec(line)) from = m.index + 1;
  const next = line.slice(offset).search(/[.!?](?=\s|$)/);
  const to = next === -1 ? line.length : offset + next + 1;
  const sentence = line
    .slice(from, to)
    .replace(/^\s*(?:[-*+]|\d+[.)]|#+|>)\s+/, '')
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return clip(sentence, 280);
}

const FILE_REASONS: Record<Exclude<FolderFile['kind'], 'markdown'>, string> = {
  script: 'scripts: V1 packages carry instructions, not programs; run them from the agent\'s tools instead',
  binary: 'binary files: V1 resources are text',
  text: 'text files that are not markdown (templates, licences, data): only markdown reference files become resources',
  too_large: 'files larger than the V1 package limit: not read',
  outside: 'symbolic links leading outside the skill folder: never read',
  unreadable: 'files that could not be read',
};

interface Reference {
  path: string;
  name: string;
  description: string;
  loadWhen: string;
  applies: SkillResource['applies_to'];
  required: boolean;
  contentType: SkillResource['content_type'];
  text: string;
  /** Set when export's `## References` list gave the fields. */
  fromList: boolean;
}

/** A rough UTF-8 size of a resource in the pretty-printed package file. */
function resourceFootprint(r: SkillResource): number {
  return utf8Bytes(JSON.stringify(r, null, 2)) + r.content.length / 8 + 64;
}

/**
 * Converts a skill folder into a V1 package for `namespace`, with a report of
 * every change the conversion had to make. Fails (as data) only when there is
 * nothing to convert: no readable frontmatter, or no description.
 */
export function convertSkillFolder(folder: SkillFolder, options: ConvertOptions): ConvertResult {
  const checked = checkLimits(options.limits);
  const limits = checked.ok ? checked.limits : DEFAULT_AUTHORING_LIMITS;
  const fail = (message: string, line?: number, column?: number): ConvertResult => ({
    ok: false,
    failure: { source: folder.label, code: 'invalid_skill', message, ...(line !== undefined && { location: `SKILL.md:${line}:${column ?? 1}` }) },
  });
  const parsed = parseSkillMd(folder.skillMd);
  if (!parsed.ok) return fail(parsed.problem.message, parsed.problem.line, parsed.problem.column);
  const { frontmatter, bodyLine } = parsed.value;
  const conversions: Conversion[] = [];

  // Name.
  const rawName = frontmatter['name'];
  let name: string;
  if (typeof rawName === 'string' && isSlug(rawName) && rawName.length <= limits.maxNameChars) {
    name = rawName;
  } else {
    const from = typeof rawName === 'string' && rawName.trim() !== '' ? rawName : folder.folderName;
    name = slugify(from, limits.maxNameChars);
    if (name === '') return fail(`no usable name: the frontmatter name ${rawName === undefined ? 'is missing' : `'${preview(rawName)}'`} and the folder name '${folder.folderName}' hold no letters or digits`, 2);
    conversions.push({
      field: 'name',
      change: 'renamed',
      reason:
        rawName === undefined
          ? `the frontmatter has no name: named '${name}' after the folder`
          : `'${preview(rawName)}' is not a V1 name (lowercase letters, digits and inner hyphens, at most ${limits.maxNameChars} characters): named '${name}'`,
    });
  }

  // Description.
  const rawDescription = frontmatter['description'];
  if (typeof rawDescription !== 'string' || rawDescription.trim() === '') {
    return fail(rawDescription === undefined ? 'the frontmatter has no description: V1 needs one to list the skill' : 'the frontmatter description must be non-empty text', 2);
  }
  const fixedDescription = neutralize(rawDescription.trim(), 'description', 'the description', 1);
  conversions.push(...fixedDescription.conversions);
  let description = fixedDescription.text;
  const descriptionChars = [...description].length;
  if (descriptionChars > limits.maxDescriptionChars) {
    const short = shortenDescription(description, limits.maxDescriptionChars);
    conversions.push({
      field: 'description',
      change: 'shortened',
      reason: `${descriptionChars.toLocaleString('en-US')} characters is over the V1 limit of ${limits.maxDescriptionChars.toLocaleString('en-US')}: cut to ${[...short.text].length.toLocaleString('en-US')} at the last ${short.text.endsWith('…') ? 'word' : 'sentence'} that fits. Dropped: "${short.dropped}"`,
    });
    description = short.text;
  }

  // Frontmatter keys V1 has no field for.
  for (const [key, value] of Object.entries(frontmatter)) {
    if (key === 'name' || key === 'description') continue;
    conversions.push({ field: `frontmatter.${key}`, change: 'left_out', reason: `V1 has no field for '${key}' (${preview(value)})` });
  }

  // Body: fixes first (they keep every line where it was, so the report's lines are SKILL.md's).
  const markdown = folder.files.filter((f) => f.kind === 'markdown');
  const markdownPaths = new Set(markdown.map((f) => f.path));
  const fixedBody = neutralize(parsed.value.body, 'body', 'SKILL.md', bodyLine);
  conversions.push(...fixedBody.conversions);
  const body = fixedBody.text;
  const sections = bodySections(body, outline(body), markdownPaths, bodyLine);
  const displayName = sections.title?.text || titleFromName(name);
  conversions.push({
    field: 'display_name',
    change: 'derived',
    reason: sections.title ? `from the body's first heading (SKILL.md line ${sections.title.line}), taken out of the body` : `SKILL.md has no title: made from the name`,
  });
  if (sections.taken.length > 0) {
    conversions.push({ field: 'body', change: 'derived', reason: `the section${sections.taken.length === 1 ? '' : 's'} ${sections.taken.map((t) => `"${t}"`).join(', ')} became the V1 field${sections.taken.length === 1 ? '' : 's'} of the same name${sections.taken.length === 1 ? '' : 's'}` });
  }

  const { resources: bodyParts, boundary } = bodyResources(sections.rest, limits);
  const maxBytes = maxResourceContentBytes(limits);
  if (bodyParts.length > 1) {
    const how = boundary === 'heading' ? 'at heading boundaries' : boundary === 'paragraph' ? 'at heading and paragraph boundaries' : boundary === 'line' ? 'at headings, paragraphs and, where a section had neither, between lines' : boundary === 'code_line' ? 'at headings, paragraphs, lines and, inside a code block too long for one resource, between its lines' : 'at headings and, where a line was too long, between characters';
    conversions.push({
      field: 'body',
      change: 'split',
      reason: `${utf8Bytes(sections.rest).toLocaleString('en-US')} bytes is over the V1 limit of one resource (${maxBytes.toLocaleString('en-US')} bytes, ${limits.maxResourceTokens.toLocaleString('en-US')} tokens): split ${how} into ${bodyParts.map((r) => r.name).join(', ')}.`,
    });
  }
  if (sections.rest.trim() !== '' && bodyParts.length === 1) {
    conversions.push({ field: 'body', change: 'derived', reason: `became the resource "${BODY_RESOURCE}", loaded whenever the skill is selected` });
  }

  // Reference files, the ones the body mentions first.
  const order = referenceOrder(body, markdown.map((f) => f.path));
  const mentions = mentionOrder(body, order);
  const byPath = new Map(markdown.map((f) => [f.path, f]));
  const usedNames = new Set(bodyParts.map((r) => r.name));
  /** A base name whose `parts` resource names (`base`, or `base-1..n`) are all free and within the name limit. */
  const unique = (base: string, parts: number): string => {
    const names = (b: string) => (parts === 1 ? [b] : Array.from({ length: parts }, (_, i) => `${b}-${i + 1}`));
    const fits = (b: string) => names(b).every((n) => n.length <= limits.maxNameChars && !usedNames.has(n));
    const room = limits.maxNameChars - (parts === 1 ? 0 : `-${parts}`.length);
    const stem = base.slice(0, room).replace(/-+$/, '') || 'reference';
    if (fits(stem)) return stem;
    for (let i = 2; ; i++) {
      const suffix = `-${i}`;
      const candidate = `${stem.slice(0, room - suffix.length).replace(/-+$/, '')}${suffix}`;
      if (fits(candidate)) return candidate;
    }
  };
  const unreadRefs: string[] = [];
  const references: Reference[] = [];
  for (const path of order) {
    const file = byPath.get(path)!;
    if (file.text === undefined) {
      unreadRefs.push(path);
      continue;
    }
    const listed: ReferenceEntry | undefined = sections.references.get(path);
    const structure = outline(file.text);
    const heading = structure.headings[0]?.text.replace(/\s+/g, ' ');
    const mention = mentions.get(path) ?? -1;
    references.push({
      path,
      name: listed?.name ?? referenceName(path),
      description: listed?.description ?? (heading ? `${clip(heading, 200)} (reference file ${path})` : `Reference file ${path} of this skill`),
      loadWhen:
        listed?.load_when ??
        (mention !== -1 ? `Load when the skill's instructions point to ${path}: "${sentenceAround(body, mention)}"` : `Load when the task needs ${heading ? `"${clip(heading, 200)}"` : 'this reference'} (the skill's reference file ${path}).`),
      applies: listed?.applies_to ?? [],
      required: listed?.required_when_selected ?? false,
      contentType: listed?.content_type ?? 'text/markdown',
      text: file.text.replace(/\r\n?/g, '\n'),
      fromList: listed !== undefined,
    });
  }
  if (sections.references.size > 0) {
    conversions.push({ field: 'resources', change: 'derived', reason: `descriptions and load conditions of ${countedList(sections.references.size, 'reference file')} from the body's "References" list` });
  }
  // Assemble, within the resource count and the package size.
  const planning = [...(bodyParts.length > 0 ? [bodyPointer(bodyParts.map((r) => r.name))] : []), ...sections.instructions.planning_instructions];
  if (bodyParts.length > 0) {
    conversions.push({ field: 'planning_instructions', change: 'added', reason: `V1 needs at least one planning instruction: added one that points to ${bodyParts.length === 1 ? `the resource "${bodyParts[0]!.name}"` : `the resources ${bodyParts[0]!.name} to ${bodyParts[bodyParts.length - 1]!.name}`}` });
  }
  const base: SkillPackage = {
    display_name: displayName,
    description,
    domains: [],
    tags: [],
    planning_instructions: planning,
    response_instructions: sections.instructions.response_instructions,
    tool_hints: sections.instructions.tool_hints,
    resources: [],
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: 'x'.repeat(limits.maxChangeReasonBytes),
  };
  const budget = limits.maxPackageBytes - 1024;
  let footprint = utf8Bytes(JSON.stringify(base, null, 2));
  const resources: SkillResource[] = [];
  const bodyLeftOut: string[] = [];
  for (const r of bodyParts) {
    if (resources.length < limits.maxResources && footprint + resourceFootprint(r) <= budget) {
      resources.push(r);
      footprint += resourceFootprint(r);
    } else bodyLeftOut.push(r.name);
  }
  if (bodyLeftOut.length > 0) {
    conversions.push({ field: 'body', change: 'left_out', reason: `the body is larger than a V1 package holds: ${bodyLeftOut.join(', ')} left out. Move part of it into reference files or shorten it.` });
  }

  const tooMany: string[] = [];
  const tooBig: string[] = [];
  const refused: { path: string; why: string }[] = [];
  const placed: { ref: Reference; parts: SkillResource[] }[] = [];
  for (const ref of references) {
    const fixed = neutralize(ref.text, ref.path, ref.path, 1);
    const stuck = fixed.remaining.filter((h) => h.code !== 'reserved_tag');
    if (stuck.length > 0) {
      const hit = stuck[0]!;
      refused.push({ path: ref.path, why: `line ${fixed.text.slice(0, hit.index).split('\n').length}: ${hit.code.replace(/_/g, ' ')} (${hit.args[0] ?? ''})` });
      continue;
    }
    if (fixed.text.trim() === '') {
      refused.push({ path: ref.path, why: 'the file is empty' });
      continue;
    }
    const split = splitAtLimit(fixed.text, maxBytes);
    const name = unique(ref.name, split.parts.length);
    const parts = split.parts.map((part, i): SkillResource => ({
      name: split.parts.length === 1 ? name : `${name}-${i + 1}`,
      description: split.parts.length === 1 ? ref.description : `Part ${i + 1} of ${split.parts.length} of ${ref.description}`,
      load_when: split.parts.length === 1 ? ref.loadWhen : `${ref.loadWhen} (part ${i + 1} of ${split.parts.length})`,
      applies_to: ref.applies,
      required_when_selected: ref.required,
      content_type: ref.contentType,
      content: fixed.text.slice(part.start, part.end),
    }));
    const size = parts.reduce((sum, r) => sum + resourceFootprint(r), 0);
    if (resources.length + parts.length > limits.maxResources) {
      tooMany.push(ref.path);
      continue;
    }
    if (footprint + size > budget) {
      tooBig.push(ref.path);
      continue;
    }
    for (const r of parts) usedNames.add(r.name);
    resources.push(...parts);
    footprint += size;
    placed.push({ ref, parts });
    conversions.push(...fixed.conversions);
    if (parts.length > 1) {
      conversions.push({
        field: ref.path,
        change: 'split',
        reason: `${utf8Bytes(fixed.text).toLocaleString('en-US')} bytes is over the V1 limit of one resource: split at ${split.boundary === 'heading' ? 'heading boundaries' : `${split.boundary.replace('_', ' ')} boundaries`} into ${parts.map((r) => r.name).join(', ')}.`,
      });
    }
  }
  const derived = placed.filter((p) => !p.ref.fromList);
  if (derived.length > 0) {
    conversions.push({
      field: 'resources',
      change: 'derived',
      reason: `${derived.length === 1 ? '1 markdown file became a resource; its' : `${countedList(derived.length, 'markdown file')} became resources; each one's`} description is its first heading and its load condition the sentence of the body that points to it (or its heading when none does)`,
      paths: derived.map((p) => p.ref.path),
    });
  }
  if (refused.length > 0) {
    conversions.push({
      field: 'files',
      change: 'left_out',
      reason: `markdown files V1 cannot carry as they are (no forced fix applies): ${refused.map((r) => `${r.path} (${r.why})`).join('; ')}`,
      paths: refused.map((r) => r.path),
    });
  }
  if (tooMany.length > 0) {
    conversions.push({ field: 'files', change: 'left_out', reason: `markdown files past the V1 limit of ${limits.maxResources} resources per package`, paths: tooMany });
  }
  if (tooBig.length > 0 || unreadRefs.length > 0) {
    conversions.push({ field: 'files', change: 'left_out', reason: `markdown files past the V1 package size limit of ${limits.maxPackageBytes.toLocaleString('en-US')} bytes`, paths: [...unreadRefs, ...tooBig] });
  }
  const byKind = new Map<FolderFile['kind'], string[]>();
  for (const f of folder.files) {
    if (f.kind === 'markdown') continue;
    byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f.path]);
  }
  for (const [kind, paths] of byKind) {
    conversions.push({ field: 'files', change: 'left_out', reason: `${countedList(paths.length, 'file')}: ${FILE_REASONS[kind as Exclude<FolderFile['kind'], 'markdown'>]}`, paths });
  }
  conversions.push(...folder.skipped);
  conversions.push({
    field: 'activation_examples',
    change: 'needed',
    reason: 'SKILL.md has no activation examples and none were invented: write should_activate and should_not_activate requests before evaluating or publishing this skill.',
  });

  const pkg: SkillPackage = { ...base, resources, change_reason: changeReason(conversions, limits.maxChangeReasonBytes) };
  const text = `${JSON.stringify(pkg, null, 2)}\n`;
  const result = validatePackage(text, { id: { namespace: options.namespace, name }, limits });
  const errors: Finding[] = result.errors;
  return {
    ok: true,
    skill: {
      name,
      package: result.normalized ?? pkg,
      text,
      conversions,
      validation: { valid: errors.length === 0, errors, warnings: result.warnings },
    },
  };
}

/** The package's `change_reason`: where it came from and a count of each kind of change, within `maxBytes`. */
export function changeReason(conversions: readonly Conversion[], maxBytes: number): string {
  const count = (change: Conversion['change'], field?: (f: string) => boolean) => conversions.filter((c) => c.change === change && (!field || field(c.field))).length;
  const parts: string[] = [];
  if (count('shortened') > 0) parts.push('description shortened');
  const splits = conversions.filter((c) => c.change === 'split').map((c) => c.field);
  if (splits.length > 0) parts.push(`split into several resources: ${splits.join(', ')}`);
  if (count('escaped') > 0) parts.push(`executable-looking text escaped in ${[...new Set(conversions.filter((c) => c.change === 'escaped').map((c) => c.field))].join(', ')}`);
  if (count('redacted') > 0) parts.push(`credential-looking values redacted in ${[...new Set(conversions.filter((c) => c.change === 'redacted').map((c) => c.field))].join(', ')}`);
  if (count('renamed') > 0) parts.push('renamed to a V1 name');
  const files = conversions.filter((c) => c.change === 'left_out' && c.field === 'files').reduce((n, c) => n + (c.paths?.length ?? 0), 0);
  if (files > 0) parts.push(`${countedList(files, 'file')} left out`);
  const keys = conversions.filter((c) => c.change === 'left_out' && c.field.startsWith('frontmatter.')).map((c) => c.field.slice('frontmatter.'.length));
  if (keys.length > 0) parts.push(`frontmatter ${keys.join(', ')} left out`);
  if (conversions.some((c) => c.change === 'left_out' && c.field === 'body')) parts.push('part of the body left out');
  const text = `Imported from SKILL.md (Agent Skills)${parts.length > 0 ? `: ${parts.join('; ')}` : ''}. Needs activation examples.`;
  if (utf8Bytes(text) <= maxBytes) return text;
  // Whole code points only: a cut surrogate pair would make the reason invalid.
  const chars = [...text].slice(0, maxBytes);
  while (utf8Bytes(`${chars.join('')}…`) > maxBytes) chars.pop();
  return `${chars.join('')}…`;
}
