/**
 * The workbench window's bounds and maximized flag, kept in a small JSON file
 * in the shell's user-data folder so the next launch opens where the last one
 * closed. Reading is bounded and never creates anything: a missing, torn or
 * foreign file gives the defaults. Writing is atomic (a temporary file in the
 * same folder, flushed, then renamed over the old one; core/fs/atomic.ts), so a crash mid-save
 * leaves the previous state or the new one, never half a file.
 *
 * Saved bounds are fitted to the displays present at launch: a window last seen
 * on a monitor that is gone opens centred on the primary one instead.
 *
 * Node-only; no Electron import (the main process passes the displays in).
 */
import { z } from 'zod';
import { writeFileAtomic } from '../core/fs/atomic';
import { readFileBounded } from '../core/workspace/read';

/** File name of the state in the user-data folder. */
export const WINDOW_STATE_FILE = 'window-state.json';

/** Largest state file read (it is a few dozen bytes when written by us). */
const MAX_BYTES = 64 * 1024;

/** A rectangle in screen coordinates (Electron's `Rectangle`). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What is restored: a size, a position when it is still on screen, and the maximized flag. */
export interface WindowState {
  width: number;
  height: number;
  x?: number;
  y?: number;
  maximized: boolean;
}

/** The first launch's window. */
export const DEFAULT_WINDOW_STATE: Readonly<WindowState> = Object.freeze({ width: 1280, height: 820, maximized: false });

/** Smallest window the workbench lays out in. */
export const MIN_SIZE = Object.freeze({ width: 720, height: 480 });

const coordinate = z.number().int().min(-100_000).max(100_000);
const size = z.number().int().min(1).max(100_000);
const stateSchema = z.object({
  version: z.literal(1),
  width: size,
  height: size,
  x: coordinate.optional(),
  y: coordinate.optional(),
  maximized: z.boolean(),
});

/** Reads the saved state of `file`; the defaults when it is missing, unreadable or not ours. */
export async function loadWindowState(file: string): Promise<WindowState> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(await readFileBounded(file, MAX_BYTES)));
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
  const result = stateSchema.safeParse(parsed);
  if (!result.success) return { ...DEFAULT_WINDOW_STATE };
  const { width, height, x, y, maximized } = result.data;
  return { width, height, maximized, ...(x !== undefined && y !== undefined && { x, y }) };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Fits `state` to the work areas of the displays present now (the primary
 * first): the size is clamped to the largest display and to the minimum, and
 * the position is kept only when the window's title area lands on a display.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rect[]): WindowState {
  if (workAreas.length === 0) return { ...state };
  const maxW = Math.max(...workAreas.map((a) => a.width));
  const maxH = Math.max(...workAreas.map((a) => a.height));
  const width = Math.max(Math.min(state.width, maxW), Math.min(MIN_SIZE.width, maxW));
  const height = Math.max(Math.min(state.height, maxH), Math.min(MIN_SIZE.height, maxH));
  const out: WindowState = { width, height, maximized: state.maximized };
  if (state.x !== undefined && state.y !== undefined) {
    // The strip a person drags the window by must be reachable.
    const titleBar: Rect = { x: state.x, y: state.y, width, height: Math.min(40, height) };
    const home = workAreas.find((area) => overlap(titleBar, area) >= Math.min(100, width) * titleBar.height);
    if (home) {
      out.x = Math.min(Math.max(state.x, home.x), home.x + Math.max(0, home.width - width));
      out.y = Math.min(Math.max(state.y, home.y), home.y + Math.max(0, home.height - height));
    }
  }
  return out;
}

/** Writes `state` to `file` atomically (creating its folder if needed). */
export async function saveWindowState(file: string, state: WindowState): Promise<void> {
  const record = { version: 1 as const, width: Math.round(state.width), height: Math.round(state.height), maximized: state.maximized, ...(state.x !== undefined && state.y !== undefined && { x: Math.round(state.x), y: Math.round(state.y) }) };
  const text = `${JSON.stringify(stateSchema.parse(record), null, 2)}\n`;
  await writeFileAtomic(file, text, { mode: 0o600, mkdirs: true });
}

/** The state to save for a window: its normal (unmaximized) bounds and whether it is maximized. */
export function stateOf(window: { getNormalBounds(): Rect; isMaximized(): boolean }): WindowState {
  const b = window.getNormalBounds();
  return { x: b.x, y: b.y, width: b.width, height: b.height, maximized: window.isMaximized() };
}
