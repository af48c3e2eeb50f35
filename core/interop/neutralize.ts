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

const lineOf = (text: string, index: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

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
  let current = text;
  const fixes: Fix[] = [];
  let remaining: TextHit[] = [];
  const fences = outline(text).fences;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const hits = scanText(current, { projected }).hits;
    const todo = hits.filter((h) => fixable(h) !== undefined);
    remaining = hits.filter((h) => fixable(h) === undefined);
    if (todo.length === 0) break;
    // From the end, so earlier indices stay valid; no fix adds or removes a line.
    for (const hit of [...todo].sort((a, b) => b.index - a.index)) {
      const kind = fixable(hit)!;
      const match = current.slice(hit.index, hit.index + hit.length);
      const replacement = kind === 'script' ? `&lt;${match.slice(1)}` : kind === 'shebang' ? `#\\${match.slice(1)}` : redact(match);
      fixes.push({ kind, line: firstLine + lineOf(current, hit.index) - 1, inCode: inFence(fences, hit.index), what: hit.args[0] ?? '' });
      current = current.slice(0, hit.index) + replacement + current.slice(hit.index + hit.length);
    }
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
