/**
 * A strict XML 1.0 well-formedness checker and tiny tree parser for tests.
 * It rejects what a conforming parser must reject for the documents our
 * reports produce: invalid UTF-8, characters outside the XML Char production,
 * bad or undefined references, `<` or a bare `&` in text or attributes, `]]>`
 * in text, duplicate attributes, mismatched tags, content outside the root.
 * DOCTYPE declarations are rejected outright (reports never emit one).
 */

/** A parsed element; text children have their references decoded. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

/** An element or a run of character data. */
export type XmlNode = XmlElement | string;

/** A well-formedness error with its character offset, line and column. */
export class XmlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
  }
}

const NOT_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
// Names: the ASCII part of the XML Name production exactly, non-ASCII letters approximated by one range.
const NAME = /[A-Za-z_:\u00C0-\uD7FF\uF900-\uFFFD][-.0-9A-Za-z_:\u00B7\u00C0-\uD7FF\uF900-\uFFFD]*/y;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** Parses `input` (bytes are decoded as strict UTF-8) or throws an {@link XmlError}. */
export function parseXmlStrict(input: Uint8Array | string): XmlElement {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw new XmlError('invalid UTF-8', 0, 1, 1);
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let pos = 0;

  const fail = (message: string, at = pos): never => {
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    throw new XmlError(message, at, line, at - before.lastIndexOf('\n'));
  };

  const bad = NOT_CHAR.exec(text);
  if (bad) fail(`character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`, bad.index);

  const startsWith = (s: string): boolean => text.startsWith(s, pos);
  const skipSpace = (): boolean => {
    const start = pos;
    while (pos < text.length && ' \t\r\n'.includes(text[pos]!)) pos++;
    return pos > start;
  };
  const name = (): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(text);
    if (!m) return fail('expected a name');
    pos += m[0].length;
    return m[0];
  };
  const reference = (): string => {
    // pos is at '&'
    const end = text.indexOf(';', pos);
    if (end === -1) fail('unterminated reference');
    const body = text.slice(pos + 1, end);
    let value: string;
    if (/^#[0-9]+$/.test(body) || /^#x[0-9a-fA-F]+$/.test(body)) {
      const cp = body[1] === 'x' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!isXmlChar(cp)) fail(`character reference &${body}; is not an XML character`);
      value = String.fromCodePoint(cp);
    } else if (body in PREDEFINED) value = PREDEFINED[body]!;
    else value = fail(`undefined entity &${body};`);
    pos = end + 1;
    return value;
  };
  const comment = (): void => {
    const end = text.indexOf('-->', pos + 4);
    if (end === -1) fail('unterminated comment');
    const body = text.slice(pos + 4, end);
    if (body.includes('--') || body.endsWith('-')) fail('"--" inside a comment');
    pos = end + 3;
  };
  const pi = (): void => {
    pos += 2;
    const target = name();
    if (target.toLowerCase() === 'xml') fail('XML declaration not at the start of the document');
    const end = text.indexOf('?>', pos);
    if (end === -1) fail('unterminated processing instruction');
    pos = end + 2;
  };
  const misc = (): void => {
    for (;;) {
      skipSpace();
      if (startsWith('<!--')) comment();
      else if (startsWith('<?')) pi();
      else return;
    }
  };
  const attrValue = (): string => {
    const quote = text[pos];
    if (quote !== '"' && quote !== "'") return fail('attribute value must be quoted');
    pos++;
    let value = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated attribute value');
      const c = text[pos]!;
      if (c === quote) {
        pos++;
        return value;
      }
      if (c === '<') fail('"<" in an attribute value');
      if (c === '&') value += reference();
      else {
        // Attribute-value normalization: literal whitespace characters become spaces.
        value += c === '\t' || c === '\n' || c === '\r' ? ' ' : c;
        pos++;
      }
    }
  };
  const element = (): XmlElement => {
    pos++; // '<'
    const tag = name();
    const attrs: Record<string, string> = {};
    for (;;) {
      const spaced = skipSpace();
      if (startsWith('/>')) {
        pos += 2;
        return { name: tag, attrs, children: [] };
      }
      if (startsWith('>')) {
        pos++;
        break;
      }
      if (!spaced) fail('expected whitespace before an attribute');
      const attr = name();
      if (Object.hasOwn(attrs, attr)) fail(`duplicate attribute "${attr}"`);
      skipSpace();
      if (!startsWith('=')) fail(`expected "=" after attribute "${attr}"`);
      pos++;
      skipSpace();
      attrs[attr] = attrValue();
    }
    const children: XmlNode[] = [];
    let buffer = '';
    const flushText = (): void => {
      if (buffer !== '') children.push(buffer);
      buffer = '';
    };
    for (;;) {
      if (pos >= text.length) fail(`element <${tag}> is not closed`);
      if (startsWith('</')) {
        pos += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (!startsWith('>')) fail('expected ">"');
        pos++;
        flushText();
        return { name: tag, attrs, children };
      }
      if (startsWith('<!--')) comment();
      else if (startsWith('<![CDATA[')) {
        const end = text.indexOf(']]>', pos);
        if (end === -1) fail('unterminated CDATA section');
        buffer += text.slice(pos + 9, end);
        pos = end + 3;
      } else if (startsWith('<?')) pi();
      else if (startsWith('<')) {
        flushText();
        children.push(element());
      } else if (startsWith('&')) buffer += reference();
      else if (startsWith(']]>')) fail('"]]>" in character data');
      else {
        buffer += text[pos];
        pos++;
      }
    }
  };

  if (startsWith('<?xml')) {
    const end = text.indexOf('?>');
    if (end === -1) fail('unterminated XML declaration');
    const decl = text.slice(0, end + 2);
    if (!/^<\?xml\s+version\s*=\s*(["'])1\.[0-9]+\1(\s+encoding\s*=\s*(["'])[A-Za-z][A-Za-z0-9._-]*\3)?(\s+standalone\s*=\s*(["'])(yes|no)\5)?\s*\?>$/.test(decl)) fail('malformed XML declaration');
    pos = end + 2;
  }
  misc();
  if (startsWith('<!DOCTYPE')) fail('DOCTYPE is not accepted');
  if (!startsWith('<')) fail('expected the root element');
  const root = element();
  misc();
  if (pos !== text.length) fail('content after the root element');
  return root;
}

/** Every descendant element named `name`, in document order. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    if (e.name === name) out.push(e);
    for (const c of e.children) if (typeof c !== 'string') walk(c);
  };
  walk(root);
  return out;
}

/** The concatenated character data of an element and its descendants. */
export function textOf(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}
