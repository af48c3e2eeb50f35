/**
 * `skillbench delete NS/NAME`: guarded deletion of one old version or an inclusive
 * range. Published and published−1 are protected; a repeat is a no-op.
 */
import { parse, positiveInt, positiveIntRange } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { etagArg, skillArg, withStore } from '../store';

const usage = `Usage: skillbench delete NS/NAME (--version N | --range FROM-TO) --if-match ETAG --reason TEXT
                        [--from CONN] [--json]

Deletes retained old revisions. The published revision and its predecessor are
protected; the range is atomic (all or nothing); numbers are never reused.

  --from CONN      local:DIR, redis://..., http(s)://.../api/v1/skills
                   (default: the local registry in the app-data folder)
  --version N      one version
  --range FROM-TO  an inclusive range (at most 100 versions by default)
  --if-match ETAG  the skill's current ETag (skillbench get prints it)
  --reason TEXT    the audit reason
  --json           print the result as JSON on stdout`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    version: { type: 'string' },
    range: { type: 'string' },
    'if-match': { type: 'string' },
    reason: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('expected exactly one NS/NAME');
  const id = skillArg(positionals[0]);
  if ((values.version === undefined) === (values.range === undefined)) throw new UsageError('give exactly one of --version or --range');
  const single = positiveInt(values.version, '--version');
  const range = single !== undefined ? { from: single, to: single } : positiveIntRange(values.range ?? '', '--range');
  const json = values.json === true;
  const ifMatch = etagArg(values['if-match']);
  return withStore(io, values.from, { command: 'delete', json, delete: true }, async (store) => {
    const request: Parameters<typeof store.deleteVersions>[0] = { id, ...range };
    if (ifMatch !== undefined) request.ifMatch = ifMatch;
    if (values.reason !== undefined) request.reason = values.reason;
    const result = await store.deleteVersions(request);
    const outcome = result.deleted.length > 0 ? 'deleted' : 'noop';
    for (const w of result.warnings) say(io, `skillbench delete: warning ${w.code}: ${w.message}`);
    say(
      io,
      outcome === 'deleted'
        ? `skillbench delete: deleted ${id.namespace}/${id.name} version${result.deleted.length === 1 ? '' : 's'} ${result.deleted.join(', ')}`
        : `skillbench delete: nothing to delete, already deleted: ${result.already_deleted.join(', ')}`,
    );
    if (json) {
      printJsonDocument(io, 'delete', {
        namespace: result.namespace,
        name: result.name,
        outcome,
        deleted: result.deleted,
        already_deleted: result.already_deleted,
        etag: result.etag,
        audit_recorded: result.audit_recorded,
        warnings: result.warnings,
      });
    }
    return EXIT.ok;
  });
}

/** The `delete` command. */
export const command: Command = { summary: 'Delete old revisions (guarded, atomic, audited)', usage, run };
