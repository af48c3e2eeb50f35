/**
 * `skillbench check --from DIR --to CONN`: a read-only drift report between a
 * folder of package files and a store (the guide's `skills-check`). Opens the
 * store without creating anything: a local folder that holds no registry is
 * reported, never initialized.
 */
import { resolve } from 'node:path';
import { skillKey } from '../../core/package/types';
import { defaultConnection, openStore, redactConnection } from '../../core/store/connect';
import type { SkillStore } from '../../core/store/types';
import { compareWithStore, hasDrift, readLocalPackages, type DriftEntry, type LocalProblem } from '../../core/workspace/sync';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { formatFinding, reportFailure } from '../store';

const usage = `Usage: skillbench check [--from DIR] [--to CONN] [--json]

Compares the package files of DIR (skills/packages/<namespace>/<name>.json, or
<namespace>/<name>.json directly below DIR) with the skills published in CONN,
and changes nothing anywhere. Each package is equal, changed, or missing in
the store; skills of the same namespaces that only the store has are listed as
only in the store (sync never deletes them, so they are not drift).

  --from DIR   the folder of package files (default: the current folder)
  --to CONN    local:DIR, redis://..., http(s)://.../api/v1/skills
               (default: the local registry in the app-data folder)
  --json       print the report as JSON on stdout

Exit codes: 0 in sync; 1 drift (a package changed or missing in the store) or
an invalid package file; 5 CONN is a local folder without a registry; 6 the
store is unavailable or returned an invalid package or ETag.`;

const LABEL: Record<DriftEntry['status'], string> = {
  equal: 'equal',
  changed: 'changed',
  missing_remotely: 'missing in the store',
  only_remote: 'only in the store',
};

/** The problems of the folder, one located line each. */
export function reportProblems(io: CliIo, command: string, problems: LocalProblem[]): void {
  for (const p of problems) {
    say(io, `${p.path}: error ${p.code}: ${p.message}`);
    for (const f of p.findings ?? []) say(io, formatFinding(p.path, f));
  }
  if (problems.length > 0) say(io, `skillbench ${command}: ${problems.length} file${problems.length === 1 ? '' : 's'} of the folder cannot be used`);
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  if (values.from !== undefined && values.from.trim() === '') throw new UsageError('--from needs a folder');
  const json = values.json === true;
  const from = resolve(io.cwd, values.from ?? '.');
  const connection = values.to ?? defaultConnection(io.env);
  let store: SkillStore | undefined;
  try {
    store = await openStore(connection, { cwd: io.cwd, env: io.env, create: false });
    const local = await readLocalPackages(from, store.limits);
    const entries = await compareWithStore(store, local.packages);
    reportProblems(io, 'check', local.problems);
    for (const e of entries) {
      const where = e.remote ? ` (store v${e.remote.version})` : '';
      say(io, `${LABEL[e.status].padEnd(21)} ${skillKey(e.skill)}${where}`);
    }
    const count = (s: DriftEntry['status']) => entries.filter((e) => e.status === s).length;
    const drift = hasDrift(entries);
    say(
      io,
      `skillbench check: ${entries.length - count('only_remote')} package${entries.length - count('only_remote') === 1 ? '' : 's'}: ${count('equal')} equal, ${count('changed')} changed, ${count('missing_remotely')} missing in the store; ${count('only_remote')} only in the store. ${drift ? 'Drift: run skillbench sync to publish the changes.' : local.problems.length > 0 ? '' : 'In sync.'}`.trimEnd(),
    );
    if (json) {
      printJsonDocument(io, 'check', {
        from,
        to: redactConnection(connection),
        in_sync: !drift && local.problems.length === 0,
        counts: { equal: count('equal'), changed: count('changed'), missing_remotely: count('missing_remotely'), only_remote: count('only_remote'), problems: local.problems.length },
        packages: entries,
        problems: local.problems,
      });
    }
    return drift || local.problems.length > 0 ? EXIT.invalid : EXIT.ok;
  } catch (error) {
    return reportFailure(io, 'check', error, { json });
  } finally {
    await store?.close();
  }
}

/** The `check` command. */
export const command: Command = { summary: 'Compare a folder of packages with a store (read-only drift report)', usage, run };
