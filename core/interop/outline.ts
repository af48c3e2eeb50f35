/**
 * The block outline of a markdown text: its top-level headings and its fenced
 * code blocks, with offsets, in one pass over the lines.
 *
 * Why not a full parse: `remark-parse` (micromark) builds every inline node
 * and costs over a second of CPU per megabyte, and a skill folder of a
 * megabyte must import in well under a second. Splitting at heading
 * boundaries and telling whether a match sits in a code block need only the
 * block outline. The CommonMark rules that decide it are followed here:
 * fenced code (``` and ~~~, up to three spaces of indentation, a closing
 * fence of the same character at least as long), HTML blocks that may hold
 * `#` lines (comments, `<pre>`/`<script>`/`<style>`/`<textarea>`, block-level
 * tags up to a blank line), ATX headings, and setext headings under a
 * top-level paragraph, with list items and block quotes followed far enough
 * (content column, lazy continuation lines) that a `#` line inside them is
 * never taken for a top-level heading. The unit tests hold this outline to
 * `remark-parse`'s tree on generated documents.
 *
 * Isomorphic: no `node:` imports.
 */

/** A top-level heading. Offsets are UTF-16 indices into the text. */
export interface OutlineHeading {
  /** 1..6 */
  depth: number;
  /** The heading's text (closing `#`s and surrounding spaces removed; a setext heading's lines joined by a newline). */
  text: string;
  /** Where the heading's first line starts (its indentation included; a setext heading starts with its paragraph). */
  start: number;
  /** Just past the heading's last line, newline included. */
  end: number;
  /** 1-based line of `start`. */
  line: number;
}

/** A fenced code block, fences included. */
export interface OutlineFence {
  start: number;
  /** Just past the closing fence line (or the end of the text when it is never closed). */
  end: number;
  line: number;
}

/** Headings and fenced code blocks of a text, in document order. */
export interface Outline {
  headings: OutlineHeading[];
  fences: OutlineFence[];
  /** Offsets of the starts of blank lines outside fenced code and HTML blocks (paragraph boundaries). */
  blankLines: number[];
}

const ATX = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|(\d{1,9})[.)])(?:[ \t]|$)/;
const BLOCK_QUOTE = /^ {0,3}>/;
/** CommonMark HTML block start condition 1: raw text elements, closed by their end tag. */
const HTML_RAW = /^ {0,3}<(pre|script|style|textarea)(?:\s|>|$)/i;
/** Condition 7: one complete open or closing tag alone on its line (it cannot interrupt a paragraph); the block ends at a blank line. */
const HTML_LONE_TAG = /^ {0,3}(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*$/;
/** Condition 6: block-level tag names; the block ends at a blank line. */
const HTML_BLOCK_TAG =
  /^ {0,3}<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:\s|\/?>|$)/i;

type Block = { kind: 'none' } | { kind: 'fence'; char: string; length: number; start: number; line: number; indent: number } | { kind: 'html'; until: RegExp | 'blank' };

/** Columns of leading whitespace (a tab advances to the next multiple of 4). */
function indentOf(line: string): number {
  let col = 0;
  for (const c of line) {
    if (c === ' ') col++;
    else if (c === '\t') col += 4 - (col % 4);
    else break;
  }
  return col;
}

/** `line` without its first `columns` columns of indentation. */
function dedent(line: string, columns: number): string {
  let col = 0;
  let i = 0;
  while (i < line.length && col < columns && (line[i] === ' ' || line[i] === '\t')) {
    col += line[i] === '\t' ? 4 - (col % 4) : 1;
    i++;
  }
  return line.slice(i);
}

/** Whether a line (already relative to its container) starts a block that ends a paragraph, so it cannot be a lazy continuation. */
function startsBlock(line: string): boolean {
  return ATX.test(line.trimStart().startsWith('#') && indentOf(line) < 4 ? line.trimStart() : '') || FENCE_OPEN.test(line) || THEMATIC.test(line) || BLOCK_QUOTE.test(line) || /^ {0,3}(?:[-+*]|1[.)])[ \t]+\S/.test(line) || /^ {0,3}<!--/.test(line) || HTML_RAW.test(line) || HTML_BLOCK_TAG.test(line);
}

/**
 * The outline of `text` (LF or CRLF line endings). Linear in the length of the
 * text; allocates one small object per heading, fence and blank line.
 */
export function outline(text: string): Outline {
  const headings: OutlineHeading[] = [];
  const fences: OutlineFence[] = [];
  const blankLines: number[] = [];
  let block: Block = { kind: 'none' };
  // The open paragraph: 'top' (a setext underline makes it a heading), 'inner' (in a list item or quote: lazy lines continue it), or none.
  let paragraph: 'top' | 'inner' | 'none' = 'none';
  let paragraphStart = 0;
  let paragraphLine = 0;
  let paragraphText: string[] = [];
  // The container the last lines were in: a list item (its content column) or a block quote.
  let container: 'none' | 'list' | 'quote' = 'none';
  let contentColumn = 0;
  let blankInList = false;
  let lineNo = 0;
  let at = 0;
  while (at <= text.length) {
    const newline = text.indexOf('\n', at);
    const next = newline === -1 ? text.length : newline + 1;
    let raw = text.slice(at, newline === -1 ? text.length : newline);
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    lineNo++;
    const start = at;
    at = next;
    const last = newline === -1;
    const blank = raw.trim() === '';
    const indent = indentOf(raw);

    if (block.kind === 'fence') {
      // A fence inside a list item ends with the item: a line indented less than the item's content.
      if (block.indent > 0 && !blank && indent < block.indent) {
        fences.push({ start: block.start, end: start, line: block.line });
        block = { kind: 'none' };
        container = 'none';
      } else {
        const close = FENCE_OPEN.exec(dedent(raw, block.indent));
        if (close && close[2]![0] === block.char && close[2]!.length >= block.length && close[3]!.trim() === '') {
          fences.push({ start: block.start, end: next, line: block.line });
          block = { kind: 'none' };
        }
        if (last) break;
        continue;
      }
    }
    if (block.kind === 'html') {
      if (block.until === 'blank') {
        if (blank) {
          block = { kind: 'none' };
          blankLines.push(start);
        }
      } else if (block.until.test(raw)) {
        block = { kind: 'none' };
      }
      if (last) break;
      continue;
    }

    if (blank) {
      paragraph = 'none';
      if (container === 'quote') container = 'none';
      if (container === 'list') blankInList = true;
      if (!(last && raw === '')) blankLines.push(start);
      if (last) break;
      continue;
    }

    // Lines that belong to the open list item or quote: never a top-level heading.
    if (container === 'list') {
      if (indent >= contentColumn) {
        const inner = dedent(raw, contentColumn);
        const fence = FENCE_OPEN.exec(inner);
        if (fence && !(fence[2]![0] === '`' && fence[3]!.includes('`'))) {
          block = { kind: 'fence', char: fence[2]![0]!, length: fence[2]!.length, start, line: lineNo, indent: contentColumn };
          paragraph = 'none';
        } else if (indentOf(inner) < 4 && ATX.test(inner.trimStart())) {
          paragraph = 'none';
        } else if (indentOf(inner) >= 4 && paragraph === 'none') {
          // Indented code inside the item.
        } else {
          paragraph = 'inner';
        }
        blankInList = false;
        if (last) break;
        continue;
      }
      if (!blankInList && paragraph === 'inner' && !startsBlock(raw) && !LIST_ITEM.test(raw)) {
        if (last) break;
        continue;
      }
      container = 'none';
      paragraph = 'none';
    } else if (container === 'quote') {
      if (BLOCK_QUOTE.test(raw)) {
        const inner = raw.replace(/^ {0,3}> ?/, '');
        paragraph = ATX.test(inner.trimStart()) && indentOf(inner) < 4 ? 'none' : 'inner';
        if (last) break;
        continue;
      }
      if (paragraph === 'inner' && !startsBlock(raw)) {
        if (last) break;
        continue;
      }
      container = 'none';
      paragraph = 'none';
    }

    // Indented code (four columns) can neither start a block nor interrupt a paragraph.
    if (indent >= 4) {
      if (paragraph === 'top') paragraphText.push(raw.trim());
      if (last) break;
      continue;
    }
    const fence = FENCE_OPEN.exec(raw);
    if (fence && !(fence[2]![0] === '`' && fence[3]!.includes('`'))) {
      block = { kind: 'fence', char: fence[2]![0]!, length: fence[2]!.length, start, line: lineNo, indent: 0 };
      paragraph = 'none';
      if (last) {
        fences.push({ start, end: next, line: lineNo });
        block = { kind: 'none' };
        break;
      }
      continue;
    }
    const atx = raw.trimStart().startsWith('#') ? ATX.exec(raw.trimStart()) : null;
    if (atx) {
      headings.push({ depth: atx[1]!.length, text: (atx[2] ?? '').replace(/[ \t]+#+$/, '').trim(), start, end: next, line: lineNo });
      paragraph = 'none';
      if (last) break;
      continue;
    }
    const setext = paragraph === 'top' ? SETEXT.exec(raw) : null;
    if (setext) {
      headings.push({ depth: setext[1]![0] === '=' ? 1 : 2, text: paragraphText.join('\n'), start: paragraphStart, end: next, line: paragraphLine });
      paragraph = 'none';
      if (last) break;
      continue;
    }
    if (THEMATIC.test(raw)) {
      paragraph = 'none';
      if (last) break;
      continue;
    }
    const comment = /^ {0,3}<!--/.test(raw);
    const rawTag = HTML_RAW.exec(raw);
    if (comment || rawTag) {
      const until = comment ? /-->/ : new RegExp(`</${rawTag![1]}>`, 'i');
      // The end may stand on the opening line itself (after the opening tag).
      const rest = comment ? raw.slice(raw.indexOf('<!--') + 4) : raw.slice(raw.indexOf('<') + 1);
      if (!until.test(rest)) block = { kind: 'html', until };
      paragraph = 'none';
      if (last) break;
      continue;
    }
    if (HTML_BLOCK_TAG.test(raw) || (paragraph === 'none' && HTML_LONE_TAG.test(raw))) {
      block = { kind: 'html', until: 'blank' };
      paragraph = 'none';
      if (last) break;
      continue;
    }
    const item = LIST_ITEM.exec(raw);
    // An ordered item interrupts a paragraph only when it starts at 1, and an empty item never does.
    const emptyItem = item !== null && raw.slice(item[0].length).trim() === '';
    if (item && !(paragraph === 'top' && ((item[1] !== undefined && item[1] !== '1') || emptyItem))) {
      container = 'list';
      blankInList = false;
      const marker = item[0].trimEnd().length;
      const after = raw.slice(marker);
      const gap = emptyItem ? 1 : Math.min(indentOf(after), 5);
      contentColumn = marker + (gap >= 5 ? 1 : gap);
      const content = after.trimStart();
      paragraph = content === '' || (ATX.test(content) && indentOf(after) - 1 < 4) ? 'none' : 'inner';
      if (last) break;
      continue;
    }
    if (BLOCK_QUOTE.test(raw)) {
      container = 'quote';
      const inner = raw.replace(/^ {0,3}> ?/, '');
      paragraph = ATX.test(inner.trimStart()) && indentOf(inner) < 4 ? 'none' : 'inner';
      if (last) break;
      continue;
    }
    if (paragraph === 'none') {
      paragraph = 'top';
      paragraphStart = start;
      paragraphLine = lineNo;
      paragraphText = [raw.trim()];
    } else if (paragraph === 'top') {
      paragraphText.push(raw.trim());
    }
    if (last) break;
  }
  if (block.kind === 'fence') fences.push({ start: block.start, end: text.length, line: block.line });
  return { headings, fences, blankLines };
}

/** Whether `index` falls inside one of `fences` (sorted, as {@link outline} returns them). */
export function inFence(fences: readonly OutlineFence[], index: number): boolean {
  let lo = 0;
  let hi = fences.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const f = fences[mid]!;
    if (index < f.start) hi = mid - 1;
    else if (index >= f.end) lo = mid + 1;
    else return true;
  }
  return false;
}
