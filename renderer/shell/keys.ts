/**
 * Key chords as written in the keymap table (`Mod+Shift+P`), matched against
 * keyboard events and formatted per platform. `Mod` is Cmd on macOS and Ctrl
 * elsewhere, as in VS Code and Bruno.
 */

/** The platforms whose key labels differ. */
export type Platform = 'mac' | 'other';

/** The platform of the running browser. */
export function currentPlatform(): Platform {
  const nav = typeof navigator === 'undefined' ? undefined : navigator;
  const name = (nav as { userAgentData?: { platform?: string } } | undefined)?.userAgentData?.platform ?? nav?.platform ?? '';
  return /mac|iphone|ipad/i.test(name) ? 'mac' : 'other';
}

const MODIFIERS = ['Mod', 'Ctrl', 'Alt', 'Shift'] as const;
type Modifier = (typeof MODIFIERS)[number];

/** A parsed chord: its modifiers and one key, in the table's canonical spelling. */
export interface Chord {
  mods: ReadonlySet<Modifier>;
  key: string;
}

const KEY_ALIASES: Record<string, string> = {
  esc: 'Escape',
  escape: 'Escape',
  enter: 'Enter',
  return: 'Enter',
  space: 'Space',
  ' ': 'Space',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  home: 'Home',
  end: 'End',
  tab: 'Tab',
  delete: 'Delete',
  backspace: 'Backspace',
};

function canonicalKey(key: string): string {
  const alias = KEY_ALIASES[key.toLowerCase()];
  if (alias) return alias;
  if (/^f\d{1,2}$/i.test(key)) return key.toUpperCase();
  return key.length === 1 ? key.toUpperCase() : key;
}

/** Parses `Mod+Shift+P`; throws on an unknown modifier so a typo in the table fails its test. */
export function parseChord(text: string): Chord {
  const parts = text.split('+');
  // `Mod++` would name the plus key; the table never binds it.
  const key = parts.pop();
  if (!key) throw new Error(`Empty key in chord '${text}'`);
  const mods = new Set<Modifier>();
  for (const part of parts) {
    if (!(MODIFIERS as readonly string[]).includes(part)) throw new Error(`Unknown modifier '${part}' in chord '${text}'`);
    mods.add(part as Modifier);
  }
  return { mods, key: canonicalKey(key) };
}

/** The subset of KeyboardEvent a chord is matched against. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/**
 * Whether `event` is `chord` on `platform`. Shift is compared only for keys
 * whose character does not already encode it: `?` is Shift+/ on most layouts,
 * so the table writes `?`, not `Shift+/`.
 */
export function matchesChord(event: KeyLike, chord: Chord, platform: Platform): boolean {
  const key = canonicalKey(event.key);
  if (key !== chord.key) return false;
  const wantsCtrl = platform === 'mac' ? chord.mods.has('Ctrl') : chord.mods.has('Mod') || chord.mods.has('Ctrl');
  const wantsMeta = platform === 'mac' && chord.mods.has('Mod');
  if (event.ctrlKey !== wantsCtrl || event.metaKey !== wantsMeta) return false;
  if (event.altKey !== chord.mods.has('Alt')) return false;
  const shiftMatters = key.length > 1 || /[A-Z0-9]/.test(key);
  if (shiftMatters && event.shiftKey !== chord.mods.has('Shift')) return false;
  return true;
}

const MAC_LABELS: Record<string, string> = { Mod: '⌘', Ctrl: '⌃', Alt: '⌥', Shift: '⇧' };
const KEY_LABELS: Record<string, string> = {
  ArrowUp: '↑',
  ArrowDown: '↓',
  ArrowLeft: '←',
  ArrowRight: '→',
  Escape: 'Esc',
  PageUp: 'PgUp',
  PageDown: 'PgDn',
};

/** A chord as a person reads it: `Ctrl+Shift+P` or `⇧⌘P`. */
export function formatChord(text: string, platform: Platform): string {
  const chord = parseChord(text);
  const key = KEY_LABELS[chord.key] ?? chord.key;
  const order: Modifier[] = platform === 'mac' ? ['Ctrl', 'Alt', 'Shift', 'Mod'] : ['Mod', 'Ctrl', 'Alt', 'Shift'];
  const mods = order.filter((m) => chord.mods.has(m));
  if (platform === 'mac') return `${mods.map((m) => MAC_LABELS[m]).join('')}${key}`;
  return [...mods.map((m) => (m === 'Mod' ? 'Ctrl' : m)), key].join('+');
}

/**
 * The chord in Playwright's `keyboard.press` spelling (`ControlOrMeta+Shift+P`),
 * so end-to-end tests press exactly what the table says.
 */
export function playwrightChord(text: string): string {
  const chord = parseChord(text);
  const names: Record<Modifier, string> = { Mod: 'ControlOrMeta', Ctrl: 'Control', Alt: 'Alt', Shift: 'Shift' };
  const mods = MODIFIERS.filter((m) => chord.mods.has(m)).map((m) => names[m]);
  // A bare upper-case letter would be typed with Shift; the table means the plain key.
  const key = chord.key.length === 1 && !chord.mods.has('Shift') ? chord.key.toLowerCase() : chord.key;
  return [...mods, key].join('+');
}
