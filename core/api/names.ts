/**
 * The WorkbenchApi's names as plain data: every method, every event, and every
 * error code with its HTTP status. The contract (`contract.ts`) gives the
 * methods their parameter schemas and the events their payloads; this module
 * holds only the names, so code that routes or checks a name without parsing
 * parameters (the Electron preload, the renderer's client) does not bundle zod.
 *
 * `contract.ts` fails to compile when its methods or events differ from the
 * lists here, so the two cannot drift apart.
 *
 * Isomorphic: no `node:` imports; no package dependencies.
 */
import { STORE_ERROR_STATUS } from '../store/errors';

/** Every method name of the contract, sorted. */
export const METHOD_NAMES = Object.freeze([
  'advisor.analyze',
  'app.info',
  'catalog.health',
  'catalog.page',
  'connections.close',
  'connections.export',
  'connections.import',
  'connections.list',
  'connections.open',
  'connections.remove',
  'connections.save',
  'connections.test',
  'delete.preview',
  'delete.versions',
  'diff.packages',
  'drafts.discard',
  'drafts.get',
  'drafts.list',
  'drafts.openFile',
  'drafts.save',
  'evals.cells',
  'evals.export',
  'evals.get',
  'evals.list',
  'evals.plan',
  'evals.resume',
  'evals.start',
  'evals.stop',
  'evals.trace',
  'host.pickFolder',
  'interop.export',
  'interop.import',
  'merge.packages',
  'models.check',
  'models.list',
  'optimize.get',
  'optimize.start',
  'optimize.stop',
  'packages.get',
  'packages.open',
  'packages.schema',
  'publish.package',
  'reviews.approve',
  'reviews.comment',
  'reviews.create',
  'reviews.get',
  'reviews.list',
  'reviews.publish',
  'reviews.reject',
  'reviews.requestChanges',
  'reviews.signer',
  'validate.package',
  'versions.get',
  'versions.list',
  'workspace.close',
  'workspace.list',
  'workspace.open',
  'workspace.projectConfig',
  'workspace.read',
  'workspace.save',
] as const);

/** A method name (the contract's `WorkbenchMethod` is the same union). */
export type WorkbenchMethodName = (typeof METHOD_NAMES)[number];

/** Every event name of the contract, sorted. */
export const EVENT_NAMES = Object.freeze([
  'connections.changed',
  'drafts.changed',
  'evals.finished',
  'evals.progressed',
  'evals.started',
  'menu.selected',
  'optimize.finished',
  'optimize.progressed',
  'reviews.changed',
  'store.changed',
  'workspace.changed',
] as const);

/** An event name (the contract's `WorkbenchEvent` is the same union). */
export type WorkbenchEventName = (typeof EVENT_NAMES)[number];

const METHOD_SET: ReadonlySet<string> = new Set(METHOD_NAMES);
const EVENT_SET: ReadonlySet<string> = new Set(EVENT_NAMES);

/** True when `name` is a method of the contract. */
export function isWorkbenchMethod(name: unknown): name is WorkbenchMethodName {
  return typeof name === 'string' && METHOD_SET.has(name);
}

/** True when `name` is an event of the contract. */
export function isWorkbenchEvent(name: unknown): name is WorkbenchEventName {
  return typeof name === 'string' && EVENT_SET.has(name);
}

/**
 * Error codes and the HTTP status each maps to: the store taxonomy (guide
 * section 11, from `STORE_ERROR_STATUS`), then the workbench's own.
 */
export const ERROR_STATUS = {
  ...STORE_ERROR_STATUS,
  /** A model could not answer (every attempt of the chain failed). */
  model_unavailable: 503,
  /** The saved connection secrets cannot be decrypted (missing or wrong key). */
  secrets_locked: 423,
  /** The operation was stopped by the user. */
  cancelled: 499,
  /** The host does not serve this method (not wired here). */
  not_implemented: 501,
  /** A bug: the message asks for a report; details never carry a stack. */
  internal: 500,
} as const;

/** A stable error code. */
export type WorkbenchErrorCode = keyof typeof ERROR_STATUS;
