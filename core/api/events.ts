/**
 * The service's event hub: typed publish/subscribe of the contract's events.
 * Transports subscribe to everything and forward what their clients asked for.
 *
 * Isomorphic: no `node:` imports.
 */
import type { WorkbenchEvent, WorkbenchEvents } from './contract';

/** A listener of every event. */
export type AnyEventListener = <E extends WorkbenchEvent>(name: E, payload: WorkbenchEvents[E]) => void;

/** Typed publish/subscribe; a throwing listener never stops the others or the emitter. */
export class EventHub {
  private readonly listeners = new Set<AnyEventListener>();

  /** Calls `listener` with every event; returns the unsubscribe function. */
  subscribe(listener: AnyEventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Calls `listener` with the payloads of one event. */
  on<E extends WorkbenchEvent>(name: E, listener: (payload: WorkbenchEvents[E]) => void): () => void {
    return this.subscribe((event, payload) => {
      if ((event as WorkbenchEvent) === name) listener(payload as unknown as WorkbenchEvents[E]);
    });
  }

  /** Delivers an event to every listener. */
  emit<E extends WorkbenchEvent>(name: E, payload: WorkbenchEvents[E]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(name, payload);
      } catch {
        // A failing subscriber (a closed socket) must not break the emitter.
      }
    }
  }

  /** Number of subscribers, for tests of cleanup. */
  get size(): number {
    return this.listeners.size;
  }
}
