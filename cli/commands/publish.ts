/**
 * `skillbench publish FILE`: a conditional publication, like the Registry Viewer's
 * PUT. Without --create or --if-match it reads the current ETag first (creating
 * when the skill does not exist yet).
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { publishOutcome, publishOutcomeDocument, publishOutcomeLine } from '../../core/api/publishOutcome';
import { publishConditional, type PublishBase } from '../../core/store/publication';
import { WorkbenchError } from '../../core/errors';
import { identityFromPath } from '../../core/workspace/identity';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from '../../core/workspace/read';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { etagArg, formatFinding, withStore } from '../store';

const usage = `Usage: skillbench publish FILE [--to CONN] [--create | --if-match ETAG]
                         [--idempotency-key KEY] [--namespace NS --name NAME] [--json]

Publishes the package in FILE as the next revision of its skill. The identity comes
from the path .../<namespace>/<name>.json unless --namespace and --name are given.
Without --create or --if-match the current ETag is read first (create if absent).
A generated Idempotency-Key is printed on stderr; pass it again to retry safely.

  --to CONN              local:DIR, redis://..., http(s)://.../api/v1/skills
                         (default: the local registry in the app-data folder)
  --create               fail unless the skill is new (If-None-Match: *)
  --if-match ETAG        fail unless ETAG is the skill's current ETag
  --idempotency-key KEY  reuse the key of an earlier attempt
  --json                 print the result as JSON on stdout`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    to: { type: 'string' },
    create: { type: 'boolean' },
    'if-match': { type: 'string' },
    'idempotency-key': { type: 'string' },
    namespace: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  if (values.create && values['if-match'] !== undefined) throw new UsageError('--create and --if-match exclude each other');
  if ((values.namespace === undefined) !== (values.name === undefined)) throw new UsageError('--namespace and --name go together');
  const file = positionals[0] ?? '';
  const path = resolve(io.cwd, file);
  const fromPath = identityFromPath(path).id;
  const id = { namespace: values.namespace ?? fromPath.namespace, name: values.name ?? fromPath.name };
  // Bytes, not text: invalid UTF-8 must come back as a located finding, not be replaced silently.
  let body: Uint8Array;
  try {
    body = await readFileBounded(path, PACKAGE_FILE_MAX_BYTES, file);
  } catch (error) {
    // One line and no usage text: the file, not the command line, is what is wrong.
    if (error instanceof WorkbenchError && error.code === 'not_found') throw new WorkbenchError('usage', `cannot read ${file}: no such file`);
    throw error;
  }
  const key = values['idempotency-key'] ?? `skillbench-${randomUUID()}`;
  if (values['idempotency-key'] === undefined) say(io, `skillbench publish: idempotency key ${key} (retry with --idempotency-key ${key})`);

  return withStore(io, values.to, { command: 'publish', json, file, create: true }, async (store) => {
    const ifMatch = etagArg(values['if-match']);
    const base: PublishBase = values.create ? null : ifMatch !== undefined ? { etag: ifMatch } : 'current';
    const result = await publishConditional(store, { id, body, base, idempotencyKey: key });
    for (const w of result.validation.warnings) say(io, formatFinding(file, w));
    for (const w of result.warnings) say(io, `skillbench publish: warning ${w.code}: ${w.message}`);
    const outcome = publishOutcome(result);
    say(io, `skillbench publish: ${publishOutcomeLine(outcome)}`);
    if (json) printJsonDocument(io, 'publish', publishOutcomeDocument(outcome, key));
    return EXIT.ok;
  });
}

/** The `publish` command. */
export const command: Command = { summary: 'Publish a package as the next revision (conditional, idempotent)', usage, run };
