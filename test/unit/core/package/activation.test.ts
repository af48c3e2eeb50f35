/**
 * The description check's activation language: the guide's V1 phrases and the
 * forms authors actually write ("Use this when", "Use it when", "Use for",
 * "Invoke when", "Trigger when"...), over generated sentences.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ACTIVATION_PHRASES, hasActivationLanguage } from '../../../../core/package/rules';
import { validatePackage } from '../../../../core/package/validate';
import { baseline } from './baseline';

const CODE = 'description_missing_activation_language';

/** Whether validating a package with `description` warns that it lacks activation language. */
function warns(description: string): boolean {
  const pkg = baseline();
  pkg.description = description;
  return validatePackage(pkg).warnings.some((w) => w.code === CODE);
}

/** Words that carry no activation language on their own (no verb of asking, no "when"/"for"). */
const NEUTRAL = ['guidance', 'on', 'slide', 'decks', 'with', 'themes', 'and', 'fonts', 'builds', 'reports', 'from', 'spreadsheets', 'covers', 'pricing', 'of', 'a', 'model', 'helps', 'authors', 'write', 'clear', 'release', 'notes', 'toolkit', 'to', 'test', 'local', 'web', 'apps', 'Playwright', 'screenshots', 'logs'];
const neutralWords = fc.array(fc.constantFrom(...NEUTRAL), { minLength: 0, maxLength: 12 });
const sentence = (words: string[]) => words.join(' ');

/** Random capitalisation and the whitespace a YAML block or a wrapped line leaves between words. */
const spaced = (phrase: string) =>
  fc.tuple(fc.array(fc.boolean(), { minLength: phrase.length, maxLength: phrase.length }), fc.constantFrom(' ', '  ', '\n', ' \n  ', '\t')).map(([upper, gap]) =>
    [...phrase].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('').split(' ').join(gap),
  );

/** The forms authors write, built from their parts. */
const authoredPhrase = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('use', 'invoke', 'trigger', 'activate', 'apply', 'consult'),
      fc.constantFrom('', ' this', ' it', ' this skill', ' the skill'),
      fc.constantFrom('', ' only', ' also', ' especially'),
      fc.constantFrom(' when', ' whenever', ' if', ' any time', ' anytime', ' every time'),
    )
    .map((parts) => parts.join('')),
  fc.tuple(fc.constantFrom('use', 'invoke'), fc.constantFrom('', ' this', ' it', ' this skill'), fc.constantFrom('', ' only', ' mainly')).map(([v, o, a]) => `${v}${o}${a} for`),
  fc
    .tuple(fc.constantFrom('should be', 'is', 'are', 'gets'), fc.constantFrom('used', 'invoked', 'triggered', 'activated', 'applied'), fc.constantFrom(' when', ' whenever', ' if', ' for'))
    .map(([be, done, cond]) => `${be} ${done}${cond}`),
  fc.constantFrom('triggers when', 'triggers on', 'triggered by', 'triggers include'),
  fc.constantFrom(...ACTIVATION_PHRASES),
);

describe('the description check: activation language', () => {
  it('recognises the phrases of real skill descriptions', () => {
    const real = [
      'Creating algorithmic art using p5.js. Use this when users request creating art using code.',
      "Applies brand colors and typography to artifacts. Use it when brand colors or style guidelines apply.",
      'Suite of tools for elaborate HTML artifacts. Use for complex artifacts requiring state management.',
      'Guide users through co-authoring documentation. Trigger when user mentions writing docs.',
      'Create beautiful visual art. You should use this skill when the user asks to create a poster.',
      'Use this skill any time a .pptx file is involved in any way.',
      'Reads and edits release notes. Invoke when a changelog entry is due.',
      'Checks rollout plans. Activate when a deployment touches production.',
      'Summarises incidents; it should be used when an on-call engineer asks for a timeline.',
      'Reference for the Claude API. TRIGGER — read BEFORE opening the target file — whenever the prompt names Claude.',
    ];
    for (const description of real) expect(warns(description), description).toBe(false);
  });

  it('still warns about descriptions that never say when they apply', () => {
    for (const description of [
      'Helps with rollout tasks.',
      'Toolkit for styling artifacts with a theme: slides, docs, reports and landing pages.',
      'Toolkit for interacting with and testing local web applications using Playwright.',
      'Explains how to apply for a visa and what an embassy asks for.',
      'Pricing, model choice and token counting for an LLM user.',
    ]) {
      expect(warns(description), description).toBe(true);
    }
  });

  it('finds an authored phrase anywhere in a generated sentence, in any case and across line breaks', () => {
    fc.assert(
      fc.property(neutralWords, authoredPhrase.chain(spaced), neutralWords, (before, phrase, after) => {
        const description = `${sentence(['Guidance', ...before])}. ${phrase} ${sentence(['a', 'user', ...after])}.`;
        expect(hasActivationLanguage(description)).toBe(true);
        expect(warns(description)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('warns for generated sentences made only of neutral words', () => {
    fc.assert(
      fc.property(fc.array(neutralWords, { minLength: 1, maxLength: 4 }), (sentences) => {
        const description = sentences.map((words) => `${sentence(['Guidance', ...words])}.`).join(' ');
        expect(hasActivationLanguage(description)).toBe(false);
        expect(warns(description)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('never loses activation language when text is added before or after it (monotone)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), authoredPhrase, fc.string({ maxLength: 80 }), (before, phrase, after) => {
        expect(hasActivationLanguage(`${before} ${phrase} ${after}`)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('does not read a verb glued to another word as a phrase', () => {
    expect(hasActivationLanguage('Refuse for safety, misuse tracking, reuse forms.')).toBe(false);
    expect(hasActivationLanguage('Causes a cause-for-concern report.')).toBe(false);
  });

  it('names the accepted forms in the warning', () => {
    const pkg = baseline();
    pkg.description = 'Helps with rollout tasks.';
    const warning = validatePackage(pkg).warnings.find((w) => w.code === CODE)!;
    expect(warning.message).toContain("'use when'");
    expect(warning.message).toContain("'use this when'");
    expect(warning.message).toContain("'invoke when'");
  });
});
