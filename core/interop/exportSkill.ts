/**
 * V1 package → Agent Skills folder (`SKILL.md` plus `references/*.md`), as a
 * pure function, in the layout import reads back:
 *
 * ```markdown
 * ---
 * name: <name>
 * description: <description>
 * ---
 *
 * # <display_name>
 *
 * <the body: resources import made from a SKILL.md body, verbatim>
 *
 * ## Planning instructions
 * - <one item per entry>
 * ## Response instructions
 * ## Tool hints
 * ## References
 * - [<resource>](references/<resource>.md): <description>
 *   Load when: <load_when>
 *   Applies to: planning, synthesis        (when not every boundary)
 *   Required when selected: yes            (when it is)
 *   Content type: text/plain               (when it is)
 * ```
 *
 * Every other resource becomes a reference file with its content verbatim.
 * The body resources are inlined only when importing the body gives them back
 * exactly (names, descriptions, load conditions, split); otherwise they too
 * are reference files. So importing an export gives the same package except
 * for {@link FIELDS_SKILL_MD_CANNOT_CARRY}.
 *
 * Isomorphic: no `node:` imports.
 */
import { DEFAULT_AUTHORING_LIMITS } from '../package/limits';
import type { SkillAuthoringLimits, SkillPackage, SkillResource } from '../package/types';
import { bodyPointer, bodyResources } from './importSkill';
import { REFERENCE_LABELS, REFERENCES_TITLE, SECTION_TITLES } from './sections';
import { formatSkillMd } from './skillMd';
import type { Conversion } from './types';

/** The package fields a SKILL.md folder has no place for: an import of an export has them empty (`change_reason` is rewritten). */
export const FIELDS_SKILL_MD_CANNOT_CARRY = ['domains', 'tags', 'activation_examples', 'change_reason'] as const;

/** One file of an exported skill folder. */
export interface ExportFile {
  /** Relative to the skill folder, `/` separators. */
  path: string;
  text: string;
}

/** The files of an export and what did not fit. */
export interface SkillExport {
  files: ExportFile[];
  conversions: Conversion[];
}

/** A list entry behind `marker`: continuation lines indented to the item's content column. */
function item(text: string, marker = '-'): string {
  const indent = ' '.repeat(marker.length + 1);
  return `${marker} ${text.split('\n').map((line, i) => (i === 0 || line === '' ? line : `${indent}${line}`)).join('\n')}`;
}

const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * A markdown list of `entries`, one item each. A bullet item whose text starts
 * with dashes ("- --") would read as a horizontal rule, so such a list is
 * numbered instead (all its items: a change of marker would start a new list).
 */
function list(entries: readonly string[]): string {
  const numbered = entries.some((e) => THEMATIC_BREAK.test(`- ${e.split('\n')[0]}`));
  return entries.map((e, i) => item(e, numbered ? `${i + 1}.` : '-')).join('\n');
}

function sameResource(a: SkillResource, b: SkillResource): boolean {
  return (
    a.name === b.name &&
    a.description === b.description &&
    a.load_when === b.load_when &&
    a.required_when_selected === b.required_when_selected &&
    a.content_type === b.content_type &&
    a.content === b.content &&
    a.applies_to.length === b.applies_to.length &&
    a.applies_to.every((x, i) => x === b.applies_to[i])
  );
}

/**
 * The leading resources that are the package's SKILL.md body: those that
 * importing their joined text would give back exactly. None when the
 * package was not imported from a SKILL.md (or was edited since).
 */
function inlineBody(pkg: SkillPackage, limits: SkillAuthoringLimits): SkillResource[] {
  for (let n = pkg.resources.length; n >= 1; n--) {
    const candidate = pkg.resources.slice(0, n);
    const joined = candidate.map((r) => r.content).join('');
    // The body import reads starts at a non-blank line and ends without trailing space.
    if (joined !== joined.replace(/^(?:[ \t]*\n)+/, '').trimEnd()) continue;
    const again = bodyResources(joined, limits).resources;
    if (again.length === n && again.every((r, i) => sameResource(r, candidate[i]!))) return candidate;
  }
  return [];
}

/**
 * The files of the Agent Skills folder of `pkg` named `name`, with the
 * conversions: fields SKILL.md cannot carry (when set) and where resources went.
 */
export function exportSkill(pkg: SkillPackage, name: string, limits: SkillAuthoringLimits = DEFAULT_AUTHORING_LIMITS): SkillExport {
  const conversions: Conversion[] = [];
  const body = inlineBody(pkg, limits);
  const pointer = body.length > 0 ? bodyPointer(body.map((r) => r.name)) : undefined;
  const planning = pointer !== undefined && pkg.planning_instructions[0] === pointer ? pkg.planning_instructions.slice(1) : pkg.planning_instructions;
  const references = pkg.resources.slice(body.length);

  const blocks: string[] = [`# ${pkg.display_name.replace(/\s*\n\s*/g, ' ')}`];
  if (body.length > 0) blocks.push(body.map((r) => r.content).join(''));
  const lists: [keyof typeof SECTION_TITLES, string[]][] = [
    ['planning_instructions', planning],
    ['response_instructions', pkg.response_instructions],
    ['tool_hints', pkg.tool_hints],
  ];
  for (const [field, entries] of lists) {
    if (entries.length > 0) blocks.push(`## ${SECTION_TITLES[field]}\n\n${list(entries)}`);
  }
  const files: ExportFile[] = [];
  if (references.length > 0) {
    const entries = references.map((r) => {
      const path = `references/${r.name}.md`;
      files.push({ path, text: r.content });
      const lines = [`[${r.name}](${path}): ${r.description}`, `${REFERENCE_LABELS.load_when}: ${r.load_when}`];
      if (r.applies_to.length > 0) lines.push(`${REFERENCE_LABELS.applies_to}: ${r.applies_to.join(', ')}`);
      if (r.required_when_selected) lines.push(`${REFERENCE_LABELS.required}: yes`);
      if (r.content_type !== 'text/markdown') lines.push(`${REFERENCE_LABELS.content_type}: ${r.content_type}`);
      return lines.join('\n');
    });
    blocks.push(`## ${REFERENCES_TITLE}\n\n${list(entries)}`);
  }
  files.unshift({ path: 'SKILL.md', text: formatSkillMd(name, pkg.description, `${blocks.join('\n\n')}\n`) });

  if (body.length > 0) {
    conversions.push({ field: 'resources', change: 'derived', reason: `${body.map((r) => r.name).join(', ')} (the SKILL.md body this package was imported from) written back as the body` });
  }
  if (references.length > 0) {
    conversions.push({
      field: 'resources',
      change: 'derived',
      reason: `${references.length} resource${references.length === 1 ? '' : 's'} written as reference files, listed under "${REFERENCES_TITLE}" with their descriptions and load conditions`,
      paths: references.map((r) => `references/${r.name}.md`),
    });
  }
  const set: Record<(typeof FIELDS_SKILL_MD_CANNOT_CARRY)[number], boolean> = {
    domains: pkg.domains.length > 0,
    tags: pkg.tags.length > 0,
    activation_examples: pkg.activation_examples.should_activate.length + pkg.activation_examples.should_not_activate.length > 0,
    change_reason: pkg.change_reason !== '',
  };
  for (const field of FIELDS_SKILL_MD_CANNOT_CARRY) {
    if (set[field]) conversions.push({ field, change: 'left_out', reason: `SKILL.md has no place for the ${field.replace('_', ' ')}: ${field === 'change_reason' ? 'an import writes a new one' : 'it stays in the V1 package only'}` });
  }
  return { files, conversions };
}
