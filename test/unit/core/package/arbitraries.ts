/**
 * fast-check arbitraries for valid-looking V1 packages, shared by property tests.
 * Words and slugs come from small vocabularies on purpose: collisions between
 * independently generated values are what exercise "changed the same way on
 * both sides", moves and set overlaps.
 */
import fc from 'fast-check';
import { BOUNDARIES, type Boundary, type SkillPackage, type SkillResource } from '../../../../core/package/types';

const WORDS = ['check', 'the', 'forecast', 'route', 'risk', 'before', 'booking', 'confirm', 'rollout', 'pods', 'when', 'a', 'request', 'asks', 'about', 'storms', 'currency', 'rates', 'logs', 'metrics'];
const SLUG_PARTS = ['travel', 'weather', 'risk', 'devops', 'k8s', 'alerts', 'fx', 'v2', 'checklist', 'safety'];

/** A lowercase slug: letters and digits with internal hyphens, at most 64 characters. */
export const slugArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...SLUG_PARTS), { minLength: 1, maxLength: 3 }).map((p) => p.join('-')) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 1, maxLength: 12 }) },
);

/** A short sentence of 1 to 8 words from a small vocabulary, trimmed, single spaces. */
export const sentenceArb: fc.Arbitrary<string> = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));

/** A catalog description that carries activation language. */
export const descriptionArb: fc.Arbitrary<string> = sentenceArb.map((s) => `Use when ${s}.`);

/** A list of 0 to 4 sentences. */
export const sentenceListArb: fc.Arbitrary<string[]> = fc.array(sentenceArb, { maxLength: 4 });

/** A sorted, duplicate-free list of slugs, as normalization leaves domains and tags. */
export const slugSetArb: fc.Arbitrary<string[]> = fc.uniqueArray(slugArb, { maxLength: 3 }).map((v) => [...v].sort());

const appliesToArb: fc.Arbitrary<Boundary[]> = fc.subarray([...BOUNDARIES]);

/** A resource with the given name (or a generated one). */
export function resourceArb(name?: string): fc.Arbitrary<SkillResource> {
  return fc.record({
    name: name === undefined ? slugArb : fc.constant(name),
    description: sentenceArb,
    load_when: sentenceArb.map((s) => `Load when ${s}.`),
    applies_to: appliesToArb,
    required_when_selected: fc.boolean(),
    content_type: fc.constantFrom('text/plain' as const, 'text/markdown' as const),
    content: fc.array(sentenceArb, { minLength: 1, maxLength: 5 }).map((s) => s.join('\n')),
  });
}

/** 0 to 4 resources with distinct names. */
export const resourcesArb: fc.Arbitrary<SkillResource[]> = fc.uniqueArray(resourceArb(), { selector: (r) => r.name, maxLength: 4 });

/** A complete, normalized-looking package. */
export const skillPackageArb: fc.Arbitrary<SkillPackage> = fc.record({
  display_name: sentenceArb,
  description: descriptionArb,
  domains: slugSetArb,
  tags: slugSetArb,
  planning_instructions: fc.array(sentenceArb, { minLength: 1, maxLength: 4 }),
  response_instructions: sentenceListArb,
  tool_hints: fc.uniqueArray(slugArb, { maxLength: 3 }),
  resources: resourcesArb,
  activation_examples: fc.record({ should_activate: sentenceListArb, should_not_activate: sentenceListArb }),
  change_reason: sentenceArb,
});

function keepOr<T>(value: T, replacement: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: replacement });
}

/** An edit of a list: some entries dropped, some inserted, occasionally replaced whole. */
function listEditArb(list: readonly string[], minLength = 0): fc.Arbitrary<string[]> {
  const edited: fc.Arbitrary<string[]> = fc
    .tuple(fc.subarray([...list]), fc.array(fc.tuple(fc.nat(), sentenceArb), { maxLength: 2 }))
    .map(([kept, inserts]) => {
      const out = [...kept];
      for (const [at, text] of inserts) out.splice(at % (out.length + 1), 0, text);
      return out;
    })
    .filter((l) => l.length >= minLength);
  const same: fc.Arbitrary<string[]> = fc.constant([...list]);
  return fc.oneof(
    { weight: 3, arbitrary: same },
    { weight: 2, arbitrary: edited },
    { weight: 1, arbitrary: fc.array(sentenceArb, { minLength, maxLength: 4 }) },
  );
}

/** A set edit: some members removed, some added; stays sorted and duplicate-free. */
function setEditArb(set: readonly string[]): fc.Arbitrary<string[]> {
  return fc.tuple(fc.subarray([...set]), fc.uniqueArray(slugArb, { maxLength: 2 })).map(([kept, added]) => [...new Set([...kept, ...added])].sort());
}

function resourceEditArb(r: SkillResource): fc.Arbitrary<SkillResource> {
  return fc.record({
    name: fc.constant(r.name),
    description: keepOr(r.description, sentenceArb),
    load_when: keepOr(r.load_when, sentenceArb.map((s) => `Load when ${s}.`)),
    applies_to: keepOr(r.applies_to, appliesToArb),
    required_when_selected: keepOr(r.required_when_selected, fc.boolean()),
    content_type: keepOr(r.content_type, fc.constantFrom('text/plain' as const, 'text/markdown' as const)),
    content: keepOr(r.content, fc.array(sentenceArb, { minLength: 1, maxLength: 5 }).map((s) => s.join('\n'))),
  });
}

function resourcesEditArb(resources: readonly SkillResource[]): fc.Arbitrary<SkillResource[]> {
  const perResource = resources.map((r) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<SkillResource | undefined>(r) },
      { weight: 1, arbitrary: fc.constant<SkillResource | undefined>(undefined) },
      { weight: 2, arbitrary: resourceEditArb(r) as fc.Arbitrary<SkillResource | undefined> },
    ),
  );
  return fc
    .tuple(fc.tuple(...perResource), fc.array(resourceArb(), { maxLength: 2 }), fc.boolean(), fc.nat())
    .map(([kept, added, reorder, shift]) => {
      const out = kept.filter((r): r is SkillResource => r !== undefined);
      if (reorder && out.length > 1) out.push(...out.splice(0, (shift % (out.length - 1)) + 1));
      const names = new Set(out.map((r) => r.name));
      for (const r of added) {
        if (names.has(r.name)) continue;
        names.add(r.name);
        out.push(r);
      }
      return out.slice(0, 32);
    });
}

/**
 * A plausible next revision of `base`: each field kept or edited, resources
 * kept, edited, removed, rotated or added. Two variants of one base make a
 * realistic three-way merge input.
 */
export function packageVariantArb(base: SkillPackage): fc.Arbitrary<SkillPackage> {
  return fc.record({
    display_name: keepOr(base.display_name, sentenceArb),
    description: keepOr(base.description, descriptionArb),
    domains: keepOr(base.domains, setEditArb(base.domains)),
    tags: keepOr(base.tags, setEditArb(base.tags)),
    planning_instructions: listEditArb(base.planning_instructions, 1),
    response_instructions: listEditArb(base.response_instructions),
    tool_hints: keepOr(base.tool_hints, fc.uniqueArray(slugArb, { maxLength: 3 })),
    resources: keepOr(base.resources, resourcesEditArb(base.resources)),
    activation_examples: fc.record({
      should_activate: listEditArb(base.activation_examples.should_activate),
      should_not_activate: listEditArb(base.activation_examples.should_not_activate),
    }),
    change_reason: keepOr(base.change_reason, sentenceArb),
  });
}

/** A base package and two independent variants of it: `[base, theirs, mine]`. */
export const mergeTripleArb: fc.Arbitrary<[SkillPackage, SkillPackage, SkillPackage]> = skillPackageArb.chain((base) =>
  fc.tuple(fc.constant(base), packageVariantArb(base), packageVariantArb(base)),
);
