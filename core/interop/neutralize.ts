/**
 * The forced fixes of text that V1 validation would refuse but that a SKILL.md
 * carries harmlessly: a `<script>` tag or a shebang line shown in a code
 * sample (read as executable content), and example values that look like
 * credentials. Each fix is the smallest change that passes the same scanner
 * the validator uses, and each is reported with the lines it touched:
 * - `<script` becomes `&lt;script` (outside code, the HTML entity renders as
 *   the same text; inside a code block it shows as written);
 * - a shebang `#!/...` becomes `#\!/...` (outside code, a markdown escape);
 * - a value read as a credential becomes `<redacted>` (a placeholder, which V1
 *   accepts): if it was real, it should not travel into a package anyway.
 * Anything else the scanner reports (authority bypass, binary payloads,
 * control characters) is left for the caller to decide about.
 *
 * Isomorphic: no `node:` imports.
 */
import { scanText, type TextHit } from '../package/scan/index';
import { inFence, outline } from './outline';
import type { Conversion } from './types';

/** The text after the fixes, what was done, and the hits no fix applies to. */
export interface Neutralized {
  text: string;
  conversions: Conversion[];
  /** Hits that remain (codes other than the fixed ones). */
  remaining: TextHit[];
}

const PLACEHOLDER = '<redacted>';
/** Enough rounds for any text: each round fixes up to the scanner's cap of hits per code. */
const MAX_ROUNDS = 10_000;

interface Fix {
  kind: 'script' | 'shebang' | 'credential';
  line: number;
  inCode: boolean;
  what: string;
}

function fixable(hit: TextHit): Fix['kind'] | undefined {
  if (hit.code === 'executable_content' && hit.args[0] === 'a <script> tag') return 'script';
  if (hit.code === 'executable_content' && hit.args[0] === 'a shebang line') return 'shebang';
  if (hit.code === 'credential_detected') return 'credential';
  return undefined;
}

/** The replacement of a credential hit: an assignment keeps its name and quotes, only the value goes. */
function redact(match: string): string {
  const sep = match.search(/[:=]/);
  if (sep === -1) return PLACEHOLDER;
  let from = sep + 1;
  while (from < match.length && (match[from] === ' ' || match[from] === '\t')) from++;
  const quote = match[from] === '"' || match[from] === "'" ? match[from]! : '';
  if (quote) from++;
  let to = quote ? match.indexOf(quote, from) : match.length;
  if (to === -1) to = match.length;
  return from >= to ? PLACEHOLDER : `${match.slice(0, from)}${PLACEHOLDER}${match.slice(to)}`;
}

/** A function from an index of `text` to its 1-based line (a binary search over the line starts). */
function lineIndex(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

// The scanner's own patterns (core/package/scan/anchored.ts), applied to every match at once:
// the scanner reports at most ten hits of a code per string, and a long body can hold hundreds.
const SCRIPT_TAG = /<(?=\s*script\b)/gi;
const SHEBANG = /^([ \t]*)#!(?=[ \t]*\/[\w./-])/gm;

function listLines(lines: number[]): string {
  const shown = lines.slice(0, 12).join(', ');
  return lines.length > 12 ? `${shown} and ${lines.length - 12} more` : shown;
}

/**
 * Applies the forced fixes to `text` and reports them under `field`. `source`
 * names the file in the report (`SKILL.md`), `firstLine` is the line of that
 * file where `text` starts, and `projected` says whether the text reaches
 * prompts (then authority-bypass and reserved-tag checks apply too).
 */
export function neutralize(text: string, field: string, source: string, firstLine: number, projected = true): Neutralized {
  const fixes: Fix[] = [];
  const fences = outline(text).fences;
  const lineOf = lineIndex(text);
  // No fix adds or removes a line, so lines found in the original text stay right.
  let current = text.replace(SCRIPT_TAG, (match: string, index: number) => {
    fixes.push({ kind: 'script', line: firstLine + lineOf(index) - 1, inCode: inFence(fences, index), what: 'a <script> tag' });
    return '&lt;';
  });
  current = current.replace(SHEBANG, (match: string, indent: string, index: number) => {
    fixes.push({ kind: 'shebang', line: firstLine + lineOf(index) - 1, inCode: inFence(fences, index), what: 'a shebang line' });
    return `${indent}#\\!`;
  });
  let remaining: TextHit[] = [];
  // Credentials (and anything the patterns above missed) go by the scanner's hits, round after round.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const hits = scanText(current, { projected }).hits;
    const todo = hits.filter((h) => fixable(h) !== undefined);
    remaining = hits.filter((h) => fixable(h) === undefined);
    if (todo.length === 0) break;
    const lineNow = lineIndex(current);
    const fencesNow = outline(current).fences;
    const pieces: string[] = [];
    let from = current.length;
    for (const hit of [...todo].sort((a, b) => b.index - a.index)) {
      if (hit.index + hit.length > from) continue;
      const kind = fixable(hit)!;
      const match = current.slice(hit.index, hit.index + hit.length);
      const replacement = kind === 'script' ? `&lt;${match.slice(1)}` : kind === 'shebang' ? `#\\${match.slice(1)}` : redact(match);
      fixes.push({ kind, line: firstLine + lineNow(hit.index) - 1, inCode: inFence(fencesNow, hit.index), what: hit.args[0] ?? '' });
      pieces.push(current.slice(hit.index + hit.length, from), replacement);
      from = hit.index;
    }
    pieces.push(current.slice(0, from));
    current = pieces.reverse().join('');
  }
  const conversions: Conversion[] = [];
  const where = (group: Fix[]) => {
    const inCode = group.filter((f) => f.inCode).length;
    const context = inCode === group.length ? ', in code blocks' : inCode === 0 ? '' : `, ${inCode} of them in code blocks`;
    return `${source} line${group.length === 1 ? '' : 's'} ${listLines([...new Set(group.map((f) => f.line))].sort((a, b) => a - b))}${context}`;
  };
  const scripts = fixes.filter((f) => f.kind === 'script');
  if (scripts.length > 0) {
    conversions.push({
      field,
      change: 'escaped',
      reason: `${scripts.length} <script> tag${scripts.length === 1 ? '' : 's'} (${where(scripts)}) written as &lt;script: V1 validation reads a <script> tag as executable content, even inside a code block.`,
    });
  }
  const shebangs = fixes.filter((f) => f.kind === 'shebang');
  if (shebangs.length > 0) {
    conversions.push({
      field,
      change: 'escaped',
      reason: `${shebangs.length} shebang line${shebangs.length === 1 ? '' : 's'} (${where(shebangs)}) written as #\\!: V1 validation reads a line starting with #!/ as executable content.`,
    });
  }
  const credentials = fixes.filter((f) => f.kind === 'credential');
  if (credentials.length > 0) {
    const kinds = [...new Set(credentials.map((f) => f.what))].join('; ');
    conversions.push({
      field,
      change: 'redacted',
      reason: `${credentials.length} value${credentials.length === 1 ? '' : 's'} that V1 validation reads as credentials (${kinds}; ${where(credentials)}) replaced with ${PLACEHOLDER}: check the originals, and rotate any that was real.`,
    });
  }
  return { text: current, conversions, remaining };
}
