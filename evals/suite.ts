/**
 * Evaluation suites: the labelled requests of one skill under test.
 *
 * A suite is the package's `activation_examples` (should_activate and
 * should_not_activate) plus optional extra cases kept beside the workspace in
 * `skills/evals/<namespace>/<name>.json` (format: docs/eval-cases.md). Case ids
 * are derived from content, so a draft and its published revision share the
 * ids of the cases they have in common and can be compared pair by pair.
 */
import { createHash } from 'node:crypto';
import { BOUNDARIES, skillKey, type Boundary, type Finding, type SkillId, type SkillPackage } from '../core/package/types';
import { parseJsonDocument } from '../core/package/parse';
import type { CaseSource, EvalCase, Expectation } from '../core/report/evalResults';

// A case is recorded in every run header and carried by the API: its shape lives in core.
export type { CaseSource, EvalCase } from '../core/report/evalResults';

/** The skill under test and its cases. */
export interface EvalSuite {
  skill: SkillId;
  /** The package under test (a draft from a file, or a stored revision). */
  package: SkillPackage;
  cases: EvalCase[];
}

function caseId(skill: string, expect: Expectation, boundary: Boundary, request: string, context: string | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([skill, expect, boundary, request, context ?? null]))
    .digest('hex')
    .slice(0, 16);
}

/** Builds a case with its content-derived id. */
export function makeCase(skill: string, source: CaseSource, request: string, expect: Expectation, extra: Partial<EvalCase> = {}): EvalCase {
  const boundary = extra.boundary ?? 'planning';
  return {
    id: caseId(skill, expect, boundary, request, extra.context),
    skill,
    source,
    request,
    expect,
    boundary,
    ...(extra.expectedResources ? { expectedResources: extra.expectedResources } : {}),
    ...(extra.context !== undefined ? { context: extra.context } : {}),
    ...(extra.from !== undefined ? { from: extra.from } : {}),
  };
}

/** The cases of a package's own activation examples, should_activate first. */
export function casesFromPackage(id: SkillId, pkg: SkillPackage): EvalCase[] {
  const skill = skillKey(id);
  return [
    ...pkg.activation_examples.should_activate.map((r) => makeCase(skill, 'should_activate', r, 'activate')),
    ...pkg.activation_examples.should_not_activate.map((r) => makeCase(skill, 'should_not_activate', r, 'not_activate')),
  ];
}

/** Result of reading an extra-cases file: cases, or findings with locations. */
export interface ExtraCasesResult {
  cases: EvalCase[];
  findings: Finding[];
}

const CASE_FIELDS = new Set(['request', 'expect', 'expected_resources', 'boundary', 'context']);

/**
 * Parses an extra-cases document (`{"cases": [{request, expect, expected_resources?, boundary?, context?}]}`).
 * Every problem is a finding with a JSON Pointer and line/column; valid cases are kept.
 */
export function parseExtraCases(id: SkillId, text: string, pkg?: SkillPackage): ExtraCasesResult {
  const skill = skillKey(id);
  const doc = parseJsonDocument(text);
  if (!doc.ok) return { cases: [], findings: doc.findings };
  const findings: Finding[] = [];
  const fail = (path: string, code: string, message: string) => {
    const at = doc.locate(path);
    findings.push({ severity: 'error', code, path, message, ...(at ? { line: at.line, column: at.column, endLine: at.endLine, endColumn: at.endColumn } : {}) });
  };
  const root = doc.value as { cases?: unknown } | null;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    fail('', 'eval_cases_shape', 'An eval-cases file is an object with a "cases" array.');
    return { cases: [], findings };
  }
  for (const key of Object.keys(root)) if (key !== 'cases') fail(`/${key}`, 'unknown_field', `Unknown field "${key}"; an eval-cases file has only "cases".`);
  if (!Array.isArray(root.cases)) {
    fail('/cases', 'eval_cases_shape', '"cases" must be an array.');
    return { cases: [], findings };
  }
  if (root.cases.length === 0) fail('/cases', 'eval_cases_empty', '"cases" needs at least one case.');
  const cases: EvalCase[] = [];
  root.cases.forEach((raw: unknown, i: number) => {
    const at = `/cases/${i}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(at, 'eval_case_shape', 'Each case is an object.');
    const c = raw as Record<string, unknown>;
    let ok = true;
    for (const key of Object.keys(c)) {
      if (!CASE_FIELDS.has(key)) {
        fail(`${at}/${key}`, 'unknown_field', `Unknown case field "${key}".`);
        ok = false;
      }
    }
    if (typeof c.request !== 'string' || c.request.trim() === '') {
      fail(`${at}/request`, 'eval_case_request', '"request" must be a non-empty string.');
      ok = false;
    }
    if (c.expect !== 'activate' && c.expect !== 'not_activate') {
      fail(`${at}/expect`, 'eval_case_expect', '"expect" must be "activate" or "not_activate".');
      ok = false;
    }
    if (c.boundary !== undefined && !BOUNDARIES.includes(c.boundary as Boundary)) {
      fail(`${at}/boundary`, 'eval_case_boundary', `"boundary" must be one of ${BOUNDARIES.join(', ')}.`);
      ok = false;
    }
    const resources = c.expected_resources;
    if (resources !== undefined && (!Array.isArray(resources) || resources.some((r) => typeof r !== 'string'))) {
      fail(`${at}/expected_resources`, 'eval_case_resources', '"expected_resources" must be an array of resource names.');
      ok = false;
    }
    if (resources !== undefined && c.expect !== 'activate') {
      fail(`${at}/expected_resources`, 'eval_case_resources', '"expected_resources" only goes with "expect": "activate".');
      ok = false;
    }
    if (c.boundary !== undefined && resources === undefined) {
      fail(`${at}/boundary`, 'eval_case_boundary', '"boundary" only goes with "expected_resources": it is where they are judged.');
      ok = false;
    }
    if (pkg && Array.isArray(resources)) {
      const boundary = (c.boundary ?? 'planning') as Boundary;
      resources.forEach((name, j) => {
        const resource = pkg.resources.find((r) => r.name === name);
        if (!resource) {
          fail(`${at}/expected_resources/${j}`, 'eval_case_unknown_resource', `The package has no resource "${String(name)}".`);
          ok = false;
        } else if (resource.applies_to.length > 0 && !resource.applies_to.includes(boundary)) {
          fail(`${at}/expected_resources/${j}`, 'eval_case_resource_boundary', `Resource "${resource.name}" does not apply to the ${boundary} boundary.`);
          ok = false;
        }
      });
    }
    if (c.context !== undefined && typeof c.context !== 'string') {
      fail(`${at}/context`, 'eval_case_context', '"context" must be a string.');
      ok = false;
    }
    if (!ok) return;
    cases.push(
      makeCase(skill, 'extra', (c.request as string).trim(), c.expect as Expectation, {
        ...(c.boundary !== undefined ? { boundary: c.boundary as Boundary } : {}),
        ...(resources !== undefined ? { expectedResources: [...(resources as string[])].sort() } : {}),
        ...(typeof c.context === 'string' ? { context: c.context } : {}),
      }),
    );
  });
  return { cases, findings };
}

/** Builds a suite, dropping repeated cases (same id) so a duplicate example is not weighted twice. */
export function buildSuite(id: SkillId, pkg: SkillPackage, extras: EvalCase[] = []): EvalSuite {
  const seen = new Set<string>();
  const cases: EvalCase[] = [];
  for (const c of [...casesFromPackage(id, pkg), ...extras]) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    cases.push(c);
  }
  return { skill: { namespace: id.namespace, name: id.name }, package: pkg, cases };
}
