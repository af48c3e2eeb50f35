/**
 * Escaping of untrusted text (requests, model answers, package fields, model
 * specs) for each report format. Every report puts user text through exactly
 * one of these functions; none of them trusts its input to be well-formed
 * Unicode either.
 */

/** The replacement for characters a format cannot carry. */
export const REPLACEMENT = '\uFFFD';

// XML 1.0 allows tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD and the astral
// planes. With the `u` flag a lone surrogate is one code point, so it matches
// too and never reaches the encoder as half a pair.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Replaces every character that XML 1.0 forbids (C0 controls other than tab,
 * LF and CR, lone surrogates, U+FFFE, U+FFFF) with U+FFFD. The result also
 * encodes to well-formed UTF-8.
 */
export function sanitizeChars(text: string): string {
  return text.replace(NOT_XML_CHAR, REPLACEMENT);
}

/**
 * Escapes text content of an XML element. CR becomes a character reference
 * because end-of-line handling would otherwise read it (and CR LF) as LF.
 */
export function escapeXmlText(text: string): string {
  return sanitizeChars(text).replace(/[&<>\r]/g, (c) => XML_TEXT[c]!);
}

const XML_TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/**
 * Escapes an XML attribute value for double quotes. Tab, LF and CR become
 * character references because attribute-value normalization would otherwise
 * turn them into spaces.
 */
export function escapeXmlAttr(text: string): string {
  return sanitizeChars(text).replace(/[&<>"\t\n\r]/g, (c) => XML_ATTR[c]!);
}

const XML_ATTR: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML, valid both as element content and inside a quoted
 * attribute value (either quote style). Raw-text elements (`script`, `style`,
 * `textarea`) are never used for user text, so this is sufficient everywhere
 * the reports put it.
 */
export function escapeHtml(text: string): string {
  return sanitizeChars(text).replace(/[&<>"']/g, (c) => HTML[c]!);
}

// Characters that start Markdown or HTML syntax inline, or split a table cell.
// `<`, `>` and `&` become entities (a backslash does not stop raw HTML).
const MD_SPECIAL = /[\\`*_{}[\]()#+!|~<>&@$]/g;

/**
 * Escapes untrusted text for one line of GitHub-flavoured Markdown, including a
 * table cell: line breaks become spaces, `|` and backticks are backslash-escaped,
 * HTML becomes entities, and `@` is followed by a word joiner so a request that
 * names a user or team does not notify them from a PR comment. Never put the
 * result inside a code span, where backslash escapes do not apply.
 */
export function escapeMarkdown(text: string): string {
  return sanitizeChars(text)
    .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    .replace(MD_SPECIAL, (c) => {
      if (c === '<') return '&lt;';
      if (c === '>') return '&gt;';
      if (c === '&') return '&amp;';
      if (c === '@') return '@\u2060';
      return `\\${c}`;
    });
}

/** Cuts `text` to at most `max` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}
