/**
 * Deterministic validation of a V1 package (guide sections 4 and 5.2): the
 * same verdict offline, in the editor's Web Worker and in CI.
 *
 * `validatePackage` accepts the raw body (UTF-8 bytes or text) or an
 * in-memory value, never throws, and returns findings as data in document
 * order, each with a JSON Pointer and, for text, the line and column of the
 * offending key, value or part of a string.
 *
 * Isomorphic: no `node:` imports.
 */
import { canonicalJson } from './canonical';
import { checkLimits, DEFAULT_AUTHORING_LIMITS, RUNTIME_MAX_NAME_CHARS } from './limits';
import { normalizeEntry, normalizePackage, type SkillPackageInput, type SkillResourceInput } from './normalize';
import { decodeUtf8, joinPointer, MAX_JSON_DEPTH, parseJsonDocument, type ParsedJson, type SourceSpan } from './parse';
import {
  ACTIVATION_PHRASES,
  ACTIVATION_PHRASE_EXAMPLES,
  hasActivationLanguage,
  isSlug,
  MAX_FINDINGS,
  MIN_LOAD_WHEN_CHARS,
  MIN_RESOURCE_DESCRIPTION_CHARS,
  RULES,
  VAGUE_LOAD_WHEN,
  type FindingCode,
} from './rules';
import { Scanner, type ScanCache } from './scan';
import { estimateTokens, TOKEN_ESTIMATOR, Utf8Counter, utf8Bytes } from './tokens';
import {
  BOUNDARIES,
  EXAMPLE_KINDS,
  PACKAGE_FIELDS,
  RESOURCE_FIELDS,
  type Finding,
  type PackageMetrics,
  type SkillAuthoringLimits,
  type SkillId,
  type SkillPackage,
  type ValidationResult,
} from './types';

/** Options of {@link validatePackage}. */
export interface ValidateOptions {
  /** The identity the package would be published under; its slugs are checked when given. */
  id?: SkillId;
  /** Overrides of the default authoring limits (guide 9.11). */
  limits?: Partial<SkillAuthoringLimits>;
  /**
   * Scans of the strings of earlier validations, for validating the same
   * package again after an edit: only the strings that changed are scanned.
   * Same result as without it.
   */
  cache?: ScanCache;
}

/**
 * A validation result plus the normalized package. `normalized` is present
 * whenever the document has the right shape (an object whose known fields have
 * the right JSON types), even when semantic checks fail; it is absent for
 * undecodable or unparsable input and for type errors.
 */
export type PackageCheck = ValidationResult & { normalized?: SkillPackage };

const CONTENT_TYPES: readonly string[] = ['text/plain', 'text/markdown'];

/** Top-level fields whose text the runtime projects into prompts (catalog, manifest, resources). */
const PROJECTED_FIELDS = new Set<string>(['display_name', 'description', 'domains', 'tags', 'planning_instructions', 'response_instructions', 'tool_hints', 'resources']);

/** Zero metrics with the estimator, for input that never got as far as a package. */
export function emptyMetrics(packageBytes = 0): PackageMetrics {
  return {
    manifest_bytes: 0,
    resource_bytes: 0,
    package_bytes: packageBytes,
    manifest_tokens: 0,
    resource_tokens: 0,
    resource_count: 0,
    token_estimator: { ...TOKEN_ESTIMATOR },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Where a finding points: a part of the value at `path`, or a range inside its string. */
interface Anchor {
  part?: 'value' | 'key' | 'open';
  /** Range inside the string at `path` (decoded UTF-16 indices). */
  index?: number;
  length?: number;
  /** Locate here instead of at `path` (e.g. the object that lacks a field). */
  at?: string;
  /** An exact source range (text input only). */
  span?: SourceSpan;
}

interface Pending {
  finding: Finding;
  /** Sort key: source offset (text) or document order (values), then position within. */
  primary: number;
  secondary: number;
  seq: number;
}

/** Collects findings and places them in the source. */
class Report {
  private readonly pending: Pending[] = [];
  private order: Map<string, number> | undefined;

  constructor(
    private readonly doc: ParsedJson | undefined,
    private readonly value: unknown,
  ) {}

  add<C extends FindingCode>(code: C, path: string, args: Parameters<(typeof RULES)[C]['message']>, anchor: Anchor = {}): void {
    const rule = RULES[code];
    const message = (rule.message as (...a: unknown[]) => string)(...args);
    const finding: Finding = { severity: rule.severity, code, path, message };
    let primary: number;
    let secondary = 0;
    const target = anchor.at ?? path;
    if (this.doc) {
      let span: SourceSpan | undefined = anchor.span;
      if (span !== undefined) {
        // Given exactly.
      } else if (anchor.index !== undefined) span = this.doc.spanInString(target, anchor.index, anchor.length ?? 0);
      else if (anchor.part === 'key') span = this.doc.span(target, 'key');
      else span = this.doc.span(target, 'value');
      if (span !== undefined && anchor.span === undefined && (anchor.part === 'open' || target === '')) span = { start: span.start, end: span.start + 1 };
      span ??= { start: 0, end: 0 };
      Object.assign(finding, this.doc.rangeOf(span));
      primary = span.start;
    } else {
      primary = this.orderOf(target);
      secondary = anchor.index !== undefined ? anchor.index + 1 : anchor.part === 'key' || anchor.part === 'open' ? 0 : 0.5;
    }
    this.pending.push({ finding, primary, secondary, seq: this.pending.length });
  }

  /** Document order of in-memory values: a pre-order walk of the object, in key order. */
  private orderOf(pointer: string): number {
    if (this.order === undefined) {
      const order = new Map<string, number>();
      const stack: [string, unknown][] = [['', this.value]];
      while (stack.length > 0) {
        const [path, node] = stack.pop()!;
        order.set(path, order.size);
        const children: [string, unknown][] = [];
        if (Array.isArray(node)) node.forEach((item, i) => children.push([joinPointer(path, i), item]));
        else if (isPlainObject(node)) for (const [key, item] of Object.entries(node)) children.push([joinPointer(path, key), item]);
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
      }
      this.order = order;
    }
    return this.order.get(pointer) ?? 0;
  }

  hasErrors(): boolean {
    return this.pending.some((p) => p.finding.severity === 'error');
  }

  result(metrics: PackageMetrics, normalized: SkillPackage | undefined): PackageCheck {
    const sorted = [...this.pending].sort((a, b) => a.primary - b.primary || a.secondary - b.secondary || a.seq - b.seq);
    const valid = !sorted.some((p) => p.finding.severity === 'error');
    let kept = sorted.map((p) => p.finding);
    if (kept.length > MAX_FINDINGS) {
      kept = kept.slice(0, MAX_FINDINGS);
      kept.push({ severity: 'warning', code: 'findings_truncated', path: '', message: RULES.findings_truncated.message(MAX_FINDINGS) });
    }
    const check: PackageCheck = {
      valid,
      errors: kept.filter((f) => f.severity === 'error'),
      warnings: kept.filter((f) => f.severity === 'warning'),
      metrics,
    };
    if (normalized !== undefined) check.normalized = normalized;
    return check;
  }
}

/** Checks that an in-memory value is plain JSON; returns the first problem, if any. */
function jsonValueProblem(value: unknown): { path: string; what: string; tooDeep?: boolean } | undefined {
  const stack: { path: string; node: unknown; depth: number; ancestors: Set<unknown> }[] = [{ path: '', node: value, depth: 0, ancestors: new Set() }];
  while (stack.length > 0) {
    const { path, node, depth, ancestors } = stack.pop()!;
    if (node === null || typeof node === 'string' || typeof node === 'boolean') continue;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return { path, what: `the number ${String(node)}` };
      continue;
    }
    const container = Array.isArray(node) || isPlainObject(node);
    if (!container) return { path, what: node === undefined ? 'undefined' : typeof node === 'object' ? 'an object that is not a plain object' : `a ${typeof node}` };
    if (ancestors.has(node)) return { path, what: 'a circular reference' };
    if (depth >= MAX_JSON_DEPTH) return { path, what: `nesting deeper than ${MAX_JSON_DEPTH} levels`, tooDeep: true };
    const inner = new Set(ancestors).add(node);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ path: joinPointer(path, i), node: node[i], depth: depth + 1, ancestors: inner });
    } else {
      for (const [key, item] of Object.entries(node as Record<string, unknown>)) {
        // Like JSON.stringify, an undefined property is an absent one.
        if (item !== undefined) stack.push({ path: joinPointer(path, key), node: item, depth: depth + 1, ancestors: inner });
      }
    }
  }
  return undefined;
}

/** The validation of one parsed document. */
class Checker {
  /** Paths whose value had the wrong type: semantic checks skip them. */
  private readonly typeErrors = new Set<string>();
  /** UTF-8 bytes of each string value, measured while scanning it. */
  private readonly measured = new Map<string, number>();
  /** Sum over every string value and key of (UTF-8 bytes - UTF-16 length). */
  private extraBytes = 0;
  /** Scans the string values: the caller's cache, or a scanner of this validation's own. */
  private readonly scanner: Pick<Scanner, 'scan'>;

  constructor(
    private readonly report: Report,
    private readonly limits: SkillAuthoringLimits,
    cache: ScanCache | undefined,
    private readonly counter: Utf8Counter,
  ) {
    this.scanner = cache ?? new Scanner();
  }

  private wrongType(path: string, field: string, expected: string, got: unknown): void {
    this.typeErrors.add(path);
    this.report.add('wrong_type', path, [field, expected, typeName(got)]);
  }

  get shapeOk(): boolean {
    return this.typeErrors.size === 0;
  }

  /** Bytes of the normalized form of the string at `path`, reusing the scan's count when normalization changed nothing. */
  private bytesOf(path: string, raw: string, normalized: string): number {
    const known = raw === normalized ? this.measured.get(path) : undefined;
    return known ?? utf8Bytes(normalized, this.counter);
  }

  /** Non-ASCII surplus of all strings and keys: text length plus this is the UTF-8 size of the strings' characters. */
  get stringExtraBytes(): number {
    return this.extraBytes;
  }

  private unknownFields(object: Record<string, unknown>, path: string, known: readonly string[], where: string): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) this.report.add('unknown_field', joinPointer(path, key), [key, where], { part: 'key' });
    }
  }

  private string(object: Record<string, unknown>, key: string, path: string, required: boolean, where: string): string {
    const at = joinPointer(path, key);
    const value = object[key];
    if (value === undefined) {
      if (required) this.report.add('missing_field', at, [key, where], { at: path, part: 'open' });
      return '';
    }
    if (typeof value !== 'string') {
      this.wrongType(at, key, 'a string', value);
      return '';
    }
    return value;
  }

  private stringList(object: Record<string, unknown>, key: string, path: string, required: boolean, where: string): string[] {
    const at = joinPointer(path, key);
    const value = object[key];
    if (value === undefined) {
      if (required) this.report.add('missing_field', at, [key, where], { at: path, part: 'open' });
      return [];
    }
    if (!Array.isArray(value)) {
      this.wrongType(at, key, 'an array of strings', value);
      return [];
    }
    return value.map((item, i) => {
      if (typeof item === 'string') return item;
      this.wrongType(joinPointer(at, i), `${key}[${i}]`, 'a string', item);
      return '';
    });
  }

  /** Reads the document into the input shape, reporting unknown, missing and mistyped fields. */
  shape(doc: Record<string, unknown>): SkillPackageInput {
    this.unknownFields(doc, '', PACKAGE_FIELDS, 'the package');
    const input: SkillPackageInput = {
      display_name: this.string(doc, 'display_name', '', true, 'the package'),
      description: this.string(doc, 'description', '', true, 'the package'),
      domains: this.stringList(doc, 'domains', '', false, 'the package'),
      tags: this.stringList(doc, 'tags', '', false, 'the package'),
      planning_instructions: this.stringList(doc, 'planning_instructions', '', true, 'the package'),
      response_instructions: this.stringList(doc, 'response_instructions', '', false, 'the package'),
      tool_hints: this.stringList(doc, 'tool_hints', '', false, 'the package'),
      resources: [],
      activation_examples: { should_activate: [], should_not_activate: [] },
      change_reason: '',
    };
    const resources = doc.resources;
    if (resources !== undefined) {
      if (!Array.isArray(resources)) this.wrongType('/resources', 'resources', 'an array of resource objects', resources);
      else input.resources = resources.map((resource, i) => this.resource(resource, i));
    }
    const examples = doc.activation_examples;
    if (examples !== undefined) {
      if (!isPlainObject(examples)) this.wrongType('/activation_examples', 'activation_examples', 'an object', examples);
      else {
        this.unknownFields(examples, '/activation_examples', EXAMPLE_KINDS, 'activation_examples');
        input.activation_examples = {
          should_activate: this.stringList(examples, 'should_activate', '/activation_examples', false, 'activation_examples'),
          should_not_activate: this.stringList(examples, 'should_not_activate', '/activation_examples', false, 'activation_examples'),
        };
      }
    }
    input.change_reason = this.string(doc, 'change_reason', '', true, 'the package');
    return input;
  }

  private resource(value: unknown, index: number): SkillResourceInput {
    const path = `/resources/${index}`;
    const where = `resource ${index}`;
    const empty: SkillResourceInput = { name: '', description: '', load_when: '', content_type: '', content: '' };
    if (!isPlainObject(value)) {
      this.wrongType(path, `resources[${index}]`, 'an object', value);
      return empty;
    }
    this.unknownFields(value, path, RESOURCE_FIELDS, where);
    const resource: SkillResourceInput = {
      name: this.string(value, 'name', path, true, where),
      description: this.string(value, 'description', path, true, where),
      load_when: this.string(value, 'load_when', path, true, where),
      applies_to: this.stringList(value, 'applies_to', path, false, where),
      content_type: this.string(value, 'content_type', path, true, where),
      content: this.string(value, 'content', path, true, where),
    };
    const required = value.required_when_selected;
    if (required !== undefined) {
      if (typeof required !== 'boolean') this.wrongType(`${path}/required_when_selected`, 'required_when_selected', 'a boolean', required);
      else resource.required_when_selected = required;
    }
    return resource;
  }

  private present(doc: Record<string, unknown>, path: string, key: string): boolean {
    return doc[key] !== undefined && !this.typeErrors.has(joinPointer(path, key));
  }

  /** A slug check shared by identity, domains, tags and resource names. */
  slug(what: string, value: string, path: string, anchor: { at?: string; part?: 'open' } = {}, hint = ''): boolean {
    if (!isSlug(value)) {
      this.report.add('invalid_slug', path, [what, value, hint], anchor);
      return false;
    }
    if (value.length > this.limits.maxNameChars) {
      this.report.add('slug_too_long', path, [what, value.length, this.limits.maxNameChars], anchor);
      return false;
    }
    return true;
  }

  identity(id: SkillId): void {
    for (const part of ['namespace', 'name'] as const) {
      const raw: unknown = (id as unknown as Record<string, unknown>)[part];
      const value = typeof raw === 'string' ? raw : String(raw);
      if (this.slug(part, value, '', { part: 'open' }) && value.length > RUNTIME_MAX_NAME_CHARS) {
        this.report.add('name_exceeds_runtime_limit', '', [part, value.length, RUNTIME_MAX_NAME_CHARS], { part: 'open' });
      }
    }
  }

  /** Semantic checks over the shaped input (type errors already reported and skipped); `normalized` is its normal form. */
  semantics(doc: Record<string, unknown>, input: SkillPackageInput, normalized: SkillPackage): void {
    const report = this.report;
    const limits = this.limits;
    for (const field of ['display_name', 'description', 'change_reason'] as const) {
      if (this.present(doc, '', field) && normalizeEntry(input[field]) === '') report.add('empty_field', `/${field}`, [field]);
    }
    const description = normalizeEntry(input.description);
    if (description !== '') {
      const chars = codePoints(description);
      if (chars > limits.maxDescriptionChars) report.add('description_chars_exceeded', '/description', [chars, limits.maxDescriptionChars]);
      else if (chars > limits.warnDescriptionChars) report.add('description_chars_high', '/description', [chars, limits.warnDescriptionChars]);
      if (!hasActivationLanguage(description)) {
        report.add('description_missing_activation_language', '/description', [[...ACTIVATION_PHRASES, ...ACTIVATION_PHRASE_EXAMPLES].map((p) => `'${p}'`).join(', ')]);
      }
    }
    for (const [field, what] of [['domains', 'domain'], ['tags', 'tag']] as const) {
      (input[field] ?? []).forEach((label, i) => {
        const path = `/${field}/${i}`;
        if (this.typeErrors.has(path)) return;
        this.slug(what, normalizeEntry(label).toLowerCase(), path);
      });
    }
    if (this.present(doc, '', 'planning_instructions') && input.planning_instructions.length === 0) {
      report.add('empty_list', '/planning_instructions', ['planning_instructions']);
    }
    for (const field of ['planning_instructions', 'response_instructions', 'tool_hints'] as const) {
      this.entries(field, `/${field}`, input[field] ?? []);
    }
    this.entries('should_activate', '/activation_examples/should_activate', input.activation_examples?.should_activate ?? []);
    this.entries('should_not_activate', '/activation_examples/should_not_activate', input.activation_examples?.should_not_activate ?? []);
    const resources = input.resources ?? [];
    if (resources.length > limits.maxResources) report.add('resource_count_exceeded', '/resources', [resources.length, limits.maxResources]);
    else if (resources.length > limits.warnResources) report.add('resource_count_high', '/resources', [resources.length, limits.warnResources]);
    const names = new Map<string, number>();
    const rawResources = Array.isArray(doc.resources) ? (doc.resources as unknown[]) : [];
    resources.forEach((resource, i) => {
      const raw = rawResources[i];
      if (!isPlainObject(raw)) return;
      this.resourceSemantics(raw, resource, normalized.resources[i]?.content ?? '', i, names);
    });
    const changeReasonBytes = this.bytesOf('/change_reason', input.change_reason, normalizeEntry(input.change_reason));
    if (changeReasonBytes > limits.maxChangeReasonBytes) report.add('change_reason_bytes_exceeded', '/change_reason', [changeReasonBytes, limits.maxChangeReasonBytes]);
  }

  private entries(field: string, path: string, list: string[]): void {
    list.forEach((entry, i) => {
      const at = `${path}/${i}`;
      if (!this.typeErrors.has(at) && normalizeEntry(entry) === '') this.report.add('empty_entry', at, [field]);
    });
  }

  private resourceSemantics(raw: Record<string, unknown>, resource: SkillResourceInput, content: string, i: number, names: Map<string, number>): void {
    const report = this.report;
    const limits = this.limits;
    const path = `/resources/${i}`;
    for (const field of ['name', 'description', 'load_when', 'content_type'] as const) {
      if (this.present(raw, path, field) && normalizeEntry(resource[field]) === '') report.add('empty_field', `${path}/${field}`, [`resources[${i}].${field}`]);
    }
    const name = normalizeEntry(resource.name);
    if (name !== '') {
      const lower = name.toLowerCase();
      const hint = lower !== name && isSlug(lower) ? ` (resource names are not lowercased for you: write '${lower}')` : '';
      this.slug('resource name', name, `${path}/name`, {}, hint);
      const first = names.get(name);
      if (first !== undefined) report.add('duplicate_resource_name', `${path}/name`, [name, first]);
      else names.set(name, i);
    }
    const description = normalizeEntry(resource.description);
    if (description !== '' && codePoints(description) < MIN_RESOURCE_DESCRIPTION_CHARS) {
      report.add('resource_description_too_short', `${path}/description`, [codePoints(description)]);
    }
    const loadWhen = normalizeEntry(resource.load_when);
    if (loadWhen !== '') {
      if (VAGUE_LOAD_WHEN.test(loadWhen)) report.add('load_when_vague', `${path}/load_when`, [loadWhen]);
      else if (codePoints(loadWhen) < MIN_LOAD_WHEN_CHARS) report.add('load_when_too_short', `${path}/load_when`, [codePoints(loadWhen)]);
    }
    const seen = new Set<string>();
    (resource.applies_to ?? []).forEach((entry, j) => {
      const at = `${path}/applies_to/${j}`;
      if (this.typeErrors.has(at)) return;
      const boundary = normalizeEntry(entry);
      if (!(BOUNDARIES as readonly string[]).includes(boundary)) report.add('invalid_boundary', at, [boundary]);
      else if (seen.has(boundary)) report.add('duplicate_scope', at, [boundary]);
      seen.add(boundary);
    });
    const contentType = normalizeEntry(resource.content_type);
    if (contentType !== '' && !CONTENT_TYPES.includes(contentType)) report.add('invalid_content_type', `${path}/content_type`, [contentType]);
    if (this.present(raw, path, 'content')) {
      // `content` is the normalized resource content (LF line endings), computed once for the package.
      if (content.trim() === '') {
        report.add('empty_content', `${path}/content`, []);
        return;
      }
      const bytes = this.bytesOf(`${path}/content`, resource.content, content);
      const tokens = estimateTokens(bytes);
      if (bytes > limits.maxResourceBytes) report.add('resource_bytes_exceeded', `${path}/content`, [bytes, limits.maxResourceBytes]);
      if (tokens > limits.maxResourceTokens) report.add('resource_tokens_exceeded', `${path}/content`, [tokens, limits.maxResourceTokens]);
      else if (tokens > limits.warnResourceTokens) report.add('resource_tokens_high', `${path}/content`, [tokens, limits.warnResourceTokens]);
    }
  }

  /** Size limits over the normalized package (`input` is the same package before normalization). */
  sizes(pkg: SkillPackage, input: SkillPackageInput, packageBytes: number): PackageMetrics {
    const report = this.report;
    const limits = this.limits;
    let manifestBytes = 0;
    for (const field of ['planning_instructions', 'response_instructions', 'tool_hints'] as const) {
      const raw = input[field] ?? [];
      pkg[field].forEach((entry, i) => {
        manifestBytes += this.bytesOf(`/${field}/${i}`, raw[i] ?? '', entry);
      });
    }
    let resourceBytes = 0;
    let resourceTokens = 0;
    pkg.resources.forEach((resource, i) => {
      const bytes = this.bytesOf(`/resources/${i}/content`, input.resources?.[i]?.content ?? '', resource.content);
      resourceBytes += bytes;
      resourceTokens += estimateTokens(bytes);
    });
    const manifestTokens = estimateTokens(manifestBytes);
    if (manifestBytes > limits.maxManifestBytes) report.add('manifest_bytes_exceeded', '', [manifestBytes, limits.maxManifestBytes]);
    if (manifestTokens > limits.maxManifestTokens) report.add('manifest_tokens_exceeded', '', [manifestTokens, limits.maxManifestTokens]);
    else if (manifestTokens > limits.warnManifestTokens) report.add('manifest_tokens_high', '', [manifestTokens, limits.warnManifestTokens]);
    if (packageBytes > limits.maxPackageBytes) report.add('package_bytes_exceeded', '', [packageBytes, limits.maxPackageBytes]);
    else if (packageBytes > limits.warnPackageBytes) report.add('package_bytes_high', '', [packageBytes, limits.warnPackageBytes]);
    const combined = manifestTokens + resourceTokens;
    if (combined > limits.warnCombinedTokens) report.add('combined_tokens_high', '', [combined, limits.warnCombinedTokens]);
    return {
      manifest_bytes: manifestBytes,
      resource_bytes: resourceBytes,
      package_bytes: packageBytes,
      manifest_tokens: manifestTokens,
      resource_tokens: resourceTokens,
      resource_count: pkg.resources.length,
      token_estimator: { ...TOKEN_ESTIMATOR },
    };
  }

  /**
   * Scans every string of the document. All text is checked for characters,
   * credentials and binary or executable payloads; text the runtime projects
   * into prompts is also checked for authority bypass and reserved tags
   * (activation examples and change_reason are never projected, and examples
   * may quote hostile requests on purpose).
   */
  content(doc: Record<string, unknown>): void {
    const stack: { path: string; node: unknown; projected: boolean }[] = [];
    for (const key of Object.keys(doc).reverse()) {
      this.extraBytes += utf8Bytes(key) - key.length;
      stack.push({ path: joinPointer('', key), node: doc[key], projected: PROJECTED_FIELDS.has(key) });
    }
    while (stack.length > 0) {
      const { path, node, projected } = stack.pop()!;
      if (typeof node === 'string') {
        const scan = this.scanner.scan(node, { projected });
        this.measured.set(path, scan.bytes);
        this.extraBytes += scan.bytes - node.length;
        for (const hit of scan.hits) {
          const args = hit.code === 'authority_bypass' ? [hit.args[0] ?? '', hit.args[1] ?? ''] : [hit.args[0] ?? ''];
          this.report.add(hit.code, path, args as never, { index: hit.index, length: hit.length });
        }
      } else if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) stack.push({ path: joinPointer(path, i), node: node[i], projected });
      } else if (isPlainObject(node)) {
        const keys = Object.keys(node);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          this.extraBytes += utf8Bytes(key) - key.length;
          // Inside a resource only the authored texts are projected, not its enums.
          const inner = projected && (key !== 'content_type' && key !== 'applies_to');
          stack.push({ path: joinPointer(path, key), node: node[key], projected: inner });
        }
      }
    }
  }
}

/** The package size, once every string has been measured (`stringExtra`: see `Checker.stringExtraBytes`). */
type PackageSize = (stringExtra: number) => number;

function validateDocument(value: unknown, doc: ParsedJson | undefined, size: PackageSize, report: Report, limits: SkillAuthoringLimits, options: ValidateOptions, counter: Utf8Counter): PackageCheck {
  const id = options.id;
  const checker = new Checker(report, limits, options.cache, counter);
  if (id !== undefined) checker.identity(id);
  if (!isPlainObject(value)) {
    report.add('document_not_object', '', [typeName(value)]);
    return report.result(emptyMetrics(size(0)), undefined);
  }
  const input = checker.shape(value);
  checker.content(value);
  const normalized = normalizePackage(input);
  checker.semantics(value, input, normalized);
  const metrics = checker.sizes(normalized, input, size(checker.stringExtraBytes));
  return report.result(metrics, checker.shapeOk ? normalized : undefined);
}

/**
 * UTF-8 surplus that `\uXXXX` escapes add to decoded strings but not to the
 * raw text (the raw escape is ASCII). `undefined` when the text escapes a
 * surrogate, whose pairing may differ between raw and decoded text.
 */
function escapeSurplus(text: string): number | undefined {
  let surplus = 0;
  for (let at = text.indexOf('\\u'); at !== -1; at = text.indexOf('\\u', at + 1)) {
    let backslashes = 0;
    for (let k = at - 1; k >= 0 && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 1) continue;
    const code = Number.parseInt(text.slice(at + 2, at + 6), 16);
    if (code >= 0xd800 && code <= 0xdfff) return undefined;
    surplus += code >= 0x800 ? 2 : code >= 0x80 ? 1 : 0;
    at += 5;
  }
  return surplus;
}

/**
 * Raw UTF-8 size of JSON text without encoding it again: outside strings JSON
 * is ASCII, and inside strings the raw text has the same non-ASCII characters
 * as the decoded values except those written as escapes. Only a leading byte
 * order mark (3 bytes, 1 unit) sits outside strings.
 */
function textSize(text: string, counter: Utf8Counter): PackageSize {
  return (stringExtra) => {
    const surplus = escapeSurplus(text);
    if (surplus === undefined) return utf8Bytes(text, counter);
    return text.length + stringExtra - surplus + (text.charCodeAt(0) === 0xfeff ? 2 : 0);
  };
}

function run(input: unknown, options: ValidateOptions): PackageCheck {
  const limitCheck = checkLimits(options.limits);
  const limits = limitCheck.ok ? limitCheck.limits : { ...DEFAULT_AUTHORING_LIMITS };
  const early: Finding[] = limitCheck.ok
    ? []
    : limitCheck.problems.map((p) => ({ severity: 'error' as const, code: 'invalid_limits', path: '', message: RULES.invalid_limits.message(p.message) }));
  const fail = (findings: Finding[], packageBytes: number): PackageCheck => {
    const errors = [...early, ...findings.filter((f) => f.severity === 'error')];
    return { valid: false, errors, warnings: findings.filter((f) => f.severity === 'warning'), metrics: emptyMetrics(packageBytes) };
  };

  // Counts the UTF-8 bytes of long strings of this validation (never shared with another).
  const counter = new Utf8Counter();
  let text: string;
  let size: PackageSize;
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) return fail(decoded.findings, bytes.length);
    text = decoded.text;
    size = () => bytes.length;
  } else if (typeof input === 'string') {
    text = input;
    size = textSize(input, counter);
  } else {
    const problem = jsonValueProblem(input);
    if (problem !== undefined) {
      const code = problem.tooDeep ? 'json_nesting_too_deep' : 'invalid_json_value';
      return fail([{ severity: 'error', code, path: problem.path, message: problem.tooDeep ? `the value has ${problem.what}` : RULES.invalid_json_value.message(problem.what) }], 0);
    }
    const canonicalBytes = utf8Bytes(canonicalJson(input), counter);
    const report = new Report(undefined, input);
    const check = validateDocument(input, undefined, () => canonicalBytes, report, limits, options, counter);
    return early.length === 0 ? check : { ...check, valid: false, errors: [...early, ...check.errors] };
  }

  const parsed = parseJsonDocument(text);
  if (!parsed.ok) {
    const bom = text.charCodeAt(0) === 0xfeff ? [{ severity: 'error' as const, code: 'byte_order_mark', path: '', message: RULES.byte_order_mark.message(), line: 1, column: 1, endLine: 1, endColumn: 2 }] : [];
    return fail([...bom, ...parsed.findings], typeof input === 'string' ? utf8Bytes(text, counter) : size(0));
  }
  const report = new Report(parsed, parsed.value);
  if (text.charCodeAt(0) === 0xfeff) report.add('byte_order_mark', '', [], { span: { start: 0, end: 1 } });
  const check = validateDocument(parsed.value, parsed, size, report, limits, options, counter);
  return early.length === 0 ? check : { ...check, valid: false, errors: [...early, ...check.errors] };
}

/**
 * Validates a package: UTF-8 bytes or text as submitted (the body of
 * `POST .../validate`), or an in-memory value. Never throws; deterministic;
 * findings in document order with stable codes (see `RULES`).
 */
export function validatePackage(input: unknown, options: ValidateOptions = {}): PackageCheck {
  try {
    options?.cache?.nextRound();
    return run(input, options ?? {});
  } catch {
    // A bug must not take the editor or CI down with it: report it as a finding.
    return {
      valid: false,
      errors: [{ severity: 'error', code: 'internal_error', path: '', message: RULES.internal_error.message() }],
      warnings: [],
      metrics: emptyMetrics(),
    };
  }
}
