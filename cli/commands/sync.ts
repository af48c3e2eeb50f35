/**
 * `skillbench sync --from DIR --to CONN`: the folder as desired state (the
 * guide's `skills-sync`). Publishes changed and new packages conditionally,
 * skips equivalent ones, never deletes, reads every publication back, and
 * stops at the first store that cannot return a valid package and ETag.
 */
import { resolve } from 'node:path';
import { WorkbenchError } from '../../core/errors';
import { skillKey } from '../../core/package/types';
import { syncToStore, readLocalPackages, type SyncEntry } from '../../core/workspace/sync';
import { parse } from '../args';
import { EXIT, UsageError, exitCodeFor } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { connectionLabel, openCliStore } from '../store';
import { reportProblems } from './check';
import type { SkillStore } from '../../core/store/types';

const usage = `Usage: skillbench sync [--from DIR] [--to CONN] [--json]

Makes CONN publish what the package files of DIR say
(skills/packages/<namespace>/<name>.json, or <namespace>/<name>.json directly
below DIR). A package whose content equals the published revision is skipped
(change_reason alone is not a change); a changed one becomes the next
immutable revision, published with If-Match the ETag just read; a new one is
created. Nothing is ever deleted. Each publication is read back and must be
the reported version and ETag with the content sent. Any invalid file stops
the sync before anything is published.

  --from DIR   the folder of package files (default: the current folder)
  --to CONN    local:DIR, redis://..., http(s)://.../api/v1/skills
               (default: the local registry in the app-data folder)
  --json       print what was done as JSON on stdout

Exit codes: 0 the store now matches the folder; 1 an invalid package file
(nothing published); 3 someone published meanwhile (412), run again; 6 the
store is unavailable or did not return a valid package and ETag: repair the
store and run sync again.`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  if (values.from !== undefined && values.from.trim() === '') throw new UsageError('--from needs a folder');
  const json = values.json === true;
  const from = resolve(io.cwd, values.from ?? '.');
  const done: SyncEntry[] = [];
  let store: SkillStore | undefined;
  const report = (extra: Record<string, unknown>) => {
    if (json) printJsonDocument(io, 'sync', { from, to: connectionLabel(values.to, io), packages: done, ...extra });
  };
  try {
    store = await openCliStore(values.to, io, { create: true });
    const local = await readLocalPackages(from, store.limits);
    if (local.problems.length > 0) {
      reportProblems(io, 'sync', local.problems);
      say(io, 'skillbench sync: nothing was published: fix these files, then run sync again');
      report({ in_sync: false, problems: local.problems });
      return EXIT.invalid;
    }
    await syncToStore(store, local.packages, {
      onEntry: (entry) => {
        done.push(entry);
        const what = entry.action === 'skipped' ? `unchanged at v${entry.version}` : `${entry.action} v${entry.version}, ETag ${entry.etag}, read back`;
        say(io, `${entry.action.padEnd(9)} ${skillKey(entry.skill)} ${what}`);
      },
    });
    const count = (a: SyncEntry['action']) => done.filter((e) => e.action === a).length;
    say(io, `skillbench sync: ${done.length} package${done.length === 1 ? '' : 's'}: ${count('created')} created, ${count('published')} published, ${count('skipped')} unchanged`);
    report({ in_sync: true, problems: [] });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    say(io, `skillbench sync: ${message}`);
    if (done.length > 0) say(io, `skillbench sync: stopped after ${done.length} package${done.length === 1 ? '' : 's'}; those stay as reported above`);
    report({ in_sync: false, error: error instanceof WorkbenchError ? error.toJSON() : { code: 'unavailable', message } });
    return exitCodeFor(error);
  } finally {
    await store?.close();
  }
}

/** The `sync` command. */
export const command: Command = { summary: 'Publish a folder of packages to a store (changed ones only, verified, never deletes)', usage, run };
