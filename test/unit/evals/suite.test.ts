import { describe, expect, it } from 'vitest';
import { buildSuite, casesFromPackage, parseExtraCases } from '../../../evals/suite';
import type { SkillPackage } from '../../../core/package/types';

const id = { namespace: 'travel', name: 'weather-assessment' };
const pkg: SkillPackage = {
  display_name: 'Weather',
  description: 'Use when a trip depends on the weather.',
  domains: ['travel'],
  tags: [],
  planning_instructions: ['Check the forecast.'],
  response_instructions: [],
  tool_hints: [],
  resources: [],
  activation_examples: { should_activate: ['Will it rain in Oslo?', 'Storms in Tokyo next week?'], should_not_activate: ['Convert 10 USD to EUR'] },
  change_reason: 'test',
};

describe('eval suites', () => {
  it('turns activation examples into labelled cases with stable ids', () => {
    const cases = casesFromPackage(id, pkg);
    expect(cases.map((c) => [c.source, c.expect, c.request])).toEqual([
      ['should_activate', 'activate', 'Will it rain in Oslo?'],
      ['should_activate', 'activate', 'Storms in Tokyo next week?'],
      ['should_not_activate', 'not_activate', 'Convert 10 USD to EUR'],
    ]);
    expect(casesFromPackage(id, { ...pkg, change_reason: 'other' }).map((c) => c.id)).toEqual(cases.map((c) => c.id));
    expect(new Set(cases.map((c) => c.id)).size).toBe(3);
    expect(cases.every((c) => c.skill === 'travel/weather-assessment' && c.boundary === 'planning')).toBe(true);
  });

  it('parses extra cases and locates every problem', () => {
    const text = `{
  "cases": [
    { "request": "Is a typhoon coming to Manila?", "expect": "activate", "expected_resources": ["weather-risk-checklist"], "boundary": "continuation", "context": "Flight booked." },
    { "request": "", "expect": "maybe" },
    { "request": "ok", "expect": "not_activate", "colour": "red" },
    { "request": "Pack for Oslo", "expect": "activate", "expected_resources": ["no-such-resource"] },
    { "request": "Rebook the ferry", "expect": "not_activate", "boundary": "synthesis" }
  ]
}`;
    const withResource: SkillPackage = {
      ...pkg,
      resources: [{ name: 'weather-risk-checklist', description: 'd', load_when: 'Load when storms threaten.', applies_to: [], required_when_selected: false, content_type: 'text/plain', content: 'c' }],
    };
    const { cases, findings } = parseExtraCases(id, text, withResource);
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ source: 'extra', boundary: 'continuation', expectedResources: ['weather-risk-checklist'], context: 'Flight booked.' });
    expect(findings.map((f) => [f.code, f.path, f.line])).toEqual([
      ['eval_case_request', '/cases/1/request', 4],
      ['eval_case_expect', '/cases/1/expect', 4],
      ['unknown_field', '/cases/2/colour', 5],
      ['eval_case_unknown_resource', '/cases/3/expected_resources/0', 6],
      ['eval_case_boundary', '/cases/4/boundary', 7],
    ]);
  });

  it('reports a syntax error with its location instead of throwing', () => {
    expect(parseExtraCases(id, '{"cases": []}').findings.map((f) => f.code)).toEqual(['eval_cases_empty']);
    const { cases, findings } = parseExtraCases(id, '{"cases": [ }');
    expect(cases).toEqual([]);
    expect(findings[0]?.line).toBe(1);
  });

  it('drops duplicate cases from a suite', () => {
    const extra = parseExtraCases(id, JSON.stringify({ cases: [{ request: 'Will it rain in Oslo?', expect: 'activate' }] })).cases;
    expect(buildSuite(id, pkg, extra).cases).toHaveLength(3);
  });
});
