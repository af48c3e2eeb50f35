/**
 * `skillbench get NS/NAME`: the published package (or one retained version) with
 * its ETag. The package JSON goes to stdout, a one-line header to stderr.
 */
import { parse, positiveInt } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJson, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { skillArg, withStore } from '../store';

const usage = `Usage: skillbench get NS/NAME [--from CONN] [--version N] [--json]

Prints the published package of NS/NAME, or retained version N. With --json the
output is {namespace, name, version, etag, package}.

  --from CONN   local:DIR, redis://..., http(s)://.../api/v1/skills
                (default: the local registry in the app-data folder)
  --version N   an exact retained version instead of the published one
  --json        print {namespace, name, version, etag, package} on stdout`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    version: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('expected exactly one NS/NAME');
  const id = skillArg(positionals[0]);
  const version = positiveInt(values.version, '--version');
  const json = values.json === true;
  return withStore(io, values.from, { command: 'get', json }, async (store) => {
    const rev = version === undefined ? await store.getPublished(id) : await store.getVersion(id, version);
    say(io, `${rev.namespace}/${rev.name} version ${rev.version}${rev.published ? ' (published)' : ''}, ETag ${rev.etag}, created ${rev.created_at}`);
    if (json) printJsonDocument(io, 'get', { namespace: rev.namespace, name: rev.name, version: rev.version, etag: rev.etag, package: rev.package });
    else printJson(io, rev.package);
    return EXIT.ok;
  });
}

/** The `get` command. */
export const command: Command = { summary: 'Read the published package (or a retained version) and its ETag', usage, run };
