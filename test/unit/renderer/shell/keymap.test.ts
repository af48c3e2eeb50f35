import { describe, expect, it } from 'vitest';
import { firesInTextField } from '../../../../renderer/shell/commands';
import { KEYMAP, SCOPE_LABELS, keymapEntry, keysOf } from '../../../../renderer/shell/keymap';
import { formatChord, matchesChord, parseChord, playwrightChord, type KeyLike } from '../../../../renderer/shell/keys';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

describe('keymap table', () => {
  it('names every command once', () => {
    const ids = KEYMAP.map((e) => e.command);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives no chord two meanings within one scope, on either platform', () => {
    for (const platform of ['mac', 'other'] as const) {
      const seen = new Map<string, string>();
      for (const entry of KEYMAP) {
        for (const chord of keysOf(entry, platform)) {
          const parsed = parseChord(chord);
          const id = `${entry.when}|${[...parsed.mods].sort().join('+')}+${parsed.key}`;
          expect(seen.get(id), `${chord} in ${entry.when} is bound to ${seen.get(id)} and ${entry.command}`).toBeUndefined();
          seen.set(id, entry.command);
        }
      }
    }
  });

  it('parses every chord and labels every scope', () => {
    for (const entry of KEYMAP) {
      for (const chord of entry.keys ?? []) expect(() => parseChord(chord)).not.toThrow();
      expect(SCOPE_LABELS[entry.when]).toBeTruthy();
    }
  });

  it('refuses an unknown command or modifier', () => {
    expect(() => keymapEntry('no.such')).toThrow(/keymap table/);
    expect(() => parseChord('Hyper+P')).toThrow(/Unknown modifier/);
  });

  it('shows the palette and quick open on the chords of the research', () => {
    expect(keymapEntry('palette.show').keys).toContain('Mod+Shift+P');
    expect(keymapEntry('quickOpen.show').keys).toContain('Mod+P');
    expect(keymapEntry('tab.close').keys).toContain('Mod+W');
  });
});

describe('chords', () => {
  it('matches Mod as Ctrl off macOS and Cmd on macOS', () => {
    const chord = parseChord('Mod+Shift+P');
    expect(matchesChord(key('P', { ctrlKey: true, shiftKey: true }), chord, 'other')).toBe(true);
    expect(matchesChord(key('p', { ctrlKey: true, shiftKey: true }), chord, 'other')).toBe(true);
    expect(matchesChord(key('P', { metaKey: true, shiftKey: true }), chord, 'other')).toBe(false);
    expect(matchesChord(key('P', { metaKey: true, shiftKey: true }), chord, 'mac')).toBe(true);
    expect(matchesChord(key('P', { ctrlKey: true, shiftKey: true }), chord, 'mac')).toBe(false);
    expect(matchesChord(key('p', { ctrlKey: true }), chord, 'other')).toBe(false);
  });

  it('does not read Shift into characters that carry it', () => {
    expect(matchesChord(key('?', { shiftKey: true }), parseChord('?'), 'other')).toBe(true);
    expect(matchesChord(key('?', { shiftKey: true, ctrlKey: true }), parseChord('?'), 'other')).toBe(false);
  });

  it('names keys for people and for Playwright', () => {
    expect(formatChord('Mod+Shift+P', 'other')).toBe('Ctrl+Shift+P');
    expect(formatChord('Mod+Shift+P', 'mac')).toBe('⇧⌘P');
    expect(formatChord('Mod+PageDown', 'other')).toBe('Ctrl+PgDn');
    expect(playwrightChord('Mod+Shift+P')).toBe('ControlOrMeta+Shift+P');
    expect(playwrightChord('Mod+P')).toBe('ControlOrMeta+p');
    expect(playwrightChord('Escape')).toBe('Escape');
    expect(playwrightChord('?')).toBe('?');
  });

  it('keeps bare printable keys out of text fields but lets modified chords and navigation through', () => {
    expect(firesInTextField(keymapEntry('help.shortcuts'), parseChord('?'))).toBe(false);
    expect(firesInTextField(keymapEntry('catalog.preview'), parseChord('Space'))).toBe(false);
    expect(firesInTextField(keymapEntry('palette.show'), parseChord('Mod+Shift+P'))).toBe(true);
    expect(firesInTextField(keymapEntry('catalog.next'), parseChord('ArrowDown'))).toBe(true);
    expect(firesInTextField(keymapEntry('versions.delete'), parseChord('Delete'))).toBe(false);
  });
});
