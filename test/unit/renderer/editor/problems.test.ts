import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../core/package/types';
import { validatePackage } from '../../../../core/package/index';
import { countProblems, filterProblems, parseProblemFilter, stepProblem } from '../../../../renderer/editor/problems';

const f = (severity: Finding['severity'], path: string, line: number | undefined, code = 'x', message = 'm'): Finding => ({
  severity,
  code,
  path,
  message,
  ...(line !== undefined ? { line, column: 3 } : {}),
});

describe('problems filter', () => {
  const findings = [
    f('error', '/description', 3, 'description_missing_activation_language', 'says nothing about when to use it'),
    f('warning', '/activation_examples/should_activate/1', 20, 'duplicate_example', 'duplicates entry 0'),
    f('error', '/colour', 2, 'unknown_field', "unknown field 'colour'"),
  ];

  it('keeps everything without terms', () => {
    expect(filterProblems(findings, '  ,  ')).toEqual(findings);
  });

  it('matches any include term against pointer, code, message and severity', () => {
    expect(filterProblems(findings, 'description').map((x) => x.path)).toEqual(['/description']);
    expect(filterProblems(findings, 'WARNING').map((x) => x.path)).toEqual(['/activation_examples/should_activate/1']);
    expect(filterProblems(findings, 'colour, duplicates').map((x) => x.path)).toEqual(['/activation_examples/should_activate/1', '/colour']);
  });

  it('drops what a ! term names, with or without include terms', () => {
    expect(filterProblems(findings, '!warning').map((x) => x.severity)).toEqual(['error', 'error']);
    expect(filterProblems(findings, 'error, !colour').map((x) => x.path)).toEqual(['/description']);
    expect(parseProblemFilter('a, !b, !, c')).toEqual({ include: ['a', 'c'], exclude: ['b'] });
  });
});

describe('stepping through problems (F8 / Shift+F8)', () => {
  const findings = [f('warning', '/b', 20), f('error', '/a', 5), f('error', '', undefined)];

  it('goes to the next problem after the cursor, in document order, wrapping', () => {
    expect(stepProblem(findings, { line: 1, column: 1 }, 1)?.path).toBe('/a');
    expect(stepProblem(findings, { line: 5, column: 3 }, 1)?.path).toBe('/b');
    expect(stepProblem(findings, { line: 30, column: 1 }, 1)?.path).toBe('');
  });

  it('goes backwards with Shift+F8, wrapping to the last', () => {
    expect(stepProblem(findings, { line: 20, column: 3 }, -1)?.path).toBe('/a');
    expect(stepProblem(findings, { line: 1, column: 1 }, -1)?.path).toBe('/b');
    expect(stepProblem([], { line: 1, column: 1 }, 1)).toBeUndefined();
  });

  it('walks the located findings of a real verdict', () => {
    const text = '{\n  "display_name": "X",\n  "colour": 1,\n  "description": "Use when testing.",\n  "planning_instructions": ["Do it."],\n  "change_reason": "t"\n}';
    const check = validatePackage(text);
    const all = [...check.errors, ...check.warnings];
    const first = stepProblem(all, { line: 1, column: 1 }, 1);
    expect(first?.path).toBe('/colour');
    expect(first?.line).toBe(3);
    expect(countProblems(all).errors).toBe(check.errors.length);
  });
});
