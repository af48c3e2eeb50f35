import { describe, expect, it } from 'vitest';
import { firesInTextField } from '../../../../renderer/shell/commands';
import { KEYMAP, KEYMAP_CONTRIBUTIONS, SCOPE_LABELS, keymapEntry } from '../../../../renderer/keymap';
import { collectKeymap, keymapConflicts, keysOf, shellKeymap, type KeymapContribution } from '../../../../renderer/shell/keymap';
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

  it('collects every feature contribution, the shell keeping only its own commands', () => {
    expect(KEYMAP.length).toBe(KEYMAP_CONTRIBUTIONS.reduce((n, c) => n + c.entries.length, 0));
    expect(keymapConflicts(KEYMAP_CONTRIBUTIONS)).toEqual([]);
    const shellAreas = new Set(shellKeymap.entries.map((e) => e.command.split('.')[0]));
    expect([...shellAreas].sort()).toEqual(['focus', 'help', 'palette', 'quickOpen', 'sidebar', 'tab', 'theme']);
    for (const c of KEYMAP_CONTRIBUTIONS.filter((x) => x !== shellKeymap)) {
      for (const e of c.entries) expect(e.when === 'global' || Object.hasOwn(c.scopes ?? {}, e.when), `${e.command} of ${c.id} in a scope it does not own`).toBe(true);
    }
  });

  it('reports two features binding one chord in one scope, on either platform', () => {
    const first: KeymapContribution = { id: 'first', scopes: { first: 'First' }, entries: [{ command: 'first.go', category: 'First', title: 'Go', keys: ['Mod+G'], when: 'global' }] };
    const second: KeymapContribution = { id: 'second', entries: [{ command: 'second.go', category: 'Second', title: 'Go', keys: ['Ctrl+Alt+G'], macKeys: ['Mod+G'], when: 'global' }] };
    const problems = keymapConflicts([shellKeymap, first, second]);
    expect(problems).toEqual([`Mod+G in scope 'global' is bound to 'first.go' (first) and 'second.go' (second)`]);
    expect(() => collectKeymap([shellKeymap, first, second])).toThrow(/first\.go.*second\.go/);
    // The same chord in different scopes is no conflict: each view has its own meaning for it.
    const scoped: KeymapContribution = { id: 'scoped', entries: [{ command: 'scoped.go', category: 'Scoped', title: 'Go', keys: ['Mod+G'], when: 'first' }] };
    expect(keymapConflicts([shellKeymap, first, scoped])).toEqual([]);
  });

  it('reports a command contributed twice, a scope declared twice and a row in an undeclared scope', () => {
    const a: KeymapContribution = { id: 'a', scopes: { catalog: 'Catalog' }, entries: [{ command: 'x.run', category: 'X', title: 'Run', when: 'nowhere' }] };
    const b: KeymapContribution = { id: 'b', scopes: { catalog: 'Catalog again' }, entries: [{ command: 'x.run', category: 'X', title: 'Run', when: 'global' }] };
    expect(keymapConflicts([shellKeymap, a, b])).toEqual([
      "Scope 'catalog' is declared by a and b",
      "Command 'x.run' of a is in the undeclared scope 'nowhere'",
      "Command 'x.run' is contributed by a and b",
    ]);
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
