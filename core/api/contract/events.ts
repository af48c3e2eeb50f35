/**
 * Every event of the WorkbenchApi and its payload.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import type { SkillId } from '../../package/types';
import type { WorkbenchEventName } from '../names';
import type { ConnectionState } from './connections';
import type { EvalCell, EvalModelProgress, EvalProgress, EvalRunView, EvalSummary } from './evals';
import type { AssertTrue, SameUnion } from './internal';
import type { CandidateReport, OptimizeProgress, OptimizeRunView } from './optimize';
import type { ReviewStatus } from './reviews';
import type { DraftView } from './workspace';

/** Every event and its payload. */
export interface WorkbenchEvents {
  /** A profile was saved, removed or imported, or a connection's live state changed. */
  'connections.changed': { kind: 'saved' | 'removed' | 'imported' | 'state'; name?: string; state?: ConnectionState };
  /** Files of the open workspace were added, changed or removed on disk (by anyone). */
  'workspace.changed': {
    root: string;
    changes: { kind: 'added' | 'changed' | 'removed'; path: string; skill?: SkillId; hash?: string }[];
  };
  /** A draft was autosaved, discarded, or its base moved (conflict). */
  'drafts.changed': { kind: 'saved' | 'discarded' | 'conflict' | 'rebased'; id: string; draft?: DraftView };
  /** A run started or resumed. */
  'evals.started': { run: EvalRunView };
  /**
   * A run advanced: counters per model and the cells recorded since the last
   * event (at most a few events a second, however fast cells land).
   */
  'evals.progressed': { run: string; progress: EvalProgress; models: EvalModelProgress[]; cells: EvalCell[] };
  /** A run ended: complete, stopped (incomplete) or failed. */
  'evals.finished': { run: EvalRunView; summary: EvalSummary | null };
  /** An optimizer run advanced: a phase started, cells were recorded, candidates were proposed or scored. */
  'optimize.progressed': { run: string; progress: OptimizeProgress; candidates?: CandidateReport[] };
  /** An optimizer run ended: finished with a verdict, stopped, or failed. */
  'optimize.finished': { run: OptimizeRunView };
  /** A publication request was created, arrived on disk, or changed state (status null: it was removed or cannot be read). */
  'reviews.changed': { id: string; status: ReviewStatus | null };
  /**
   * What a connection's store holds changed: this session published or deleted
   * versions, or a watched recheck (`connections.open` with `watch`) found the
   * catalog changed by another writer (a sync, the CLI, another workbench).
   * Without `skill`, anything of the connection may have changed.
   */
  'store.changed': StoreChange;
  /**
   * The desktop shell's native menu chose a command of the UI's keymap table
   * (its `command` id); the page runs it as if its key had been pressed.
   */
  'menu.selected': { command: string };
}

/** Every event name. */
export type WorkbenchEvent = keyof WorkbenchEvents;

/** One change of a store, as `store.changed` carries it. */
export interface StoreChange {
  connection: string;
  /** `published` and `deleted` by this session; `changed` when a recheck saw another writer's change. */
  kind: 'published' | 'deleted' | 'changed';
  skill?: SkillId;
  /** The version now published (`published`, `changed`), absent when the skill left the catalog. */
  version?: number;
  /** The versions that became tombstones (`deleted`). */
  versions?: number[];
  /** Who made the change, when this session made it. */
  actor?: string;
  /** When the change was seen (ISO-8601). */
  at: string;
}

// `names.ts` lists the same events without their payloads: an event added here and not there fails to compile.
type _EventNamesInStep = AssertTrue<SameUnion<WorkbenchEvent, WorkbenchEventName>>;

/** A listener of one event. */
export type EventListener<E extends WorkbenchEvent> = (payload: WorkbenchEvents[E]) => void;

