import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heldoutModel, judge, type HeldoutModel, type OptimizeReport } from '../../../../evals/optimize';
import { compareCases, type CasePair } from '../../../../evals/paired';
import { optimizeHtml } from '../../../../evals/reports/optimizeHtml';

/** One held-out case: the skill's activations out of answered repeats for the winner and the original. */
type Tally = { expect: 'activate' | 'not_activate'; w: number; o: number };

function model(name: string, tallies: Tally[], margin: number, repeats = 3): HeldoutModel {
  const pairs: CasePair[] = tallies.map((t, i) => ({ case: `c${i}`, expect: t.expect, a: { activated: t.w, answered: repeats }, b: { activated: t.o, answered: repeats } }));
  const comparison = { kind: 'variant' as const, skill: 'travel/weather', a: 'draft', b: 'original', unit: 'case' as const, model: name, ...compareCases(pairs, 0.05) };
  const score = (side: 'w' | 'o') => {
    const right = tallies.reduce((sum, t) => sum + (t.expect === 'activate' ? t[side] : repeats - t[side]), 0);
    const answered = tallies.length * repeats;
    return { model: name, accuracy: answered === 0 ? null : right / answered, correct: right, answered, errors: 0 };
  };
  return heldoutModel({ model: name, winner: score('w'), original: score('o'), comparison }, 0.05, margin);
}

/** A report around the held-out comparisons, with the verdict the optimizer's own judge draws. */
function report(heldout: HeldoutModel[], margin: number): OptimizeReport {
  const verdict = judge(heldout, 0.05);
  return {
    format: 'skillbench.optimize/v1',
    skill: 'travel/weather',
    file: 'skills/packages/travel/weather.json',
    seed: 7,
    verdict: verdict.verdict,
    reason: verdict.reason,
    winner: verdict.verdict === 'proven_gain' ? { candidate: 'r1c1', description: 'Use when a trip needs weather.', patch: [], catalog_tokens: 500 } : null,
    best: { candidate: 'r1c1', description: 'Use when a trip needs weather.', mean_train: 0.9 },
    models: heldout.map((h) => ({ spec: h.model, isBaseline: false })),
    proposer: { spec: 'openai:smart', isBaseline: false },
    repeats: 3,
    alpha: 0.05,
    harm_margin: margin,
    split: { seed: 7, holdout: 0.4, train: [], heldout: [] },
    catalog: { budget: 2000, source: 'local', competitors: [] },
    warnings: [],
    original: { description: 'Use for weather.', catalog_tokens: 490, line_tokens: 40, train: [], mean_train: 0.8 },
    candidates: [],
    rounds: [],
    heldout,
    runs: [],
  };
}

const gains = (n: number): Tally[] => Array.from({ length: n }, () => ({ expect: 'activate', w: 3, o: 0 }));
const steady = (n: number, expect: Tally['expect']): Tally[] => Array.from({ length: n }, () => ({ expect, w: expect === 'activate' ? 3 : 0, o: expect === 'activate' ? 3 : 0 }));

describe('optimizer HTML report', () => {
  it('shows a model whose answers got worse as worse, under no green badge', () => {
    const html = optimizeHtml(report([model('m1', gains(6), 0.05), model('m2', [...steady(6, 'activate'), ...Array.from({ length: 6 }, (): Tally => ({ expect: 'not_activate', w: 1, o: 0 }))], 0.05)], 0.05));
    expect(html).toContain('<span class="verdict none">no proven gain</span>');
    expect(html).toMatch(/<td class="bad">worse: false activations on the should-not cases rise from 0.000 to 0.333/);
    expect(html).toContain('33.3% vs 0.0%');
  });

  it('shows a drop within the margin in amber, named, never under a green badge', () => {
    // m2: one should-not case of twenty fires on 1 of 3 repeats; within a 0.05 margin, not significant.
    const m2 = model('m2', [...steady(19, 'not_activate'), { expect: 'not_activate', w: 1, o: 0 }], 0.05);
    const r = report([model('m1', gains(6), 0.05), m2], 0.05);
    expect(r.verdict).toBe('proven_gain');
    const html = optimizeHtml(r);
    expect(html).toContain('<span class="verdict warn">proven gain</span>');
    expect(html).toContain('Lower on some answers, within the 0.05 harm margin: m2 (right answers 1.000 → 0.983, false activations 0.000 → 0.017).');
    expect(html).toMatch(/<td class="warn">lower per answer within the 0.05 margin: right answers 1.000 → 0.983, false activations 0.000 → 0.017<\/td>/);
    expect(html).toMatch(/<td class="ok">better \(significant\)<\/td>/);
  });

  it('is green only when no model lost anything (property)', () => {
    const tally = fc.record({ expect: fc.constantFrom<Tally['expect']>('activate', 'not_activate'), w: fc.integer({ min: 0, max: 3 }), o: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(fc.array(tally, { maxLength: 12 }), fc.constantFrom(0, 0.05, 0.3), (other, margin) => {
        const models = [model('m1', gains(7), margin), model('m2', other, margin)];
        const r = report(models, margin);
        const html = optimizeHtml(r);
        // Rates are means of thirds: equal ones may differ in the last bit.
        const below = (a: number | null, b: number | null) => a !== null && b !== null && a < b - 1e-9;
        const lost = models.some((m) => m.comparison.test.bOnly > 0 || below(m.answers.accuracy_winner, m.answers.accuracy_original) || below(m.answers.false_activation.original, m.answers.false_activation.winner));
        if (lost) expect(html).not.toContain('class="verdict ok"');
        expect(html.includes('class="verdict ok"') || html.includes('class="verdict warn"')).toBe(r.verdict === 'proven_gain');
        if (r.verdict === 'proven_gain') expect(models.every((m) => !m.worse)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
