/**
 * The example workspace a newcomer sees on first run: every package must sit at
 * `skills/packages/<namespace>/<name>.json`, be a complete V1 package that
 * passes validation without warnings, and carry meaningful activation examples.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatePackage } from '../../core/package/validate';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const PACKAGES = join(EXAMPLES, 'skills', 'packages');
const EVALS = join(EXAMPLES, 'skills', 'evals');

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ACTIVATION_PHRASES = ['use when', 'activate when', 'when a', 'when the', 'for requests', 'for tasks', 'whenever'];
const PACKAGE_FIELDS = ['display_name', 'description', 'domains', 'tags', 'planning_instructions', 'response_instructions', 'tool_hints', 'resources', 'activation_examples', 'change_reason'];
const RESOURCE_FIELDS = ['name', 'description', 'load_when', 'applies_to', 'required_when_selected', 'content_type', 'content'];
const BOUNDARIES = ['planning', 'continuation', 'synthesis'];

interface ExampleResource {
  name: string;
  description: string;
  load_when: string;
  applies_to: string[];
  required_when_selected: boolean;
  content_type: string;
  content: string;
}
interface ExamplePackage {
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
  planning_instructions: string[];
  response_instructions: string[];
  tool_hints: string[];
  resources: ExampleResource[];
  activation_examples: { should_activate: string[]; should_not_activate: string[] };
  change_reason: string;
}
interface Example {
  file: string;
  namespace: string;
  name: string;
  text: string;
  pkg: ExamplePackage;
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []));
}

const examples: Example[] = jsonFiles(PACKAGES)
  .sort()
  .map((file) => {
    const text = readFileSync(file, 'utf8');
    return { file: relative(EXAMPLES, file), namespace: basename(dirname(file)), name: basename(file, '.json'), text, pkg: JSON.parse(text) as ExamplePackage };
  });
const byId = new Map<string, Example>(examples.map((e) => [`${e.namespace}/${e.name}`, e]));

function isSortedUnique(list: readonly string[]): boolean {
  return list.every((v, i) => i === 0 || list[i - 1]! < v);
}

describe('example packages', () => {
  it('include the travel and devops skills of the first-run workspace', () => {
    expect([...byId.keys()].sort()).toEqual(
      expect.arrayContaining([
        'devops/kubernetes-safety',
        'devops/observability-investigation',
        'travel/action-verification',
        'travel/currency-conversion',
        'travel/travel-readiness-assessment',
        'travel/travel-search-preparation',
        'travel/weather-assessment',
      ]),
    );
    expect(examples.length).toBeGreaterThanOrEqual(8);
  });

  it.each(examples.map((e) => [e.file, e] as const))('%s follows the path, identity and package conventions', (_file, e) => {
    // Identity comes from the path: skills/packages/<namespace>/<name>.json, both slugs.
    expect(relative(PACKAGES, join(EXAMPLES, e.file)).split(/[\\/]/)).toHaveLength(2);
    expect(e.namespace).toMatch(SLUG);
    expect(e.name).toMatch(SLUG);
    expect(e.namespace.length).toBeLessThanOrEqual(64);
    expect(e.name.length).toBeLessThanOrEqual(64);

    const p = e.pkg;
    expect(Object.keys(p)).toEqual(PACKAGE_FIELDS);
    expect(p.display_name.trim()).not.toBe('');
    expect(p.description.length).toBeLessThanOrEqual(320);
    expect(ACTIVATION_PHRASES.some((phrase) => p.description.toLowerCase().includes(phrase))).toBe(true);
    for (const list of [p.domains, p.tags]) {
      expect(list.every((v) => SLUG.test(v))).toBe(true);
      expect(isSortedUnique(list)).toBe(true);
    }
    expect(p.domains).toContain(e.namespace);
    expect(p.planning_instructions.length).toBeGreaterThanOrEqual(2);
    expect(p.planning_instructions.length).toBeLessThanOrEqual(4);
    expect(p.response_instructions.length).toBeGreaterThan(0);
    expect(p.tool_hints.length).toBeGreaterThan(0);
    for (const entry of [...p.planning_instructions, ...p.response_instructions, ...p.tool_hints]) expect(entry).toBe(entry.trim());

    expect(p.resources.length).toBeLessThanOrEqual(2);
    const names = p.resources.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const r of p.resources) {
      expect(Object.keys(r)).toEqual(RESOURCE_FIELDS);
      expect(r.name).toMatch(SLUG);
      expect(r.load_when).toMatch(/^Load when /);
      // A concrete condition, not "Load when relevant."
      expect(r.load_when.split(/\s+/).length).toBeGreaterThan(8);
      expect(r.applies_to.every((b) => BOUNDARIES.includes(b))).toBe(true);
      expect(new Set(r.applies_to).size).toBe(r.applies_to.length);
      expect(['text/plain', 'text/markdown']).toContain(r.content_type);
      expect(r.content.length).toBeGreaterThan(100);
    }

    const { should_activate: yes, should_not_activate: no } = p.activation_examples;
    expect(yes.length).toBeGreaterThanOrEqual(3);
    expect(yes.length).toBeLessThanOrEqual(5);
    expect(no.length).toBeGreaterThanOrEqual(3);
    expect(no.length).toBeLessThanOrEqual(5);
    expect(yes.filter((r) => no.includes(r))).toEqual([]);
    expect(p.change_reason.trim()).not.toBe('');
  });

  it.each(examples.map((e) => [e.file, e] as const))('%s has near-miss negatives that a sibling skill claims', (_file, e) => {
    // A negative example is only informative when a neighbouring skill should take it.
    const siblingPositives = new Set(examples.filter((o) => o.namespace === e.namespace && o !== e).flatMap((o) => o.pkg.activation_examples.should_activate));
    const claimed = e.pkg.activation_examples.should_not_activate.filter((r) => siblingPositives.has(r));
    expect(claimed.length).toBeGreaterThanOrEqual(1);
  });

  it.each(examples.map((e) => [e.file, e] as const))('%s carries no credential-like or instruction-overriding text', (_file, e) => {
    const text = e.text.toLowerCase();
    for (const pattern of [/ignore (all |any )?(previous|prior|above) instructions/, /disregard .*instructions/, /\bsk-[a-z0-9]{10,}/, /akia[0-9a-z]{16}/, /-----begin [a-z ]*private key-----/, /\b(password|passwd|api[_-]?key|secret[_-]?key|bearer)\s*[:=]/, /<\/?(skill_precedence|active_skills|active_skill_tool_hints)>/]) {
      expect(text).not.toMatch(pattern);
    }
  });

  it.each(examples.map((e) => [e.file, e] as const))('%s passes the package validator with zero warnings', (_file, e) => {
    const result = validatePackage(e.text, { id: { namespace: e.namespace, name: e.name } });
    expect({ valid: result.valid, errors: result.errors, warnings: result.warnings }).toEqual({ valid: true, errors: [], warnings: [] });
    // The files are stored already normalized, so what a reader sees is what gets published.
    expect(result.normalized).toEqual(e.pkg);
  });
});

describe('example bindings', () => {
  const bindingFiles = jsonFiles(join(EXAMPLES, 'bindings')).sort();

  it('exist for travel and devops', () => {
    expect(bindingFiles.map((f) => basename(f))).toEqual(expect.arrayContaining(['devops.json', 'travel.json']));
  });

  it.each(bindingFiles.map((f) => [relative(EXAMPLES, f), f] as const))('%s is a TRUVAG3_SKILL_BINDINGS_JSON list of existing example packages', (_name, file) => {
    const bindings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    expect(Array.isArray(bindings)).toBe(true);
    const agent = basename(file, '.json');
    for (const b of bindings) {
      expect(Object.keys(b).sort()).toEqual(['activation', 'name', 'namespace', 'required', 'version']);
      expect(['always', 'auto', 'explicit']).toContain(b.activation);
      expect(typeof b.required).toBe('boolean');
      expect(b.version === 'published' || /^[1-9][0-9]*$/.test(String(b.version))).toBe(true);
      expect(byId.has(`${String(b.namespace)}/${String(b.name)}`)).toBe(true);
    }
    const ids = bindings.map((b) => `${String(b.namespace)}/${String(b.name)}`);
    expect(new Set(ids).size).toBe(ids.length);
    // Every example skill of the agent's namespace is bound.
    expect(ids.sort()).toEqual([...byId.keys()].filter((k) => k.startsWith(`${agent}/`)).sort());
  });

  it('bind action verification and Kubernetes safety as always active, the latter required', () => {
    const load = (name: string): Record<string, unknown>[] => JSON.parse(readFileSync(join(EXAMPLES, 'bindings', `${name}.json`), 'utf8')) as Record<string, unknown>[];
    expect(load('travel').find((b) => b.name === 'action-verification')).toMatchObject({ activation: 'always' });
    expect(load('devops').find((b) => b.name === 'kubernetes-safety')).toMatchObject({ activation: 'always', required: true });
  });
});

describe('example eval cases', () => {
  const files = jsonFiles(EVALS).sort();

  it('include extra cases for travel/weather-assessment', () => {
    expect(files.map((f) => relative(EVALS, f).split(/[\\/]/).join('/'))).toContain('travel/weather-assessment.json');
  });

  it.each(files.map((f) => [relative(EXAMPLES, f), f] as const))('%s follows docs/eval-cases.md and names real resources', (_name, file) => {
    const id = `${basename(dirname(file))}/${basename(file, '.json')}`;
    const target = byId.get(id);
    expect(target).toBeDefined();
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { cases: Record<string, unknown>[] };
    expect(Object.keys(doc)).toEqual(['cases']);
    expect(doc.cases.length).toBeGreaterThan(0);
    const labelled = new Map<string, string>([
      ...target!.pkg.activation_examples.should_activate.map((r) => [r, 'activate'] as const),
      ...target!.pkg.activation_examples.should_not_activate.map((r) => [r, 'not_activate'] as const),
    ]);
    for (const c of doc.cases) {
      for (const key of Object.keys(c)) expect(['request', 'expect', 'expected_resources', 'boundary']).toContain(key);
      expect(typeof c.request).toBe('string');
      expect(String(c.request).trim()).not.toBe('');
      expect(['activate', 'not_activate']).toContain(c.expect);
      const earlier = labelled.get(String(c.request));
      if (earlier !== undefined) expect(c.expect).toBe(earlier);
      if (c.boundary !== undefined) {
        expect(BOUNDARIES).toContain(c.boundary);
        expect(c.expected_resources).toBeDefined();
      }
      if (c.expected_resources !== undefined) {
        expect(c.expect).toBe('activate');
        const boundary = (c.boundary as string | undefined) ?? 'planning';
        for (const name of c.expected_resources as string[]) {
          const resource = target!.pkg.resources.find((r) => r.name === name);
          expect(resource, `${name} in ${id}`).toBeDefined();
          expect(resource!.applies_to.length === 0 || resource!.applies_to.includes(boundary)).toBe(true);
        }
      }
    }
    expect(doc.cases.some((c) => c.expect === 'activate')).toBe(true);
    expect(doc.cases.some((c) => c.expect === 'not_activate')).toBe(true);
  });
});
