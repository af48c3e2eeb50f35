/**
 * The canonical JSON form: the exact text integrity hashes are taken over.
 *
 * - object keys sorted by Unicode code point (not UTF-16 unit: a key with a
 *   character above U+FFFF sorts after one with U+E000-U+FFFF);
 * - no insignificant whitespace;
 * - strings and numbers written exactly as `JSON.stringify` writes them
 *   (shortest round-trip numbers, lone surrogates as `\udXXX` escapes);
 * - properties whose value is `undefined` are left out, as `JSON.stringify` does.
 *
 * Two values that are equal as JSON data have the same canonical text,
 * whatever key order or whitespace their source had.
 *
 * Isomorphic: no `node:` imports.
 */
import { WorkbenchError } from '../errors';
import { compareCodePoints } from './normalize';

/**
 * Writes `value` in canonical JSON. Throws a `WorkbenchError`
 * (`invalid_request`) for values JSON cannot represent: non-finite numbers,
 * functions, symbols, bigints, `undefined` array items, non-plain objects and
 * circular references.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, new Set());
  return parts.join('');
}

function reject(what: string): never {
  throw new WorkbenchError('invalid_request', `canonical JSON cannot represent ${what}`);
}

function write(value: unknown, out: string[], ancestors: Set<object>): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) reject(`the number ${String(value)}`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      reject(`a ${typeof value}`);
  }
  const object = value as object;
  if (ancestors.has(object)) reject('a circular reference');
  ancestors.add(object);
  if (Array.isArray(object)) {
    out.push('[');
    for (let i = 0; i < object.length; i++) {
      if (i > 0) out.push(',');
      const item: unknown = object[i];
      if (item === undefined) reject('undefined in an array');
      write(item, out, ancestors);
    }
    out.push(']');
  } else {
    const proto = Object.getPrototypeOf(object) as unknown;
    if (proto !== Object.prototype && proto !== null) reject('an object that is not a plain object');
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(compareCodePoints);
    out.push('{');
    keys.forEach((key, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(key), ':');
      write(record[key], out, ancestors);
    });
    out.push('}');
  }
  ancestors.delete(object);
}
