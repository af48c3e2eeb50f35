/**
 * The text-field rule of the key dispatcher: a bare printable key typed into
 * any editable surface (Monaco's EditContext element, inputs, text areas,
 * content-editable elements, text roles) is text, never a shortcut; the same
 * key on a button or a list still runs its command.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTextField, registerCommands, resolveKey, type ElementLike } from '../../../../renderer/shell/commands';
import { KEYMAP, SCOPE_LABELS } from '../../../../renderer/keymap';
import type { Scope } from '../../../../renderer/shell/keymap';

interface FakeElement extends ElementLike {
  parentElement: FakeElement | null;
}

function element(tagName: string, attributes: Record<string, string> = {}, extra: Partial<FakeElement> = {}, parent: FakeElement | null = null): FakeElement {
  return {
    tagName,
    parentElement: parent,
    getAttribute: (name) => attributes[name] ?? null,
    closest(selector) {
      // Only the one selector the rule asks about: an ancestor with class monaco-editor.
      for (let el: FakeElement | null = this as FakeElement; el; el = el.parentElement) if (selector === '.monaco-editor' && el.getAttribute('class')?.split(' ').includes('monaco-editor')) return el;
      return null;
    },
    ...extra,
  };
}

/** A scope element of `scope` with a handler for every command the table gives that scope. */
function scopeElement(scope: Scope, parent: FakeElement | null = null): FakeElement {
  const el = element('DIV', { 'data-scope': scope }, {}, parent);
  const ids = KEYMAP.filter((e) => e.when === scope).map((e) => e.command);
  registerCommands(el as unknown as Element, ids, () => () => undefined);
  return el;
}

/** Every editable surface of the workbench, as the DOM describes it. */
function surfaces(parent: FakeElement): Record<string, FakeElement> {
  const editor = element('DIV', { class: 'monaco-editor vs-dark' }, {}, parent);
  return {
    'Monaco 0.57 native-edit-context': element('DIV', { class: 'native-edit-context', tabindex: '0' }, { editContext: {} }, element('DIV', { class: 'overflow-guard' }, {}, editor)),
    'Monaco text area (older versions)': element('TEXTAREA', { class: 'inputarea' }, {}, editor),
    'Monaco find widget button': element('DIV', { role: 'button', class: 'button' }, {}, element('DIV', { class: 'find-widget' }, {}, editor)),
    'text input': element('INPUT', { type: 'text' }, { type: 'text' }, parent),
    'search input': element('INPUT', { type: 'search' }, { type: 'search' }, parent),
    'input without a type': element('INPUT', {}, {}, parent),
    'password input': element('INPUT', { type: 'password' }, { type: 'password' }, parent),
    'number input': element('INPUT', { type: 'number' }, { type: 'number' }, parent),
    textarea: element('TEXTAREA', {}, {}, parent),
    select: element('SELECT', {}, {}, parent),
    'content-editable': element('DIV', { contenteditable: 'true' }, { isContentEditable: true }, parent),
    'content-editable plaintext-only': element('DIV', { contenteditable: 'plaintext-only' }, {}, parent),
    'role=textbox': element('DIV', { role: 'textbox' }, {}, parent),
    'EditContext element': element('DIV', {}, { editContext: {} }, parent),
  };
}

function printable(): string[] {
  const chars: string[] = [];
  for (let c = 0x20; c < 0x7f; c++) chars.push(String.fromCharCode(c));
  return chars.concat(['é', 'ß', 'ü', 'ñ', '€', '¿', '¡', '«', '»', 'ж', 'λ', '中', '✓', '😀']);
}

function keyOf(char: string) {
  // Space arrives as the key ' '; upper-case letters and shifted symbols carry Shift.
  const shifted = /[A-Z~!@#$%^&*()_+{}|:"<>?]/.test(char);
  return { key: char, ctrlKey: false, metaKey: false, altKey: false, shiftKey: shifted };
}

describe('isTextField', () => {
  it('treats every editable surface as a text field', () => {
    const root = element('DIV');
    for (const [name, surface] of Object.entries(surfaces(root))) expect(isTextField(surface), name).toBe(true);
  });

  it('leaves buttons, check boxes, lists and plain elements to shortcuts', () => {
    expect(isTextField(element('BUTTON'))).toBe(false);
    expect(isTextField(element('INPUT', { type: 'checkbox' }, { type: 'checkbox' }))).toBe(false);
    expect(isTextField(element('INPUT', { type: 'radio' }, { type: 'radio' }))).toBe(false);
    expect(isTextField(element('DIV', { role: 'listbox', tabindex: '0' }))).toBe(false);
    expect(isTextField(element('DIV', { contenteditable: 'false' }))).toBe(false);
    expect(isTextField(element('DIV', { role: 'textbox', 'aria-readonly': 'true' }))).toBe(false);
    expect(isTextField(element('DIV', {}, { editContext: null }))).toBe(false);
    expect(isTextField(null)).toBe(false);
  });
});

describe('typing into an editable surface', () => {
  const scopes = Object.keys(SCOPE_LABELS) as Scope[];

  it('never turns a printable character into a command, in any scope', () => {
    for (const scope of scopes) {
      const global = scopeElement('global');
      const view = scope === 'global' ? global : scopeElement(scope, global);
      for (const [name, surface] of Object.entries(surfaces(view))) {
        for (const char of printable()) {
          const hit = resolveKey({ ...keyOf(char), target: surface as unknown as EventTarget }, surface as unknown as Element, 'other');
          expect(hit?.entry.command, `'${char}' typed into ${name} in ${scope}`).toBeUndefined();
        }
      }
    }
  });

  it('holds for any text typed into any surface (property)', () => {
    const global = scopeElement('global');
    const all = Object.entries(surfaces(scopeElement('editor', global)));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.nat(all.length - 1), (text, index) => {
        const [, surface] = all[index]!;
        for (const char of [...text]) {
          expect(resolveKey({ ...keyOf(char), target: surface as unknown as EventTarget }, surface as unknown as Element, 'other')).toBeUndefined();
        }
      }),
    );
  });

  it('still opens the shortcuts sheet with ? pressed outside a text field, and runs chords with a modifier inside one', () => {
    const global = scopeElement('global');
    const button = element('BUTTON', {}, {}, global);
    expect(resolveKey({ ...keyOf('?'), target: button as unknown as EventTarget }, button as unknown as Element, 'other')?.entry.command).toBe('help.shortcuts');
    const editor = surfaces(global)['Monaco 0.57 native-edit-context']!;
    const palette = { key: 'P', ctrlKey: true, metaKey: false, altKey: false, shiftKey: true, target: editor as unknown as EventTarget };
    expect(resolveKey(palette, editor as unknown as Element, 'other')?.entry.command).toBe('palette.show');
  });
});
