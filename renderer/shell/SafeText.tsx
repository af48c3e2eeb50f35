/**
 * Text from packages and stores, rendered inert. React already escapes markup;
 * this also keeps direction controls (RLO, LRI...) from reordering the text
 * around them: each control is shown as a visible code point instead of being
 * applied, and the whole run is direction-isolated, so a display name cannot
 * make a row, a button label or a file name read backwards.
 */
import { Fragment } from 'react';

// Bidi embeddings, overrides, isolates and marks; zero-width joiners and BOM.
const CONTROLS = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

const NAMES: Record<string, string> = {
  '\u202a': 'left-to-right embedding',
  '\u202b': 'right-to-left embedding',
  '\u202c': 'pop directional formatting',
  '\u202d': 'left-to-right override',
  '\u202e': 'right-to-left override',
  '\u2066': 'left-to-right isolate',
  '\u2067': 'right-to-left isolate',
  '\u2068': 'first strong isolate',
  '\u2069': 'pop directional isolate',
  '\u200e': 'left-to-right mark',
  '\u200f': 'right-to-left mark',
  '\u200b': 'zero-width space',
  '\u200c': 'zero-width non-joiner',
  '\u200d': 'zero-width joiner',
  '\ufeff': 'byte order mark',
};

/** The text with every direction or invisible control replaced by `⟨U+XXXX⟩`, for titles and plain strings. */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** Whether `text` holds a direction or invisible control character. */
export function hasControls(text: string): boolean {
  CONTROLS.lastIndex = 0;
  const found = CONTROLS.test(text);
  CONTROLS.lastIndex = 0;
  return found;
}

/** Renders untrusted text: isolated, controls visible, never markup. */
export function SafeText({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const parts: (string | { code: string; name: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(CONTROLS)) {
    const at = match.index;
    if (at > last) parts.push(text.slice(last, at));
    const c = match[0];
    parts.push({ code: `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, name: NAMES[c] ?? 'invisible character' });
    last = at + c.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return (
    <bdi className={className} data-testid={testId}>
      {parts.map((part, i) =>
        typeof part === 'string' ? (
          <Fragment key={i}>{part}</Fragment>
        ) : (
          <span key={i} className="control-char" title={`${part.name} (shown, not applied)`}>
            {part.code}
          </span>
        ),
      )}
    </bdi>
  );
}
