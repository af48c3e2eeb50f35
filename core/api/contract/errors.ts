/**
 * Failures as they cross the API: one error shape for every transport.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import type { Finding, SkillPackage } from '../../package/types';
import type { WorkbenchErrorCode } from '../names';
import type { PackageRevision } from './packages';

export { EVENT_NAMES, METHOD_NAMES, isWorkbenchEvent, isWorkbenchMethod } from '../names';
// The error codes live with the method and event names in `names.ts`, which
// code that must not bundle zod (the preload, the renderer's client) imports.
export { ERROR_STATUS, type WorkbenchErrorCode } from '../names';

/** What the user must reconcile after a 412 on publish: a three-way merge's inputs. */
export interface PublishConflict {
  /** The revision the draft was based on; null when it was a create, or the base is no longer retained. */
  base: PackageRevision | null;
  /** The currently published revision (what someone else published meanwhile). */
  theirs: PackageRevision;
  /** The package the user tried to publish (normalized), and the text as sent. */
  mine: { package: SkillPackage | null; text: string };
}

/**
 * A failure, as data. `status` is the HTTP-equivalent of `code`. Location fields
 * are present where one applies: `pointer` (RFC 6901) into the document at
 * fault, `line`/`column` (1-based) in its text, `file` for a workspace file.
 */
export interface WorkbenchErrorData {
  /** One of {@link WorkbenchErrorCode}; a newer host may send a code this build does not know. */
  code: WorkbenchErrorCode | (string & Record<never, never>);
  message: string;
  status: number;
  pointer?: string;
  line?: number;
  column?: number;
  file?: string;
  /** Validation findings of a 422 (errors first, then warnings), each located. */
  findings?: Finding[];
  /** Present on a 412 of `publish.package` / `reviews.publish`. */
  conflict?: PublishConflict;
  /** Extra structured data (`current_etag`, `reason`, ...). Never a secret or a stack. */
  details?: Record<string, unknown>;
}

/** The result of one call as it crosses a transport. */
export type Envelope<T = unknown> = { ok: true; result: T } | { ok: false; error: WorkbenchErrorData };
