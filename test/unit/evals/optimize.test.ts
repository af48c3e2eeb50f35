import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerChange, bestMcNemarP, heldoutModel, heldoutPower, judge, splitCases, tooFewCasesMessage, type HeldoutModel } from '../../../evals/optimize';
import { compareCases, type CasePair } from '../../../evals/paired';
import { createKeywordProposer, decodeProposals, distinctiveTerms, proposerMessages, rankTerms, type ProposerInput } from '../../../evals/proposers';
import type { EvalCase } from '../../../evals/suite';

function cases(should: number, shouldNot: number): EvalCase[] {
  const make = (i: number, expect: EvalCase['expect']): EvalCase => ({ id: `${expect}-${String(i).padStart(3, '0')}`, skill: 'a/b', source: 'extra', request: `request ${expect} ${i}`, expect, boundary: 'planning' });
  return [...Array.from({ length: should }, (_, i) => make(i, 'activate')), ...Array.from({ length: shouldNot }, (_, i) => make(i, 'not_activate'))];
}

describe('splitCases', () => {
  it('holds out the same share of each kind, and the same split for the same seed whatever the case order', () => {
    const all = cases(10, 5);
    const split = splitCases(all, 0.4, 42);
    expect(split.heldout.filter((c) => c.expect === 'activate')).toHaveLength(4);
    expect(split.heldout.filter((c) => c.expect === 'not_activate')).toHaveLength(2);
    expect(split.train).toHaveLength(9);
    expect(splitCases([...all].reverse(), 0.4, 42)).toEqual(split);
    expect(splitCases(all, 0.4, 43).heldout.map((c) => c.id)).not.toEqual(split.heldout.map((c) => c.id));
  });

  it('partitions the cases and keeps a case on each side of every stratum of two or more', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 2, max: 30 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.integer({ min: 0, max: 0xffffffff }), (a, b, holdout, seed) => {
        const all = cases(a, b);
        const split = splitCases(all, holdout, seed);
        const ids = [...split.train, ...split.heldout].map((c) => c.id).sort();
        expect(ids).toEqual(all.map((c) => c.id).sort());
        for (const expect_ of ['activate', 'not_activate'] as const) {
          const n = all.filter((c) => c.expect === expect_).length;
          const held = split.heldout.filter((c) => c.expect === expect_).length;
          if (n >= 2) {
            expect(held).toBeGreaterThanOrEqual(1);
            expect(held).toBeLessThanOrEqual(n - 1);
          } else expect(held).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what it cannot split, and bad settings', () => {
    expect(() => splitCases(cases(1, 1), 0.4, 1)).toThrow(/cannot be split/);
    expect(() => splitCases(cases(4, 4), 1, 1)).toThrow(/between 0 and 1/);
    expect(() => splitCases(cases(4, 4), 0.4, -1)).toThrow(/seed/);
  });
});

describe('heldoutPower', () => {
  const held = (a: number, b: number, holdout: number) => (a + b === 0 ? 0 : (() => {
    try {
      return splitCases(cases(a, b), holdout, 1).heldout.length;
    } catch {
      return 0;
    }
  })());

  it('knows the best p a held-out set can reach and how many cases significance needs', () => {
    expect([0, 1, 4, 5, 6].map(bestMcNemarP)).toEqual([1, 1, 0.125, 0.0625, 0.03125]);
    expect(heldoutPower({ activate: 4, not_activate: 4 }, 0.4, 0.05)).toMatchObject({ heldout: 4, best_p: 0.125, needed: 6, enough: false });
    expect(heldoutPower({ activate: 8, not_activate: 8 }, 0.4, 0.05)).toMatchObject({ heldout: 6, needed: 6, enough: true });
    expect(heldoutPower({ activate: 8, not_activate: 8 }, 0.4, 0.01)).toMatchObject({ needed: 8, enough: false });
    // Two cases: nothing can be held out at all.
    expect(heldoutPower({ activate: 1, not_activate: 1 }, 0.4, 0.05)).toMatchObject({ heldout: 0, enough: false });
  });

  it('names the fewest cases to add, and a held-out share that would do, each enough by the split itself (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 1, max: 19 }), fc.constantFrom(0.1, 0.05, 0.01), (a, b, share, alpha) => {
        const holdout = share / 20;
        const power = heldoutPower({ activate: a, not_activate: b }, holdout, alpha);
        expect(power.heldout).toBe(held(a, b, holdout));
        expect(bestMcNemarP(power.needed)).toBeLessThan(alpha);
        expect(bestMcNemarP(power.needed - 1)).toBeGreaterThanOrEqual(alpha);
        expect(power.enough).toBe(power.heldout >= power.needed);
        if (power.enough) {
          expect(power.add).toBeUndefined();
          return;
        }
        const add = power.add!;
        const total = add.activate + add.not_activate;
        expect(held(a + add.activate, b + add.not_activate, holdout)).toBeGreaterThanOrEqual(power.needed);
        // No smaller addition, however divided, is enough.
        for (let x = 0; x < total; x++) expect(held(a + x, b + total - 1 - x, holdout)).toBeLessThan(power.needed);
        if (power.holdout !== undefined) {
          expect(power.holdout).toBeGreaterThan(holdout);
          expect(held(a, b, power.holdout)).toBeGreaterThanOrEqual(power.needed);
        } else expect(held(a, b, 0.95)).toBeLessThan(power.needed);
      }),
      { numRuns: 300 },
    );
  });

  it('says in one sentence why, how many cases are needed, and which file to add them to', () => {
    const power = heldoutPower({ activate: 4, not_activate: 4 }, 0.4, 0.05);
    const message = tooFewCasesMessage('travel/x', { activate: 4, not_activate: 4 }, 0.4, power, 'skills/evals/travel/x.json');
    expect(message).toContain('hold out 4');
    expect(message).toContain('0.125');
    expect(message).toContain('at least 6 held-out cases');
    expect(message).toContain(`add ${power.add!.activate + power.add!.not_activate} cases`);
    expect(message).toContain('skills/evals/travel/x.json');
  });
});

/** A held-out case as the runner tallies it: activations of the skill out of answered repeats, per side. */
interface Tally {
  expect: 'activate' | 'not_activate';
  winner: [activated: number, answered: number];
  original: [activated: number, answered: number];
}

/** The held-out comparison of one model from its case tallies, judged by the optimizer's own code. */
function heldout(model: string, tallies: Tally[], alpha = 0.05, margin = 0.05): HeldoutModel {
  const pairs: CasePair[] = tallies.map((t, i) => ({ case: `c${i}`, expect: t.expect, a: { activated: t.winner[0], answered: t.winner[1] }, b: { activated: t.original[0], answered: t.original[1] } }));
  const comparison = { kind: 'variant' as const, skill: 'a/b', a: 'draft', b: 'original', unit: 'case' as const, model, ...compareCases(pairs, alpha) };
  const score = { model, accuracy: null, correct: 0, answered: 0, errors: 0 };
  return heldoutModel({ model, winner: score, original: score, comparison }, alpha, margin);
}

/** `n` cases of one kind where the winner activates `w` of `r` repeats and the original `o` of `r`. */
const same = (n: number, expect: Tally['expect'], w: number, o: number, r = 1): Tally[] => Array.from({ length: n }, () => ({ expect, winner: [w, r], original: [o, r] }));
/** Should-activate cases the winner gets and the original misses. */
const wins = (n: number) => same(n, 'activate', 1, 0);

describe('judge', () => {
  it('proves a gain only when no model is worse and one is significantly better', () => {
    expect(judge([heldout('m1', wins(6)), heldout('m2', same(1, 'activate', 1, 1))], 0.05).verdict).toBe('proven_gain');
    expect(judge([heldout('m1', wins(6)), heldout('m2', same(1, 'activate', 0, 1))], 0.05)).toMatchObject({ verdict: 'no_proven_gain', reason: expect.stringContaining('worse') });
    expect(judge([heldout('m1', wins(5))], 0.05)).toMatchObject({ verdict: 'no_proven_gain', reason: expect.stringContaining('no model shows a significant') });
    expect(judge([heldout('m1', wins(6)), heldout('m2', [])], 0.05)).toMatchObject({ verdict: 'no_proven_gain', reason: expect.stringContaining('decided no held-out case') });
  });

  it('refuses a gain on one model that makes every should-not case of another fire on 1 of 3 repeats, though no majority changed', () => {
    const m1 = heldout('m1', [...same(6, 'activate', 3, 0, 3), ...same(5, 'not_activate', 0, 0, 3)]);
    const m2 = heldout('m2', [...same(6, 'activate', 3, 3, 3), ...same(5, 'not_activate', 1, 0, 3)]);
    // By majority m2 is untouched: every case is still right on both sides.
    expect(m2.comparison.test).toMatchObject({ aOnly: 0, bOnly: 0 });
    expect(m1.better).toBe(true);
    expect(m2.answers).toMatchObject({ cases: 11, false_activation: { cases: 5, winner: 1 / 3, original: 0 } });
    expect(m2.answers.accuracy_winner).toBeCloseTo(1 - 5 / 33, 9);
    expect(m2.answers.harm.join(' ')).toContain('false activations on the should-not cases rise from 0.000 to 0.333');
    expect(m2.worse).toBe(true);
    const verdict = judge([m1, m2], 0.05);
    expect(verdict.verdict).toBe('no_proven_gain');
    expect(verdict.reason).toMatch(/worse than the original on m2 \(per answer: false activations/);
    expect(verdict.reason).not.toContain('m1 (');
  });

  it('refuses a gain that raises false activations beyond the margin on the very model it helps', () => {
    const m1 = heldout('m1', [...wins(8), ...same(6, 'not_activate', 1, 0, 3)]);
    expect(m1.better).toBe(true);
    expect(m1.answers.harm.join(' ')).toContain('false activations');
    expect(judge([m1], 0.05).verdict).toBe('no_proven_gain');
  });

  it('tolerates a rise within the margin, and none with a margin of 0', () => {
    // One should-not case of twenty fires on 1 of 3 repeats: +0.017 false activations, not significant case by case.
    const cases = [...same(8, 'activate', 1, 0), ...same(19, 'not_activate', 0, 0, 3), ...same(1, 'not_activate', 1, 0, 3)];
    const loose = heldout('m1', cases);
    expect(loose.answers.false_activation.winner! - loose.answers.false_activation.original!).toBeCloseTo(1 / 60, 9);
    expect(loose.answers.harm).toEqual([]);
    expect(judge([loose], 0.05).verdict).toBe('proven_gain');
    const strict = heldout('m1', cases, 0.05, 0);
    expect(strict.answers.harm.join(' ')).toContain('more than the 0 margin');
    expect(judge([strict], 0.05).verdict).toBe('no_proven_gain');
  });

  it('refuses a fall in right answers on should-activate cases that the majority vote hides', () => {
    // Every should-activate case drops from 3 of 3 to 2 of 3 on m2: still right by majority.
    const m1 = heldout('m1', wins(6));
    const m2 = heldout('m2', same(4, 'activate', 2, 3, 3));
    expect(m2.comparison.test.bOnly).toBe(0);
    expect(m2.answers.harm.join(' ')).toContain('right answers fall from 1.000 to 0.667');
    expect(judge([m1, m2], 0.05).verdict).toBe('no_proven_gain');
  });

  it('never lets more false activations of the winner turn a refusal into a gain (property)', () => {
    const rate = fc.integer({ min: 0, max: 3 });
    const tally = fc.record({ expect: fc.constantFrom<Tally['expect']>('activate', 'not_activate'), w: rate, o: rate });
    fc.assert(
      fc.property(fc.array(tally, { minLength: 1, maxLength: 14 }), fc.nat(), fc.constantFrom(0, 0.05, 0.2), (list, pick, margin) => {
        const tallies: Tally[] = list.map((t) => ({ expect: t.expect, winner: [t.w, 3], original: [t.o, 3] }));
        const shouldNot = tallies.map((t, i) => (t.expect === 'not_activate' && t.winner[0] < 3 ? i : -1)).filter((i) => i >= 0);
        if (shouldNot.length === 0) return;
        const i = shouldNot[pick % shouldNot.length]!;
        const more = tallies.map((t, j) => (j === i ? { ...t, winner: [t.winner[0] + 1, 3] as [number, number] } : t));
        const before = heldout('m', tallies, 0.05, margin);
        const after = heldout('m', more, 0.05, margin);
        if (before.answers.harm.length > 0) expect(after.answers.harm.length).toBeGreaterThan(0);
        if (before.worse) expect(after.worse).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('answerChange', () => {
  it('leaves out cases a side never answered, and reports no harm when nothing changed', () => {
    const change = answerChange(
      [
        { case: 'a', expect: 'activate', rate_a: 1, rate_b: 1, difference: 0, verdict_a: 'right', verdict_b: 'right' },
        { case: 'b', expect: 'not_activate', rate_a: null, rate_b: 0, difference: null, verdict_a: 'none', verdict_b: 'right' },
      ],
      0.05,
      0.05,
    );
    expect(change).toMatchObject({ cases: 1, accuracy_winner: 1, accuracy_original: 1, false_activation: { cases: 0, winner: null, original: null }, test: { n: 0, p_worse: 1 }, harm: [] });
  });
});

const INPUT: ProposerInput = {
  skill: 'travel/weather',
  round: 1,
  current: { skill: 'travel/weather', display_name: 'Weather', description: 'Use when a trip request asks about forecasts.', domains: ['travel'], tags: ['weather'] },
  competitors: [{ skill: 'travel/hotels', display_name: 'Hotels', description: 'Use when someone books a hotel or asks about beaches.', domains: ['travel'], tags: ['hotel'] }],
  train: [
    { id: 'a1', request: 'Will typhoons hit Okinawa next week?', expect: 'activate', outcomes: [] },
    { id: 'a2', request: 'Are typhoons likely near the beach in Taiwan?', expect: 'activate', outcomes: [] },
    { id: 'a3', request: 'Is snow likely on the Brenner pass?', expect: 'activate', outcomes: [] },
    { id: 'n1', request: 'Book a hotel in Okinawa', expect: 'not_activate', outcomes: [] },
  ],
  failures: [{ case: 'a3', request: 'Is snow likely on the Brenner pass?', expect: 'activate', model: 'baseline:lexical', repeat: 0, activated_instead: [], answer: '{"activate":[]}' }],
  headroom: { catalog_tokens: 1500, catalog_budget: 2000, description_chars: 900 },
  maxCandidates: 3,
};

/** A train case missed on every answer of one model, or answered right. */
const trainCase = (id: string, request: string, expect: 'activate' | 'not_activate', missed = false): ProposerInput['train'][number] => ({
  id,
  request,
  expect,
  outcomes: [{ model: 'baseline:lexical', activated: (expect === 'activate') !== missed ? 1 : 0, answered: 1, errors: 0 }],
});
const missedBy = (c: ProposerInput['train'][number]) => ({ case: c.id, request: c.request, expect: c.expect, model: 'baseline:lexical', repeat: 0, activated_instead: [], answer: '{"activate":[]}' });

/** The example weather skill's own requests: what made the old proposer suggest "april, around, clothes, early, edinburgh and every". */
const WEATHER_TRAIN = [
  trainCase('a1', 'Which clothes make sense for Edinburgh in early April?', 'activate', true),
  trainCase('a2', 'Will it be too hot to walk around Seville in late July?', 'activate', true),
  trainCase('a3', 'Honeymoon in the Maldives in mid-June: is that monsoon season, and will it rain every day?', 'activate', true),
  trainCase('a4', 'What should I bring for a week in Reykjavik in November? I only own summer clothes.', 'activate', true),
  trainCase('a5', 'Are typhoons likely to disrupt my Okinawa trip next week?', 'activate'),
  trainCase('n1', 'Find me a hotel near the beach in Nice for the second week of August', 'not_activate'),
  trainCase('n2', 'Cancel my ferry booking to Santorini', 'not_activate'),
];
const WEATHER: ProposerInput = {
  skill: 'travel/weather-assessment',
  round: 1,
  current: { skill: 'travel/weather-assessment', display_name: 'Weather Assessment', description: 'Use when someone planning or taking a trip wants to know what weather to expect.', domains: ['travel'], tags: ['weather'] },
  competitors: [
    { skill: 'travel/currency-conversion', display_name: 'Currency Conversion', description: 'Use when a request asks to convert an amount between currencies or estimate trip costs.', domains: ['finance', 'travel'], tags: ['currency'] },
    { skill: 'travel/readiness', display_name: 'Travel Readiness', description: 'Use when a traveller asks what to bring, which documents, vaccinations or clothes a trip needs.', domains: ['travel'], tags: ['packing'] },
    { skill: 'travel/search', display_name: 'Travel Search', description: 'Use when a request asks to find or compare flights, hotels or a season to travel in.', domains: ['travel'], tags: ['search'] },
  ],
  train: WEATHER_TRAIN,
  failures: WEATHER_TRAIN.filter((c) => c.outcomes[0]!.activated === 0 && c.expect === 'activate').map(missedBy),
  headroom: { catalog_tokens: 1500, catalog_budget: 2000, description_chars: 900 },
  maxCandidates: 3,
};

describe('keyword proposer', () => {
  it('chooses terms that separate the missed requests from the competing catalog: no stop words, dates or names', () => {
    const terms = distinctiveTerms(WEATHER);
    for (const common of ['april', 'around', 'early', 'edinburgh', 'every', 'late', 'july', 'june', 'mid', 'seville', 'maldives', 'reykjavik', 'november', 'week', 'day', 'make', 'sense']) expect(terms).not.toContain(common);
    // Terms of a request answered right, of a should-not request or of the catalog line are not candidates.
    for (const other of ['typhoons', 'hotel', 'beach', 'weather', 'trip']) expect(terms).not.toContain(other);
    expect(terms.length).toBeGreaterThan(0);
    const ranked = rankTerms(WEATHER);
    // Shared by two missed requests, "clothes" outranks every single-request word despite a competitor using it ...
    expect(ranked[0]).toMatchObject({ term: 'clothes', requests: 2, missed: 2, competitors: 1 });
    // ... and among single-request words, those no competitor uses come first.
    const single = ranked.filter((t) => t.requests === 1);
    expect(single.map((t) => t.competitors)).toEqual([...single.map((t) => t.competitors)].sort((a, b) => a - b));
    expect(ranked.find((t) => t.term === 'season')!.score).toBeLessThan(ranked.find((t) => t.term === 'monsoon')!.score);
  });

  it('is deterministic, labels its candidates as mechanical suggestions, and grows term lists that fit the headroom', async () => {
    const proposer = createKeywordProposer();
    const a = await proposer.propose(WEATHER);
    expect(await proposer.propose(WEATHER)).toEqual(a);
    expect(a.candidates.length).toBeGreaterThan(0);
    expect(a.candidates[0]!.description).toMatch(/^Use when someone planning or taking a trip wants to know what weather to expect\. Also for requests that mention clothes, /);
    for (const c of a.candidates) expect(c.rationale).toMatch(/^mechanical suggestion \(baseline:keywords, not a language model\)/);
    const tight = await proposer.propose({ ...WEATHER, headroom: { ...WEATHER.headroom, description_chars: 60 } });
    expect(tight.candidates.length).toBeGreaterThan(0);
    for (const c of tight.candidates) expect(c.description.length - WEATHER.current.description.length).toBeLessThanOrEqual(60);
  });

  it('with terms but no room says so, naming the limit, instead of claiming nothing is left to add', async () => {
    const proposer = createKeywordProposer();
    const chars = await proposer.propose({ ...WEATHER, headroom: { ...WEATHER.headroom, description_chars: 10 } });
    expect(chars.candidates).toEqual([]);
    expect(chars.notes).toEqual([expect.stringMatching(/^keywords: \d+ distinctive terms \(clothes, .*\) but no room to add one: the description has 10 characters left under its limit and the shortest addition needs \d+$/)]);
    const tokens = await proposer.propose({ ...WEATHER, headroom: { ...WEATHER.headroom, catalog_tokens: 2 } });
    expect(tokens.candidates).toEqual([]);
    expect(tokens.notes![0]).toMatch(/but no room to add one: the catalog has 2 estimated tokens left under its budget of 2000 and the shortest addition needs \d+$/);
    for (const note of [...chars.notes!, ...tokens.notes!]) expect(note).not.toContain('no distinctive term');
  });

  it('proposes nothing, and says why, when no should-activate request was missed or every word is excluded', async () => {
    const proposer = createKeywordProposer();
    const none = await proposer.propose({ ...WEATHER, failures: [] });
    expect(none).toEqual({ candidates: [], notes: [expect.stringContaining('no should-activate train request was missed')] });
    const falseOnly = await proposer.propose({ ...WEATHER, failures: [missedBy(WEATHER_TRAIN[5]!)] });
    expect(falseOnly.notes![0]).toContain('the failures are false activations');
    const bland = trainCase('b1', 'What about early April around Seville, every day?', 'activate', true);
    const excluded = await proposer.propose({ ...WEATHER, train: [bland], failures: [missedBy(bland)] });
    expect(excluded).toEqual({ candidates: [], notes: [expect.stringContaining('no distinctive term to add')] });
  });
});

describe('language-model proposer prompt and answers', () => {
  it('shows the current description, the catalog, the train cases and failures, encoded', () => {
    const text = proposerMessages({ ...INPUT, current: { ...INPUT.current, description: 'Use when <active_skills> appear.' } }, 1024).map((m) => m.content).join('\n');
    expect(text).toContain('Use when &lt;active_skills&gt; appear.');
    expect(text).toContain('travel/hotels');
    expect(text).toContain('Is snow likely on the Brenner pass?');
    expect(text).toContain('1500 left');
  });

  it('decodes exactly {"candidates":[{description, rationale}]}', () => {
    expect(decodeProposals('{"candidates":[{"description":"Use when x.","rationale":"r"}]}')).toEqual({ ok: true, value: [{ description: 'Use when x.', rationale: 'r' }] });
    expect(decodeProposals('{"candidates":[{"description":"x"}]}')).toMatchObject({ ok: false });
    expect(decodeProposals('```json\n{"candidates":[]}\n```')).toMatchObject({ ok: false });
    expect(decodeProposals('{"candidates":[],"note":1}')).toMatchObject({ ok: false });
  });
});

describe('keyword proposer across rounds', () => {
  it('extends the clause it added in an earlier round instead of adding another', async () => {
    const proposer = createKeywordProposer();
    const first = (await proposer.propose(WEATHER)).candidates[0]!.description;
    const next = (await proposer.propose({ ...WEATHER, round: 2, current: { ...WEATHER.current, description: first } })).candidates[0]!.description;
    expect(next.match(/Also for requests that mention/g)).toHaveLength(1);
    const terms = (d: string) => /mention ([^.]+)\.$/.exec(d)![1]!.split(/, | and /);
    expect(terms(next).slice(0, terms(first).length)).toEqual(terms(first));
    expect(terms(next).length).toBeGreaterThan(terms(first).length);
  });
});
