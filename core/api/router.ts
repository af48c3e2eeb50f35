/**
 * The one router every transport calls: it checks the method name against
 * the contract, parses the parameters with the method's schema (a bad payload
 * never reaches a handler), calls the handler and returns an {@link Envelope}:
 * results and failures both as data. Transports only move envelopes and events.
 *
 * Isomorphic: no `node:` imports.
 */
import type { z } from 'zod';
import { WorkbenchError } from '../errors';
import {
  EVENT_NAMES,
  METHODS,
  isWorkbenchMethod,
  type Envelope,
  type WorkbenchEvent,
  type WorkbenchEvents,
  type WorkbenchMethod,
  type WorkbenchParsedParams,
  type WorkbenchResults,
} from './contract';
import { toErrorData } from './errors';
import type { AnyEventListener } from './events';

/** Which transport a call arrived on. */
export type TransportKind = 'direct' | 'http' | 'ws' | 'ipc';

/** What a handler knows about its call. */
export interface CallContext {
  transport: TransportKind;
}

/** The implementation of one method: parsed parameters in, result out; failures are thrown `WorkbenchError`s. */
export type Handler<M extends WorkbenchMethod> = (params: WorkbenchParsedParams[M], context: CallContext) => Promise<WorkbenchResults[M]>;

/** The methods a host implements. A method without a handler is not served. */
export type Handlers = { [M in WorkbenchMethod]?: Handler<M> };

/** What a router serves: handlers and an event source. */
export interface RouterSource {
  handlers: Handlers;
  /** Subscribes to every event of the host. */
  subscribe(listener: AnyEventListener): () => void;
}

/** Options of {@link Router}. */
export interface RouterOptions {
  /** Removes secrets from anything that crosses (messages, details). */
  redact?: (text: string) => string;
  /** Told about failures that are bugs (non-`WorkbenchError`s), for the host's log. */
  onInternalError?: (method: string, error: unknown) => void;
}

/** A JSON Pointer of a zod issue path. */
function pointerOf(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A located problem of a payload. */
interface Located {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * The issues of a payload, with each union that no alternative matched
 * replaced by the issues of the alternative that got furthest (its deepest
 * issue path): `{profile: {...}}` against `{name} | {profile, secrets}`
 * reports the profile's bad field, not "Invalid input" at the root.
 */
function locatedIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): Located[] {
  return issues.flatMap((issue): Located[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [{ path, message: issue.message }];
    const depth = (branch: readonly z.core.$ZodIssue[]) => Math.max(...branch.map((i) => i.path.length));
    const closest = issue.errors.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
    return locatedIssues(closest, path);
  });
}

/** The 400 of a payload that does not match its method's schema, naming each problem's JSON Pointer. */
export function invalidParams(method: string, error: z.ZodError): WorkbenchError {
  const located = locatedIssues(error.issues);
  const issues = located.slice(0, 5).map((i) => `${pointerOf(i.path) || '/'}: ${i.message}`);
  const more = located.length > 5 ? ` (and ${located.length - 5} more)` : '';
  const first = located[0];
  return new WorkbenchError('invalid_request', `invalid parameters of ${method}: ${issues.join('; ')}${more}`, {
    details: { pointer: first ? pointerOf(first.path) : '', pointers: located.map((i) => pointerOf(i.path)) },
  });
}

/** Routes calls to handlers and events to transports. */
export class Router {
  private readonly served: readonly WorkbenchMethod[];

  constructor(
    private readonly source: RouterSource,
    private readonly options: RouterOptions = {},
  ) {
    this.served = (Object.keys(source.handlers) as string[]).filter(isWorkbenchMethod).sort();
  }

  /** The methods served, sorted. */
  get methods(): readonly WorkbenchMethod[] {
    return this.served;
  }

  /** The events a client may subscribe to. */
  get events(): readonly WorkbenchEvent[] {
    return EVENT_NAMES;
  }

  /** Calls `method` with `params` (anything: it is parsed here) and never throws. */
  async call(method: unknown, params: unknown, context: CallContext): Promise<Envelope> {
    const name = typeof method === 'string' ? method : String(method);
    try {
      if (!isWorkbenchMethod(method)) {
        throw new WorkbenchError('not_implemented', `unknown method '${name.slice(0, 100)}': it is not part of the WorkbenchApi`);
      }
      const handler = this.source.handlers[method] as Handler<WorkbenchMethod> | undefined;
      if (!handler) throw new WorkbenchError('not_implemented', `${method} is not available in this host`);
      const parsed = METHODS[method].params.safeParse(params ?? {});
      if (!parsed.success) throw invalidParams(method, parsed.error);
      const result = await handler(parsed.data as never, context);
      return { ok: true, result };
    } catch (error) {
      if (!(error instanceof WorkbenchError)) this.options.onInternalError?.(name, error);
      return { ok: false, error: toErrorData(error, this.options.redact ? { redact: this.options.redact } : {}) };
    }
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: AnyEventListener): () => void {
    return this.source.subscribe(listener);
  }

  /** Subscribes to one event. */
  on<E extends WorkbenchEvent>(name: E, listener: (payload: WorkbenchEvents[E]) => void): () => void {
    return this.source.subscribe((event, payload) => {
      if ((event as WorkbenchEvent) === name) listener(payload as unknown as WorkbenchEvents[E]);
    });
  }
}
