/**
 * Command handlers and the key dispatcher behind the keymap table.
 *
 * A view marks its root element with `data-scope="<scope>"` and attaches
 * handlers to it with {@link useCommands}. A key press walks from the focused
 * element up through the scopes it sits in (innermost first) and runs the first
 * row of the table whose chord matches and whose command has a handler on that
 * scope element; so the focused view decides what a chord means, and two
 * catalog tabs never answer the same key. The palette enumerates the same walk.
 * Enter and Space on a focused button, link or checkbox belong to that control.
 */
import { useEffect, useRef, type RefObject } from 'react';
import { KEYMAP } from '../keymap';
import { keysOf, type KeymapEntry, type Scope } from './keymap';
import { matchesChord, parseChord, type Chord, type KeyLike, type Platform } from './keys';

/** What a command does; `enabled` returns true, or the reason it cannot run now. */
export interface CommandHandler {
  run: () => void | Promise<void>;
  enabled?: () => true | string;
}

type HandlerSpec = CommandHandler | (() => void | Promise<void>);

const registry = new WeakMap<Element, Map<string, () => CommandHandler>>();

function handlersOf(element: Element): Map<string, () => CommandHandler> | undefined {
  return registry.get(element);
}

function normalize(spec: HandlerSpec): CommandHandler {
  return typeof spec === 'function' ? { run: spec } : spec;
}

/**
 * Attaches handlers to a scope element outside React (tests, non-React
 * roots); `get(id)` returns the current handler of `id`. Returns the detach function.
 */
export function registerCommands(element: Element, ids: readonly string[], get: (id: string) => HandlerSpec | undefined): () => void {
  let map = registry.get(element);
  if (!map) {
    map = new Map();
    registry.set(element, map);
  }
  const own = map;
  for (const id of ids) {
    own.set(id, () => {
      const spec = get(id);
      return spec ? normalize(spec) : { run: () => undefined, enabled: () => 'Not available here' };
    });
  }
  return () => {
    for (const id of ids) own.delete(id);
  };
}

/**
 * Attaches `handlers` (command id → handler) to the scope element in `ref` while
 * the component is mounted. Handlers may change every render; the latest ones run.
 */
export function useCommands(ref: RefObject<Element | null>, handlers: Record<string, HandlerSpec>): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  const ids = Object.keys(handlers).sort().join('\n');
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    return registerCommands(element, ids.split('\n').filter(Boolean), (id) => latest.current[id]);
  }, [ref, ids]);
}

/** One scope element on the walk from the focused element outwards. */
interface ScopeStop {
  element: Element;
  scope: Scope;
}

/** The scopes `start` sits in, innermost first, stopping at a modal's root. */
export function scopeChain(start: Element | null): ScopeStop[] {
  const stops: ScopeStop[] = [];
  for (let el: Element | null = start; el; el = el.parentElement) {
    const scope = el.getAttribute('data-scope');
    if (scope) stops.push({ element: el, scope });
    if (el.getAttribute('aria-modal') === 'true') break;
  }
  return stops;
}

const TABLE_BY_SCOPE = new Map<string, { entry: KeymapEntry; chords: { text: string; chord: Chord }[] }[]>();
function rowsFor(scope: string, platform: Platform) {
  const cacheKey = `${platform}:${scope}`;
  let rows = TABLE_BY_SCOPE.get(cacheKey);
  if (!rows) {
    rows = KEYMAP.filter((e) => e.when === scope).map((entry) => ({
      entry,
      chords: keysOf(entry, platform).map((text) => ({ text, chord: parseChord(text) })),
    }));
    TABLE_BY_SCOPE.set(cacheKey, rows);
  }
  return rows;
}

const PRINTABLE_NAMED = new Set(['Space', 'Delete', 'Backspace', 'Home', 'End', 'Tab']);

/** Whether a row's chord fires while the focus is in a text field. */
export function firesInTextField(entry: KeymapEntry, chord: Chord): boolean {
  if (entry.inTextField !== undefined) return entry.inTextField;
  if (chord.mods.has('Mod') || chord.mods.has('Ctrl') || chord.mods.has('Alt')) return true;
  return chord.key.length > 1 && !PRINTABLE_NAMED.has(chord.key);
}

/** Input types that take no typed text: a key pressed on them is a shortcut. */
const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image', 'hidden']);

/** Roles of elements that take typed text though they are none of the native fields. */
const TEXT_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

/** The parts of a DOM element the text-field rule reads (so it runs on plain objects in unit tests too). */
export interface ElementLike {
  tagName: string;
  type?: string;
  isContentEditable?: boolean;
  /** The EditContext API's context, set on elements that edit text without being a field (Monaco 0.57's `native-edit-context`). */
  editContext?: unknown;
  getAttribute(name: string): string | null;
  closest?(selector: string): unknown;
}

function isElementLike(target: unknown): target is ElementLike {
  return typeof target === 'object' && target !== null && typeof (target as ElementLike).tagName === 'string' && typeof (target as ElementLike).getAttribute === 'function';
}

/**
 * Whether `target` takes typed text, so a bare printable key pressed there is
 * text and never a shortcut: native fields (text inputs, text areas, selects),
 * content-editable elements, elements that edit through the EditContext API,
 * elements whose role says they take text, and anything focused inside a code
 * editor (Monaco types into a `native-edit-context` div, older versions into a
 * hidden text area; its find widget and suggestions take keys too).
 */
export function isTextField(target: EventTarget | ElementLike | null): boolean {
  if (!isElementLike(target)) return false;
  const tag = target.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !NON_TEXT_INPUTS.has((target.type ?? target.getAttribute('type') ?? 'text').toLowerCase());
  if (target.isContentEditable === true) return true;
  const editable = target.getAttribute('contenteditable');
  if (editable !== null && editable.toLowerCase() !== 'false') return true;
  if (target.editContext !== undefined && target.editContext !== null) return true;
  if (TEXT_ROLES.has(target.getAttribute('role') ?? '') && target.getAttribute('aria-readonly') !== 'true') return true;
  return typeof target.closest === 'function' && target.closest('.monaco-editor') != null;
}

/** Whether Enter or Space on `target` activates it (a button, a link, a checkbox...), so the keymap leaves those keys to it. */
export function isActivatable(target: EventTarget | ElementLike | null): boolean {
  if (!isElementLike(target)) return false;
  const tag = target.tagName.toUpperCase();
  if (tag === 'BUTTON' || tag === 'SUMMARY') return true;
  if (tag === 'A') return target.getAttribute('href') !== null;
  if (tag === 'INPUT') return ['checkbox', 'radio', 'button', 'submit', 'reset'].includes((target.type ?? target.getAttribute('type') ?? 'text').toLowerCase());
  return ['button', 'checkbox', 'radio', 'switch', 'menuitem', 'tab', 'link'].includes(target.getAttribute('role') ?? '');
}

function activatesControl(chord: Chord): boolean {
  return chord.mods.size === 0 && (chord.key === 'Enter' || chord.key === 'Space');
}

/** A command the walk found, with its handler and whether it can run. */
export interface AvailableCommand {
  entry: KeymapEntry;
  handler: CommandHandler;
  /** True, or why not. */
  enabled: true | string;
}

function enabledOf(handler: CommandHandler): true | string {
  try {
    return handler.enabled ? handler.enabled() : true;
  } catch (error) {
    return String(error);
  }
}

/** Every command with a handler on the walk from `start`, innermost scope first, each id once. */
export function availableCommands(start: Element | null): AvailableCommand[] {
  const seen = new Set<string>();
  const out: AvailableCommand[] = [];
  for (const stop of scopeChain(start)) {
    const handlers = handlersOf(stop.element);
    if (!handlers) continue;
    for (const entry of KEYMAP) {
      if (entry.when !== stop.scope || seen.has(entry.command)) continue;
      const get = handlers.get(entry.command);
      if (!get) continue;
      seen.add(entry.command);
      const handler = get();
      out.push({ entry, handler, enabled: enabledOf(handler) });
    }
  }
  return out;
}

/** Finds the command `event` means when the focus is at `start`, if any. */
export function resolveKey(event: KeyLike & { target: EventTarget | null }, start: Element | null, platform: Platform): AvailableCommand | undefined {
  const inText = isTextField(event.target);
  const onControl = isActivatable(event.target);
  for (const stop of scopeChain(start)) {
    const handlers = handlersOf(stop.element);
    if (!handlers) continue;
    for (const { entry, chords } of rowsFor(stop.scope, platform)) {
      const get = handlers.get(entry.command);
      if (!get) continue;
      const hit = chords.find(
        ({ chord }) => matchesChord(event, chord, platform) && (!inText || firesInTextField(entry, chord)) && !(onControl && activatesControl(chord)),
      );
      if (!hit) continue;
      const handler = get();
      return { entry, handler, enabled: enabledOf(handler) };
    }
  }
  return undefined;
}

/** Runs a command, reporting a thrown or rejected error through `onError`. */
export function runCommand(command: AvailableCommand, onError: (error: unknown) => void): void {
  if (command.enabled !== true) return;
  try {
    const result = command.handler.run();
    if (result && typeof (result as Promise<void>).catch === 'function') (result as Promise<void>).catch(onError);
  } catch (error) {
    onError(error);
  }
}

/** Options of {@link installKeyDispatcher}. */
export interface DispatcherOptions {
  platform: Platform;
  /** Where the walk starts when nothing inside the app has focus (the active tab's root). */
  fallback: () => Element | null;
  onError: (error: unknown) => void;
  /** Called with every command run, for "recently used" in the palette. */
  onRun?: (command: string) => void;
  /** Called when a chord names a command that cannot run now, with the reason. */
  onDisabled?: (entry: KeymapEntry, reason: string) => void;
}

/**
 * Listens for keys on `window` in the capture phase, before Monaco or a text
 * field sees them, and runs the command the focused scope gives the chord.
 * Returns the uninstall function.
 */
export function installKeyDispatcher(options: DispatcherOptions): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing || event.defaultPrevented) return;
    const active = document.activeElement;
    let start = active && active !== document.body ? active : options.fallback();
    // An open modal owns the keyboard: nothing behind it answers.
    const modal = document.querySelector('[aria-modal="true"]');
    if (modal && !(start && modal.contains(start))) start = modal;
    const hit = resolveKey(event, start, options.platform);
    if (!hit) return;
    event.preventDefault();
    event.stopPropagation();
    if (hit.enabled !== true) {
      options.onDisabled?.(hit.entry, hit.enabled);
      return;
    }
    options.onRun?.(hit.entry.command);
    runCommand(hit, options.onError);
  };
  window.addEventListener('keydown', onKeyDown, true);
  return () => window.removeEventListener('keydown', onKeyDown, true);
}

/**
 * Runs `command` as if its key were pressed with the focus at `start`: for
 * buttons and menu items that name a command instead of calling code directly.
 * Returns true, or the reason it did not run.
 */
export function executeCommand(command: string, start: Element | null, onError: (error: unknown) => void): true | string {
  const hit = availableCommands(start).find((c) => c.entry.command === command);
  if (!hit) return 'Not available here';
  if (hit.enabled !== true) return hit.enabled;
  runCommand(hit, onError);
  return true;
}
