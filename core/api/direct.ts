/**
 * The direct transport: calls go straight to the router in the same process,
 * with parameters and results copied as structured data so nothing shared or
 * non-serializable slips through a boundary the other transports would reject.
 *
 * Isomorphic: no `node:` imports.
 */
import type { Transport } from './client';
import type { WorkbenchEvent, WorkbenchEvents, WorkbenchMethod } from './contract';
import type { Router } from './router';

/** A transport calling `router` in process. */
export function directTransport(router: Router): Transport {
  const unsubscribers = new Set<() => void>();
  return {
    async call(method: WorkbenchMethod, params: unknown) {
      return structuredClone(await router.call(method, structuredClone(params), { transport: 'direct' }));
    },
    subscribe<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void) {
      const off = router.on(event, (payload) => listener(structuredClone(payload)));
      unsubscribers.add(off);
      return () => {
        off();
        unsubscribers.delete(off);
      };
    },
    close() {
      for (const off of unsubscribers) off();
      unsubscribers.clear();
    },
  };
}
