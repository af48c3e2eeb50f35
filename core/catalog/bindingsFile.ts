/**
 * Writing a binding list in the `TRUVAG3_SKILL_BINDINGS_JSON` format (guide
 * 6.1, 6.3), the form {@link parseBindings} reads back: one binding per line,
 * fields in the guide's order, versions as strings (`"published"` or `"3"`).
 *
 * Isomorphic: no `node:` imports.
 */
import type { SkillBinding } from '../selector/types';

/** The text of a bindings file: a JSON array, one binding per line, ending in a newline. */
export function formatBindings(bindings: readonly SkillBinding[]): string {
  if (bindings.length === 0) return '[]\n';
  const field = (key: string, value: string | boolean) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  const lines = bindings.map(
    (b) =>
      `{ ${[field('namespace', b.namespace), field('name', b.name), field('version', String(b.version)), field('activation', b.activation), field('required', b.required)].join(', ')} }`,
  );
  return `[\n  ${lines.join(',\n  ')}\n]\n`;
}
