import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Scores, lexicalSelect, stem, tokenize } from '../../../../core/models/lexical';
import type { SelectionTask } from '../../../../core/models/types';

function task(request: string, texts: string[]): SelectionTask {
  return {
    kind: 'activation',
    request,
    options: texts.map((text, i) => ({ id: `ns/skill-${i}`, text })),
    renderAnswer: (ids) => JSON.stringify(ids),
  };
}

describe('lexical tokenizer', () => {
  it('lower-cases, splits on non-alphanumerics and drops stop words', () => {
    expect(tokenize('The WEATHER-forecast, for  Oslo (2025)!')).toEqual(['weather', 'forecast', 'oslo', '2025']);
    expect(tokenize('Größe café')).toEqual(['größ', 'café']);
    expect(tokenize('what is the')).toEqual([]);
  });

  it('stems plural and verb endings lightly', () => {
    expect(['bookings', 'booking', 'booked', 'books'].map(stem)).toEqual(['book', 'book', 'book', 'book']);
    expect(['planned', 'planning', 'plans'].map(stem)).toEqual(['plan', 'plan', 'plan']);
    expect(['policies', 'policy'].map(stem)).toEqual(['policy', 'policy']);
    expect(['create', 'created', 'creating'].map(stem)).toEqual(['creat', 'creat', 'creat']);
    // Words that only look inflected stay whole.
    expect(['status', 'analysis', 'address', 'bus', 'sing', 'red'].map(stem)).toEqual(['status', 'analysis', 'address', 'bus', 'sing', 'red']);
  });

  it('is deterministic and never yields empty tokens', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const tokens = tokenize(text);
        expect(tokens).toEqual(tokenize(text));
        for (const t of tokens) expect(t.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('BM25 (k1 1.2, b 0.75)', () => {
  // Documents of 2, 3 and 1 tokens: average length 2.
  const docs = ['apple banana', 'apple cherry cherry', 'durian'];

  it('matches hand-computed scores for a rare term', () => {
    // idf(cherry) = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8/3) = 0.980829
    // doc 2: tf 2, length 3: 0.980829 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 2)) = 0.980829 * 4.4 / 3.65 = 1.182370
    const scores = bm25Scores('cherry', docs);
    expect(scores[0]).toBe(0);
    expect(scores[1]).toBeCloseTo(1.18237, 5);
    expect(scores[2]).toBe(0);
  });

  it('matches hand-computed scores for two terms', () => {
    // idf(apple) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.470004
    // doc 1: tf 1, length 2 (average): 0.470004 * 2.2 / (1 + 1.2) = 0.470004
    // doc 2: 0.470004 * 2.2 / (1 + 1.2 * 1.375) = 0.390192, plus cherry 1.182370 = 1.572561
    const scores = bm25Scores('apple cherry', docs);
    expect(scores[0]).toBeCloseTo(0.470004, 5);
    expect(scores[1]).toBeCloseTo(1.572561, 5);
    expect(scores[2]).toBe(0);
  });

  it('counts a repeated query term once and ignores stop words', () => {
    expect(bm25Scores('cherry cherry the of', docs)).toEqual(bm25Scores('cherry', docs));
  });

  it('ranks a shorter document above a longer one for the same term frequency', () => {
    const scores = bm25Scores('visa', ['visa rules', 'visa rules for every country in the whole wide world today']);
    expect(scores[0]!).toBeGreaterThan(scores[1]!);
  });
});

describe('lexical selection rule', () => {
  const catalog = [
    'Weather assessment: forecast, storms and temperature for a trip.',
    'Visa requirements: passports, visas and border documents.',
    'Expense reports: receipts and reimbursement policy.',
  ];

  it('selects options scoring at least half of the best, in option order', () => {
    expect(lexicalSelect(task('storm forecast for my trip', catalog))).toEqual(['ns/skill-0']);
    expect(lexicalSelect(task('passport and weather forecast', catalog))).toEqual(['ns/skill-0', 'ns/skill-1']);
  });

  it('selects nothing when no request word occurs in any option', () => {
    expect(lexicalSelect(task('translate good morning into Italian', catalog))).toEqual([]);
    expect(lexicalSelect(task('', catalog))).toEqual([]);
    expect(lexicalSelect(task('anything', []))).toEqual([]);
  });

  it('uses the lifecycle context as part of the query', () => {
    const withContext = { ...task('what next?', catalog), context: 'Prior result: the receipts were scanned.' };
    expect(lexicalSelect(withContext)).toEqual(['ns/skill-2']);
  });
});
