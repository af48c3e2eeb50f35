/**
 * V1 → SKILL.md and back: importing an export gives the same package except
 * the fields SKILL.md has no place for, which this test names.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { exportSkill, FIELDS_SKILL_MD_CANNOT_CARRY } from '../../../../core/interop/exportSkill';
import { convertSkillFolder } from '../../../../core/interop/importSkill';
import type { SkillFolder } from '../../../../core/interop/types';
import type { SkillPackage } from '../../../../core/package/types';
import { validatePackage } from '../../../../core/package/validate';
import { utf8Bytes } from '../../../../core/package/tokens';

const EXAMPLES = join(__dirname, '../../../../examples/skills/packages');

function examples(): { name: string; pkg: SkillPackage }[] {
  return readdirSync(EXAMPLES).flatMap((ns) =>
    readdirSync(join(EXAMPLES, ns)).map((file) => {
      const result = validatePackage(readFileSync(join(EXAMPLES, ns, file)));
      return { name: file.replace(/\.json$/, ''), pkg: result.normalized! };
    }),
  );
}

/** The export of `pkg` as the folder an import reads. */
function exported(pkg: SkillPackage, name: string): SkillFolder {
  const { files } = exportSkill(pkg, name);
  const skillMd = files.find((f) => f.path === 'SKILL.md')!.text;
  return {
    label: name,
    folderName: name,
    skillMd,
    files: files.filter((f) => f.path !== 'SKILL.md').map((f) => ({ path: f.path, kind: 'markdown' as const, bytes: utf8Bytes(f.text), text: f.text })),
    skipped: [],
  };
}

function roundTrip(pkg: SkillPackage, name: string): SkillPackage {
  const result = convertSkillFolder(exported(pkg, name), { namespace: 'again' });
  if (!result.ok) throw new Error(result.failure.message);
  expect(result.skill.name).toBe(name);
  return result.skill.package;
}

/** A package without the fields SKILL.md cannot carry. */
function carried(pkg: SkillPackage): Partial<SkillPackage> {
  const copy: Partial<SkillPackage> = { ...pkg };
  for (const field of FIELDS_SKILL_MD_CANNOT_CARRY) delete copy[field];
  return copy;
}

describe('exportSkill', () => {
  it('names the fields SKILL.md cannot carry', () => {
    expect(FIELDS_SKILL_MD_CANNOT_CARRY).toEqual(['domains', 'tags', 'activation_examples', 'change_reason']);
  });

  it.each(examples().map((e) => [e.name, e]))('round-trips the example %s up to those fields, and reports them as left out', (_, { name, pkg }) => {
    const back = roundTrip(pkg, name);
    expect(carried(back)).toEqual(carried(pkg));
    expect(back.domains).toEqual([]);
    expect(back.activation_examples).toEqual({ should_activate: [], should_not_activate: [] });
    const { conversions } = exportSkill(pkg, name);
    expect(conversions.filter((c) => c.change === 'left_out').map((c) => c.field)).toEqual(FIELDS_SKILL_MD_CANNOT_CARRY.filter((f) => f !== 'domains' || pkg.domains.length > 0));
  });

  it('writes frontmatter with the name and description, a title, and each resource as a reference file listed with its load condition', () => {
    const { name, pkg } = examples().find((e) => e.name === 'weather-assessment')!;
    const { files } = exportSkill(pkg, name);
    const skillMd = files[0]!;
    expect(skillMd.path).toBe('SKILL.md');
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(skillMd.text)!;
    expect(parseYaml(yaml!)).toEqual({ name: 'weather-assessment', description: pkg.description });
    expect(body).toContain(`# ${pkg.display_name}\n`);
    expect(body).toContain('## Planning instructions\n\n- Geocode the place first');
    expect(body).toContain(`- [weather-risk-checklist](references/weather-risk-checklist.md): ${pkg.resources[0]!.description}\n  Load when: ${pkg.resources[0]!.load_when}\n  Applies to: planning, continuation, synthesis`);
    expect(files.slice(1).map((f) => f.path)).toEqual(pkg.resources.map((r) => `references/${r.name}.md`));
    expect(files[1]!.text).toBe(pkg.resources[0]!.content);
  });

  it('writes an imported SKILL.md body back as the body, without the planning instruction import added', () => {
    const body = '# Release Notes\n\nGroup the changes.\n\n## Breaking changes\n\nList them first.';
    const imported = convertSkillFolder({ label: 'r', folderName: 'r', skillMd: `---\nname: release-notes\ndescription: Use this when a version ships.\n---\n\n${body}\n`, files: [], skipped: [] }, { namespace: 'ns' });
    if (!imported.ok) throw new Error(imported.failure.message);
    const { files } = exportSkill(imported.skill.package, 'release-notes');
    expect(files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(files[0]!.text).toBe(`---\nname: release-notes\ndescription: Use this when a version ships.\n---\n\n${body}\n`);
  });

  it('round-trips generated packages: instructions with line breaks, resources of every kind', () => {
    // Text V1 accepts: no control, bidi or lone surrogate characters (those are validation errors, not conversions).
    const allowed = (c: string) => {
      const n = c.codePointAt(0)!;
      return (n >= 0x20 || n === 0x0a) && !(n >= 0x7f && n <= 0x9f) && !(n >= 0x202a && n <= 0x202e) && !(n >= 0x2066 && n <= 0x2069) && !(n >= 0xd800 && n <= 0xdfff);
    };
    // Plain text, and text made of markdown's own characters (list markers, rules, fences, tags).
    const markdownish = fc.string({ unit: fc.constantFrom('-', '*', '#', '<', '>', '`', '~', '[', ']', '(', ')', ':', '!', ' ', '\n', 'a', '1', '.', '=', '|', '?', '\t'), minLength: 1, maxLength: 40 });
    const text = fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), markdownish).map((s) => [...s].filter(allowed).join('').trim()).filter((s) => /\S/.test(s) && !/^(?:Load when|Applies to|Required when selected|Content type):/m.test(s));
    const entry = fc.array(text, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n'));
    const slug = fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/);
    const resource = fc.record({
      name: slug,
      description: text,
      load_when: text,
      applies_to: fc.subarray(['planning', 'continuation', 'synthesis'] as const).map((a) => [...a]),
      required_when_selected: fc.boolean(),
      content_type: fc.constantFrom('text/markdown', 'text/plain') as fc.Arbitrary<'text/markdown' | 'text/plain'>,
      content: entry,
    });
    const pkgArb = fc.record({
      display_name: text.map((t) => t.replace(/\n/g, ' ').replace(/^#+\s*/, '').replace(/\s+#+$/, '')).filter((t) => /\S/.test(t) && !/^[=\-\s]+$/.test(t)),
      description: text,
      planning_instructions: fc.array(entry, { minLength: 1, maxLength: 3 }),
      response_instructions: fc.array(entry, { maxLength: 2 }),
      tool_hints: fc.array(text, { maxLength: 2 }),
      resources: fc.uniqueArray(resource, { selector: (r) => r.name, maxLength: 4 }),
    });
    fc.assert(
      fc.property(pkgArb, (fields) => {
        const pkg = validatePackage({ ...fields, activation_examples: { should_activate: [], should_not_activate: [] }, change_reason: 'gen' }).normalized;
        if (!pkg) return;
        const back = roundTrip(pkg, 'gen');
        expect(carried(back)).toEqual(carried(pkg));
      }),
      { numRuns: 300 },
    );
  });
});
