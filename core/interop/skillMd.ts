/**
 * Reading and writing the `SKILL.md` file of the Agent Skills format: YAML
 * frontmatter between `---` lines, then a markdown body. YAML goes through the
 * `yaml` library (unique keys, a bound on alias expansion), never a regex.
 *
 * Isomorphic: no `node:` imports.
 */
import { isMap, parseDocument, stringify } from 'yaml';

/** A parsed SKILL.md. */
export interface SkillMd {
  /** The frontmatter mapping, in source order. */
  frontmatter: Record<string, unknown>;
  /** The body after the closing `---` line, LF line endings. */
  body: string;
  /** 1-based line of SKILL.md where the body starts. */
  bodyLine: number;
}

/** Why a SKILL.md cannot be read, located in the file. */
export interface SkillMdProblem {
  message: string;
  /** 1-based line and column in SKILL.md. */
  line: number;
  column: number;
}

/** The outcome of {@link parseSkillMd}. */
export type SkillMdResult = { ok: true; value: SkillMd } | { ok: false; problem: SkillMdProblem };

const OPENING = /^---[ \t]*$/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Splits a SKILL.md into its frontmatter (parsed) and body. The file must
 * start with a `---` line; the frontmatter ends at the next `---` (or `...`)
 * line and must be a YAML mapping. A byte order mark is ignored and CRLF line
 * endings become LF, as V1 normalization does to every text.
 */
export function parseSkillMd(source: string): SkillMdResult {
  const text = (source.startsWith('\uFEFF') ? source.slice(1) : source).replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  if (!OPENING.test(lines[0] ?? '')) {
    return { ok: false, problem: { message: 'SKILL.md must start with YAML frontmatter: a line "---", then name: and description:, then "---"', line: 1, column: 1 } };
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (CLOSING.test(lines[i]!)) {
      close = i;
      break;
    }
  }
  if (close === -1) return { ok: false, problem: { message: 'the frontmatter is never closed: add a line "---" after it', line: 1, column: 1 } };
  const yamlText = lines.slice(1, close).join('\n');
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false, strict: true });
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    return { ok: false, problem: { message: `frontmatter is not valid YAML: ${error.message.split('\n')[0]}`, line: (pos?.line ?? 1) + 1, column: pos?.col ?? 1 } };
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    return { ok: false, problem: { message: 'frontmatter must be a YAML mapping of keys (name:, description:, ...)', line: 2, column: 1 } };
  }
  let value: unknown;
  try {
    // A bound on alias expansion: a frontmatter of a few lines cannot become gigabytes.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, problem: { message: `frontmatter cannot be read: ${(e as Error).message}`, line: 2, column: 1 } };
  }
  const frontmatter = (value ?? {}) as Record<string, unknown>;
  return { ok: true, value: { frontmatter, body: lines.slice(close + 1).join('\n'), bodyLine: close + 2 } };
}

/** A SKILL.md text: frontmatter `name` and `description` (YAML, quoted where it must be), a blank line, then `body`. */
export function formatSkillMd(name: string, description: string, body: string): string {
  const yaml = stringify({ name, description }, { lineWidth: 0, minContentWidth: 0 });
  return `---\n${yaml}---\n\n${body.endsWith('\n') ? body : `${body}\n`}`;
}
