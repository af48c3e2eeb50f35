/**
 * The transport inside the desktop shell: calls and events through the
 * preload's bridge (`window.skillbench`), which carries them over Electron IPC.
 */
import type { WorkbenchBridge } from '../../core/api/bridge';
import type { Transport } from '../../core/api/client';
import type { Envelope } from '../../core/api/contract';

/** A transport over the preload's bridge. */
export function ipcTransport(bridge: WorkbenchBridge): Transport {
  const offs = new Set<() => void>();
  return {
    async call(method, params) {
      try {
        return await bridge.invoke(method, params);
      } catch (error) {
        // The bridge rejects only when the shell itself fails (a closed window, a refused frame).
        return { ok: false, error: { code: 'unavailable', status: 503, message: `the desktop shell did not answer: ${error instanceof Error ? error.message : String(error)}` } } satisfies Envelope;
      }
    },
    subscribe(event, listener) {
      const off = bridge.on(event, listener);
      offs.add(off);
      return () => {
        off();
        offs.delete(off);
      };
    },
    close() {
      for (const off of offs) off();
      offs.clear();
    },
  };
}
