/**
 * `catalog.health` for the workbench: the report `skillbench catalog` prints,
 * built by the same {@link catalogReport}, over a namespace of a connection or
 * a bindings file of the open workspace, with an eval run of the host's runs
 * folder for the routing matrix.
 */
import { join } from 'node:path';
import type { EvalsHost } from '../core/api/evalsPort';
import type { Handler } from '../core/api/router';
import { WorkbenchError } from '../core/errors';
import { expectInside } from '../core/workspace/confine';
import { catalogReport } from './catalogHealth';
import { readBindingsFile } from './plan';

/** The `catalog.health` handler over one host; `runsDir` is the folder its eval runs are recorded in. */
export function catalogHealthHandler(host: EvalsHost, runsDir: () => string): Handler<'catalog.health'> {
  return async (params) => {
    let selection: { namespace: string } | { bindings: Awaited<ReturnType<typeof readBindingsFile>>; label: string };
    if (params.bindings !== undefined) {
      const ws = host.workspace();
      if (ws === null) throw new WorkbenchError('not_found', `no workspace is open to read ${params.bindings} from: open a folder first`, { details: { pointer: '/bindings', reason: 'no_workspace' } });
      // A link inside the workspace must not lead the read out of it.
      await expectInside(ws, join(ws, params.bindings), params.bindings);
      // Read without its size limit, as the CLI does: a list over maxBindings is measured and named like any other broken limit.
      selection = { bindings: await readBindingsFile(params.bindings, { cwd: ws, maxBindings: Number.MAX_SAFE_INTEGER }), label: params.bindings };
    } else {
      selection = { namespace: params.namespace! };
    }
    const run = params.run !== undefined ? { dir: join(runsDir(), params.run), shown: params.run } : undefined;
    return host.useStore(params.connection, (store, label) =>
      catalogReport({ registry: store, ...selection, source: label, ...(run && { run }), split: params.split }),
    );
  };
}
