import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAdvice, MAX_ADVISOR_ANSWER_CHARS } from '../../../../core/advisor/decode';

const good = { summary: 'Fine.', suggestions: [{ code: 'vocabulary', message: 'Name storms.', path: '/description' }], proposals: [{ title: 'T', rationale: 'R', patch: [{ op: 'remove', path: '/tags/0' }] }] };

describe('decodeAdvice', () => {
  it('decodes exactly one object with summary, suggestions and proposals', () => {
    expect(decodeAdvice(`  ${JSON.stringify(good)}\n`)).toEqual({ ok: true, value: good });
  });

  it('keeps a proposal with an unusable patch: it is judged later, not here', () => {
    const answer = { ...good, proposals: [{ title: 'T', rationale: 'R', patch: 'replace everything' }] };
    expect(decodeAdvice(JSON.stringify(answer))).toMatchObject({ ok: true, value: { proposals: [{ patch: 'replace everything' }] } });
  });

  it.each([
    ['a code fence', '```json\n' + JSON.stringify(good) + '\n```', 'code fence'],
    ['prose around it', `Here you go: ${JSON.stringify(good)}`, 'code fence'],
    ['a missing key', JSON.stringify({ summary: 'x', suggestions: [] }), '"proposals" is missing'],
    ['an extra key', JSON.stringify({ ...good, verdict: 'ok' }), 'unexpected key "verdict"'],
    ['a duplicated key', '{"summary":"a","summary":"b","suggestions":[],"proposals":[]}', 'not valid JSON'],
    ['a non-string summary', JSON.stringify({ ...good, summary: 1 }), '"summary" must be a string'],
    ['a suggestion without message', JSON.stringify({ ...good, suggestions: [{ code: 'x' }] }), '"message" is missing'],
    ['a proposal without title', JSON.stringify({ ...good, proposals: [{ rationale: 'r', patch: [] }] }), '"title" is missing'],
    ['an empty answer', '   ', 'empty'],
  ])('refuses %s', (_label, text, error) => {
    const decoded = decodeAdvice(text);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error).toContain(error);
  });

  it('refuses an over-long answer without parsing it', () => {
    expect(decodeAdvice(`{"summary":"${'x'.repeat(MAX_ADVISOR_ANSWER_CHARS)}"}`)).toMatchObject({ ok: false });
  });

  it('never throws on arbitrary text or JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        expect(typeof decodeAdvice(text).ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
