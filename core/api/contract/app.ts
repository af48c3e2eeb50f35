/**
 * What a host serves, and the host-only methods.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import type { WorkbenchEvent } from './events';
import { empty, method } from './internal';
import type { WorkbenchMethod } from './methods';

/** What a host serves. */
export interface AppInfo {
  /** Skillbench's version. */
  version: string;
  /** Which shell the UI runs in. */
  host: 'electron' | 'browser' | 'direct';
  /** Methods this host serves (wired), sorted. */
  methods: WorkbenchMethod[];
  /** Events this host emits. */
  events: WorkbenchEvent[];
  /** The open workspace folder, when one is open. */
  workspace: string | null;
  /** The operating system, for key labels (`Cmd` vs `Ctrl`). */
  platform: 'darwin' | 'win32' | 'linux' | 'other';
}

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const appMethods = {
  'app.info': method<AppInfo>()(empty),
} as const;
