/**
 * Scanning of package text for forbidden characters, credentials, binary and
 * executable payloads, authority-bypass instructions and reserved framework
 * tags, using the tables of `rules.ts`. Counting UTF-8 bytes rides along, so
 * each string is measured once.
 *
 * Two paths give the same hits for every text. `scanTextPrecise`, the
 * reference, runs every check over the whole string: regexes that start with
 * something rare in prose, `indexOf` for single characters, and a window that
 * jumps over prose a word at a time to find long runs of token characters.
 *
 * `scanText` is the one the validator uses. A package can hold 1 MiB of text
 * and the editor validates on every keystroke, and regex passes over prose
 * cost about as much as `JSON.parse` each, so it first encodes the string to
 * UTF-8 and makes one pass over the bytes, a 32-bit word at a time (`sweep`),
 * then runs the precise checks only where that pass saw something:
 * - the whole-string character check, when a control, C1, bidi or
 *   replacement character shows in the bytes;
 * - the token-run checks (credentials, base64), inside the stretches of
 *   token-like characters that cover a whole aligned group of 16 bytes;
 * - the authority patterns, inside the clause around each anchor
 *   (`AuthorityPattern.anchors`) or whitespace beyond ASCII.
 * AWS key IDs and PEM blocks are found from their rare uppercase letters; the
 * cheap `indexOf`-driven checks run as in the reference.
 *
 * What a scan keeps from one check to the next (the UTF-8 buffer, what the
 * sweep found, the long token runs) belongs to a {@link Scanner}, never to a
 * module: whoever scans many strings (a validation) makes one scanner and
 * reuses it; `scanText` and `scanTextPrecise` make a fresh one per call. The
 * modules hold tables built at load and compiled regexes. A regex's search
 * position is set right before each search and read only inside the same
 * loop, which calls nothing outside these modules, so no other scan can run
 * between them; compiling the rules' long patterns again for every scanner
 * would cost more than a typical validation's scan.
 *
 * The checks live one section per module: `characters.ts`, `tokenRuns.ts`,
 * `anchored.ts`, `authority.ts`, `sweptRuns.ts` and `sweep.ts`.
 *
 * Isomorphic: no `node:` imports.
 */
import { MAX_HITS_PER_STRING } from '../rules';
import { Utf8Counter } from '../tokens';
import { scanAssignments, scanAssignmentsFast, scanMarkup } from './anchored';
import { scanAuthority, scanAuthorityNear } from './authority';
import { measureCharacters } from './characters';
import { sweep, sweepState, type SweepState } from './sweep';
import { scanAwsKeysFast, scanTokenRunsIn, tokenRunsNear } from './sweptRuns';
import { RUN_MIN, scanAwsKeys, scanTokenRuns } from './tokenRuns';
import type { ScanScope, TextHit, TextScan } from './types';

export type { ScanScope, TextHit, TextScan } from './types';


/** Sorts hits, drops repeats and overlapping credentials, and caps each code at `MAX_HITS_PER_STRING`. */
function finish(hits: TextHit[], bytes: number): TextScan {
  if (hits.length < 2) return { hits, bytes };
  hits.sort((a, b) => a.index - b.index || a.length - b.length);
  const kept: TextHit[] = [];
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  let lastCredentialEnd = -1;
  for (const hit of hits) {
    const key = `${hit.code}:${hit.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (hit.code === 'credential_detected') {
      if (hit.index < lastCredentialEnd) continue;
      lastCredentialEnd = hit.index + hit.length;
    }
    const count = counts.get(hit.code) ?? 0;
    if (count >= MAX_HITS_PER_STRING) continue;
    counts.set(hit.code, count + 1);
    kept.push(hit);
  }
  return { hits: kept, bytes };
}

/**
 * Scans strings. A scanner owns the buffers a scan carries from one check to
 * the next, so scans by different scanners never share them, and a scan
 * started while another runs (through a getter of its scope, say) cannot
 * disturb it as long as it uses another scanner. One scanner runs one scan at
 * a time; each scan overwrites what the previous one left. Reusing one across
 * many strings saves allocating the buffers again.
 */
export class Scanner {
  private readonly counter = new Utf8Counter();
  private readonly swept: SweepState = sweepState();
  /** Start and end pairs of the long token runs of the string being scanned. */
  private readonly runs: number[] = [];

  /**
   * Scans one string and measures its UTF-8 length. Hits come back sorted by
   * index, at most `MAX_HITS_PER_STRING` of each code; overlapping credential
   * hits (a token that is also an assignment value) are reported once.
   */
  scan(text: string, scope: ScanScope): TextScan {
    const hits: TextHit[] = [];
    if (text.length === 0) return { hits, bytes: 0 };
    const seen = sweep(this.swept, text, scope.projected);
    if (seen === undefined) return this.scanPrecise(text, scope);
    const bytes = seen.suspicious ? measureCharacters(text, hits, this.counter) : seen.bytes;
    scanAwsKeysFast(text, hits);
    if (text.length >= RUN_MIN) {
      tokenRunsNear(this.swept.bytes, seen.stretches, seen.stretchBytes, seen.bytes, this.runs);
      scanTokenRunsIn(text, this.runs, hits);
    }
    scanAssignmentsFast(text, hits);
    scanMarkup(text, scope.projected, hits);
    if (scope.projected) scanAuthorityNear(text, seen.anchors, hits);
    return finish(hits, bytes);
  }

  /** The reference scan: every check over the whole string. Same result as {@link Scanner.scan}. */
  scanPrecise(text: string, scope: ScanScope): TextScan {
    const hits: TextHit[] = [];
    if (text.length === 0) return { hits, bytes: 0 };
    const bytes = measureCharacters(text, hits, this.counter);
    scanAwsKeys(text, hits);
    if (text.length >= RUN_MIN) scanTokenRuns(text, hits);
    scanAssignments(text, hits);
    scanMarkup(text, scope.projected, hits);
    if (scope.projected) scanAuthority(text, hits);
    return finish(hits, bytes);
  }
}

/**
 * The reference scan: every check over the whole string. Same result as
 * {@link scanText}, which is faster on long text; kept to test it against.
 */
export function scanTextPrecise(text: string, scope: ScanScope): TextScan {
  return new Scanner().scanPrecise(text, scope);
}

/**
 * Scans one string with a scanner of its own (see {@link Scanner.scan}). To
 * scan many strings, make one {@link Scanner} and call its `scan`.
 */
export function scanText(text: string, scope: ScanScope): TextScan {
  return new Scanner().scan(text, scope);
}

/** Strings shorter than this are scanned every time: remembering them costs about as much. */
const CACHE_MIN_CHARS = 256;

/**
 * Remembers the scans of the strings of recent validations, so that
 * validating a package again after an edit (the editor validates on every
 * keystroke) only scans the strings that changed. Results are keyed by the
 * text itself, so a hit is exactly what `scanText` would return. Bounded: a
 * round (`nextRound`, one validation) keeps what it used, and whatever the
 * previous round did not use is dropped, so at most two packages' strings are
 * held. Not for one-shot validation, which gains nothing from it. Strings it
 * has not seen are scanned by a {@link Scanner} of its own.
 */
export class ScanCache {
  private readonly scanner = new Scanner();
  private current: [Map<string, TextScan>, Map<string, TextScan>] = [new Map(), new Map()];
  private previous: [Map<string, TextScan>, Map<string, TextScan>] = [new Map(), new Map()];

  /** Starts a round: scans not used since the previous round started are forgotten. */
  nextRound(): void {
    this.previous = this.current;
    this.current = [new Map(), new Map()];
  }

  /** Number of scans held. */
  get size(): number {
    return this.current[0].size + this.current[1].size + this.previous[0].size + this.previous[1].size;
  }

  /** {@link scanText}, remembered. The result is frozen: it may be handed out again. */
  scan(text: string, scope: ScanScope): TextScan {
    if (text.length < CACHE_MIN_CHARS) return this.scanner.scan(text, scope);
    const kind = scope.projected ? 1 : 0;
    let scan = this.current[kind].get(text);
    if (scan === undefined) {
      scan = this.previous[kind].get(text);
      this.previous[kind].delete(text);
    }
    if (scan === undefined) {
      const fresh = this.scanner.scan(text, scope);
      for (const hit of fresh.hits) Object.freeze(hit.args);
      scan = Object.freeze({ hits: Object.freeze(fresh.hits.map((hit) => Object.freeze(hit))) as TextHit[], bytes: fresh.bytes });
    }
    this.current[kind].set(text, scan);
    return scan;
  }
}
