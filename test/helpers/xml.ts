/**
 * XML for tests, read by `saxes`, a conforming non-validating XML 1.0 parser,
 * so the reports' escaping is checked by an independent implementation: it
 * rejects characters outside the Char production, bad or undefined
 * references, `<` or a bare `&` in text or attributes, `]]>` in text,
 * duplicate attributes, mismatched tags and content outside the root. Bytes
 * must be valid UTF-8. DOCTYPE declarations are refused as well, since the
 * reports never emit one.
 */
import { SaxesParser } from 'saxes';

/** A parsed element; text children have their references decoded. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

/** An element or a run of character data. */
export type XmlNode = XmlElement | string;

/** A well-formedness error with its line and column. */
export class XmlError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
  }
}

/** Parses a whole document, throwing {@link XmlError} at its first error. */
export function parseXmlStrict(input: Uint8Array | string): XmlElement {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input);
    } catch {
      throw new XmlError('invalid UTF-8', 1, 1);
    }
  }
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: XmlError | undefined;
  const fail = (message: string): void => {
    failure ??= new XmlError(message, parser.line, parser.column);
  };
  parser.on('error', (error) => fail(error.message));
  parser.on('doctype', () => fail('DOCTYPE is not accepted'));
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attrs: { ...(tag.attributes as Record<string, string>) }, children: [] };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  const addText = (value: string): void => {
    const parent = stack.at(-1);
    if (!parent) return; // whitespace around the root; saxes refuses anything else there
    const last = parent.children.at(-1);
    if (typeof last === 'string') parent.children[parent.children.length - 1] = last + value;
    else parent.children.push(value);
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.write(text).close();
  if (failure) throw failure;
  if (!root) throw new XmlError('no root element', parser.line, parser.column);
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
