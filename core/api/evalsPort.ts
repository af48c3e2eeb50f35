/**
 * The port through which a host serves the `evals.*` methods. Core never
 * imports the eval engine: a composition root (`skillbench serve`, the
 * Electron main process, tests) builds the engine's implementation
 * (`evals/port.ts`) and hands it to `createWorkbenchService`, which gives it
 * access to the host's stores, workspace, drafts and event hub.
 *
 * Node-only in practice (the service is), though nothing here imports node.
 */
import type { SkillId } from '../package/types';
import type { SkillStore } from '../store/types';
import type { WorkbenchEvent, WorkbenchEvents, WorkbenchMethod } from './contract';
import type { Handler } from './router';

/**
 * The methods an evals port serves: evaluations, the description optimizer,
 * and catalog health (which reads the port's eval runs for its routing matrix).
 */
export type EvalsMethod = Extract<WorkbenchMethod, `evals.${string}` | `optimize.${string}` | 'catalog.health'>;

/** A draft as the evals port reads it: its text, identity and the workspace file it was opened from. */
export interface EvalsDraft {
  skill: SkillId;
  text: string;
  /** Workspace-relative path of the file the draft edits, when it edits one. */
  path?: string;
}

/** What the service lends the port. */
export interface EvalsHost {
  /** The app-data folder. */
  dataDir: string;
  /** Environment: model keys, aliases and base URLs. */
  env: Record<string, string | undefined>;
  /** Runs `fn` with the open store of a connection and its secret-free description. */
  useStore<T>(connection: string, fn: (store: SkillStore, label: string) => Promise<T>): Promise<T>;
  /** The open workspace folder (absolute), or null. */
  workspace(): string | null;
  /** A draft by id; undefined when there is none. Absent when the host keeps no drafts. */
  draft?(id: string): Promise<EvalsDraft | undefined>;
  /** Emits an event to every subscriber. */
  emit<E extends WorkbenchEvent>(name: E, payload: WorkbenchEvents[E]): void;
  /** The host's redactor: every cell and error the port records or reports passes it. */
  redact(text: string): string;
}

/** An implementation of the `evals.*` methods. */
export interface EvalsPort {
  /** The handlers, bound to one host. Called once by the service. */
  handlers(host: EvalsHost): { [M in EvalsMethod]?: Handler<M> };
  /** The folder the port records runs in, for an app-data folder `dataDir` (reviews read their evidence there). */
  runsDir(dataDir: string): string;
  /** Stops every live run (cells in flight are abandoned, recorded cells kept) and waits for them. */
  close(): Promise<void>;
}
