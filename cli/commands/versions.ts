/**
 * `skillbench versions NS/NAME`: body-free history, newest first, with tombstones.
 */
import { parse, positiveInt } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { skillArg, withStore } from '../store';

const usage = `Usage: skillbench versions NS/NAME [--from CONN] [--before N] [--limit N] [--json]

Lists the history of NS/NAME newest first, deleted revisions included as tombstones.
Pass the printed next_before as --before to page toward older versions.

  --from CONN   local:DIR, redis://..., http(s)://.../api/v1/skills
                (default: the local registry in the app-data folder)
  --before N    only versions older than N
  --limit N     page size, 1..100 (default 20)
  --json        print {versions, next_before} on stdout`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    before: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('expected exactly one NS/NAME');
  const id = skillArg(positionals[0]);
  const before = positiveInt(values.before, '--before');
  const limit = positiveInt(values.limit, '--limit');
  const json = values.json === true;
  return withStore(io, values.from, { command: 'versions', json }, async (store) => {
    const query: { before?: number; limit?: number } = {};
    if (before !== undefined) query.before = before;
    if (limit !== undefined) query.limit = limit;
    const page = await store.listVersions(id, query);
    if (json) {
      // The whole record the store returns (deleted_at, protection, ...), as the HTTP API does.
      printJsonDocument(io, 'versions', { versions: page.versions, next_before: page.next_before });
    } else {
      for (const v of page.versions) {
        const mark = v.protection === 'published' ? ' published' : v.protection === 'protected' ? ' protected' : '';
        say(io, `${String(v.version).padStart(5)}  ${v.status.padEnd(9)} ${v.created_at}${mark}  ${v.change_reason}`);
      }
      if (page.next_before !== null) say(io, `more: --before ${page.next_before}`);
    }
    return EXIT.ok;
  });
}

/** The `versions` command. */
export const command: Command = { summary: 'List body-free version history, newest first', usage, run };
