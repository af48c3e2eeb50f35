/**
 * `skillbench list`: the body-free catalog, filtered by namespace, domain and tag.
 */
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { withStore } from '../store';
import type { MetadataFilter } from '../../core/store/types';

const usage = `Usage: skillbench list [--from CONN] [--namespace NS] [--domain D] [--tag T] [--json]

Lists published skills sorted by namespace and name. Filters are exact and combine.

  --from CONN     local:DIR, redis://..., http(s)://.../api/v1/skills
                  (default: the local registry in the app-data folder)
  --namespace NS  only this namespace
  --domain D      only skills with this domain
  --tag T         only skills with this tag
  --json          print {skills: [...]} on stdout`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    namespace: { type: 'string' },
    domain: { type: 'string' },
    tag: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const json = values.json === true;
  const filter: MetadataFilter = {};
  if (values.namespace !== undefined) filter.namespace = values.namespace;
  if (values.domain !== undefined) filter.domain = values.domain;
  if (values.tag !== undefined) filter.tag = values.tag;
  return withStore(io, values.from, { command: 'list', json }, async (store) => {
    const skills = await store.listMetadata(filter);
    if (json) printJsonDocument(io, 'list', { skills });
    else {
      for (const s of skills) say(io, `${`${s.namespace}/${s.name}`.padEnd(40)} v${String(s.version).padEnd(5)} ${s.display_name}`);
      say(io, `${skills.length} skill${skills.length === 1 ? '' : 's'} in ${store.description}`);
    }
    return EXIT.ok;
  });
}

/** The `list` command. */
export const command: Command = { summary: 'List published skills (body-free), with filters', usage, run };
