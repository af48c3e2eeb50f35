/**
 * The one canonical statement a review signature covers. A request is signed
 * by its author (`decision request`), an approval by its reviewer
 * (`decision approve`), each over the same fields:
 *
 * ```
 * skillbench review statement v1
 * decision approve
 * request travel.weather-assessment.20260101T120000Z.a1b2c3
 * registry http://registry.example/api/v1/skills
 * skill travel/weather-assessment
 * action publish             (or: action delete 2-3)
 * base 3 "v3-5f2a…"          (or: base none, for a new skill)
 * manifest sha256:…
 * bytes sha256:…
 * ```
 *
 * `registry` is the target's identity (see `core/connections/identity.ts`),
 * `manifest` the package's manifest hash and `bytes` the SHA-256 of the exact
 * text a publish sends. One field per line, in this order, values without
 * line breaks: the text of a statement is a function of its fields and back,
 * so two different statements never share a signature.
 */
import type { SkillId } from '../package/types';

const HEADER = 'skillbench review statement v1';

/** What a signature says. */
export type Decision = 'request' | 'approve';

/** The fields of a statement. */
export interface Statement {
  decision: Decision;
  /** The request id. */
  request: string;
  /** The target registry's identity. */
  registry: string;
  skill: SkillId;
  /** `publish`, or `delete FROM-TO` for a deletion of that inclusive version range (its bytes are the empty body). */
  action: string;
  /** The published revision the request was filed on, or null for a new skill. */
  base: { version: number; etag: string } | null;
  /** `sha256:<hex>` manifest hash of the package. */
  manifest: string;
  /** `sha256:<hex>` of the exact bytes to publish. */
  bytes: string;
}

const SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const HASH = /^sha256:[0-9a-f]{64}$/;
const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const ACTION = /^(?:publish|delete [1-9][0-9]{0,15}-[1-9][0-9]{0,15})$/;

/** The action line of a deletion of `from..to`. */
export function deleteAction(from: number, to: number): string {
  return `delete ${from}-${to}`;
}

/** Why `statement` cannot be written, or undefined. */
function problem(s: Statement): string | undefined {
  if (s.decision !== 'request' && s.decision !== 'approve') return 'unknown decision';
  if (!SAFE.test(s.request) || s.request.includes(' ')) return 'the request id';
  if (!SAFE.test(s.registry)) return 'the registry identity';
  if (!SLUG.test(s.skill.namespace) || !SLUG.test(s.skill.name)) return 'the skill';
  if (!ACTION.test(s.action)) return 'the action';
  if (s.base !== null && (!Number.isSafeInteger(s.base.version) || s.base.version < 1 || !SAFE.test(s.base.etag))) return 'the base';
  if (!HASH.test(s.manifest)) return 'the manifest hash';
  if (!HASH.test(s.bytes)) return 'the bytes hash';
  return undefined;
}

/** The canonical text of `statement` (what is signed); throws when a field cannot be written on one line. */
export function statementText(s: Statement): string {
  const bad = problem(s);
  if (bad) throw new Error(`a review statement cannot hold ${bad}`);
  return [
    HEADER,
    `decision ${s.decision}`,
    `request ${s.request}`,
    `registry ${s.registry}`,
    `skill ${s.skill.namespace}/${s.skill.name}`,
    `action ${s.action}`,
    `base ${s.base ? `${s.base.version} ${s.base.etag}` : 'none'}`,
    `manifest ${s.manifest}`,
    `bytes ${s.bytes}`,
    '',
  ].join('\n');
}

/** Reads a statement's text back into its fields; undefined unless it is exactly the canonical text of some statement. */
export function parseStatement(text: string): Statement | undefined {
  const lines = text.split('\n');
  if (lines.length !== 10 || lines[0] !== HEADER || lines[9] !== '') return undefined;
  const field = (i: number, name: string): string | undefined => (lines[i]!.startsWith(`${name} `) ? lines[i]!.slice(name.length + 1) : undefined);
  const decision = field(1, 'decision');
  const request = field(2, 'request');
  const registry = field(3, 'registry');
  const skill = field(4, 'skill')?.split('/');
  const action = field(5, 'action');
  const base = field(6, 'base');
  const manifest = field(7, 'manifest');
  const bytes = field(8, 'bytes');
  if (decision === undefined || request === undefined || registry === undefined || skill?.length !== 2 || action === undefined || base === undefined || manifest === undefined || bytes === undefined) return undefined;
  let parsedBase: Statement['base'] = null;
  if (base !== 'none') {
    const m = /^([1-9][0-9]*) (.+)$/.exec(base);
    if (!m) return undefined;
    parsedBase = { version: Number(m[1]), etag: m[2]! };
  }
  const statement: Statement = {
    decision: decision as Decision,
    request,
    registry,
    skill: { namespace: skill[0]!, name: skill[1]! },
    action,
    base: parsedBase,
    manifest,
    bytes,
  };
  if (problem(statement)) return undefined;
  return statementText(statement) === text ? statement : undefined;
}

/** The bound fields where `actual` differs from `expected` (decision aside), in statement order. */
export function differences(expected: Statement, actual: Statement): ('request' | 'registry' | 'skill' | 'action' | 'base' | 'manifest' | 'bytes')[] {
  const out: ('request' | 'registry' | 'skill' | 'action' | 'base' | 'manifest' | 'bytes')[] = [];
  if (expected.request !== actual.request) out.push('request');
  if (expected.registry !== actual.registry) out.push('registry');
  if (expected.skill.namespace !== actual.skill.namespace || expected.skill.name !== actual.skill.name) out.push('skill');
  if (expected.action !== actual.action) out.push('action');
  if ((expected.base === null) !== (actual.base === null) || (expected.base && actual.base && (expected.base.version !== actual.base.version || expected.base.etag !== actual.base.etag))) out.push('base');
  if (expected.manifest !== actual.manifest) out.push('manifest');
  if (expected.bytes !== actual.bytes) out.push('bytes');
  return out;
}

/** How a statement's base reads in a message. */
export function baseLabel(base: Statement['base']): string {
  return base ? `v${base.version} ${base.etag}` : 'none (a new skill)';
}
