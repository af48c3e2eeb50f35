/**
 * `skillbench review …`: publication requests in the workspace
 * (`skills/reviews/<id>.json`): create, list, show, approve, reject, publish.
 * Requests and approvals are SSH signatures by the user's key (`--signing-key`,
 * else `SKILLBENCH_SIGNING_KEY`, else `git config user.signingkey`), verified
 * against the allowed signers (`--allowed-signers`, else
 * `SKILLBENCH_ALLOWED_SIGNERS`, else `git config gpg.ssh.allowedSignersFile`);
 * whoever acts is the principal of their key.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { ReviewRequest, ReviewStatus } from '../../core/api/contract';
import { resolveLimits } from '../../core/package/index';
import { isAbsentRegistry } from '../../core/connections/open';
import {
  absentStore,
  approveRequest,
  carryOutRequest,
  createDeleteRequest,
  createRequest,
  inspectRequest,
  isStale,
  listRequests,
  readRequest,
  rejectRequest,
  summaryOf,
  viewOf,
  type ReviewContext,
} from '../../core/review/request';
import { isRunId, type RunsPlace } from '../../core/review/evalRun';
import { reviewContext } from '../../core/review/session';
import { sessionPrincipal } from '../../core/review/signer';
import { ConnectionManager, isProfileName } from '../../core/connections/manager';
import { appDataDir } from '../../core/store/connect';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { openCliStore, reportFailure, skillArg } from '../store';

const STATUSES: readonly ReviewStatus[] = ['open', 'changes_requested', 'approved', 'rejected', 'published', 'stale'];

const common = { workspace: { type: 'string' }, json: { type: 'boolean' }, 'signing-key': { type: 'string' }, 'allowed-signers': { type: 'string' } } as const;

const SIGNING_HELP = `  --signing-key KEY        the SSH key to sign with, as git's user.signingkey takes it
                           (a key file, or key::ssh-… with the private half in an
                           ssh-agent); default SKILLBENCH_SIGNING_KEY, else
                           git config user.signingkey
  --allowed-signers FILE   the allowed-signers file (git's gpg.ssh.allowedSignersFile
                           format) signatures are verified against; default
                           SKILLBENCH_ALLOWED_SIGNERS, else git config
                           gpg.ssh.allowedSignersFile`;

function context(io: CliIo, values: { workspace?: string | undefined; 'signing-key'?: string | undefined; 'allowed-signers'?: string | undefined }): ReviewContext {
  const manager = new ConnectionManager({ dataDir: appDataDir(io.env), env: io.env });
  const root = resolve(io.cwd, values.workspace ?? '.');
  return reviewContext(root, {
    env: io.env,
    profile: (name) => manager.get(name),
    settings: {
      ...(values['signing-key'] !== undefined && { signingKey: values['signing-key'] }),
      ...(values['allowed-signers'] !== undefined && { allowedSigners: resolve(io.cwd, values['allowed-signers']) }),
    },
    ...(io.env['USER'] !== undefined && { fallbackActor: io.env['USER'] }),
  });
}

/**
 * Where `--eval RUN` is looked for: a path (it holds a `/`) names the run
 * folder itself; a bare id is a folder of `.skillbench/runs` in the workspace,
 * then in the working directory (where `skillbench eval` records runs).
 */
function evalRunOf(io: CliIo, root: string, value: string): { run: string; places: RunsPlace[] } {
  const shown = (dir: string) => relative(io.cwd, dir).split('\\').join('/') || '.';
  if (/[/\\]/.test(value)) {
    const abs = resolve(io.cwd, value);
    return { run: basename(abs), places: [{ dir: dirname(abs), where: shown(dirname(abs)) }] };
  }
  const dirs = [...new Set([join(root, '.skillbench', 'runs'), join(io.cwd, '.skillbench', 'runs')])];
  return { run: value, places: dirs.map((dir) => ({ dir, where: shown(dir) })) };
}

async function guarded(io: CliIo, command: string, json: boolean, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (error) {
    return reportFailure(io, command, error, { json });
  }
}

function command(summary: string, usage: string, run: Command['run']): Command {
  return { summary, usage, run };
}

function parseVersions(text: string): { from: number; to: number } {
  const m = /^([1-9][0-9]*)(?:-([1-9][0-9]*))?$/.exec(text);
  if (!m) throw new UsageError(`--versions must be N or FROM-TO with positive integers, got '${text}'`);
  return { from: Number(m[1]), to: Number(m[2] ?? m[1]) };
}

export const createCommand = command(
  'file a signed publication (or deletion) request',
  `Usage: skillbench review create FILE --to CONN [--note TEXT] [--eval RUN] [--workspace DIR] [--json]
       skillbench review create --delete NS/NAME --versions FROM-TO --reason TEXT --to CONN [--note TEXT]

Validates FILE (skills/packages/<namespace>/<name>.json of the workspace), reads the
skill's published version and ETag from CONN as the base, signs the request statement
with your SSH key and writes the request to skills/reviews/<id>.json with the
normalized package and its manifest hash. With --delete, the request deletes the
versions FROM-TO of a published skill once approved (If-Match the ETag read now).

  --to CONN        a saved connection name (never a connection string: only the
                   host its profile names ever gets a credential for the request)
  --note TEXT      what the change is for
  --eval RUN       the eval run that backs the change: a run id (a folder of
                   .skillbench/runs in the workspace or the working directory)
                   or the path of a run folder; its summary and gate verdict
                   are recorded. The run must have finished (exit 3 otherwise)
                   and have evaluated this skill (exit 2 otherwise); an
                   unknown run is exit 5
  --delete NS/NAME, --versions FROM-TO, --reason TEXT
                   a deletion request instead of a publication
  --workspace DIR  the workspace root (default: the working directory)
${SIGNING_HELP}
  --json           print the request as JSON on stdout`,
  async (args, io) => {
    const { values, positionals } = parse(args, {
      ...common,
      to: { type: 'string' },
      note: { type: 'string' },
      eval: { type: 'string' },
      delete: { type: 'string' },
      versions: { type: 'string' },
      reason: { type: 'string' },
    });
    const json = values.json === true;
    const deletion = values.delete !== undefined;
    if (deletion) {
      if (positionals.length > 0) throw new UsageError('--delete takes no FILE');
      if (values.versions === undefined || values.reason === undefined) throw new UsageError('--delete needs --versions FROM-TO and --reason TEXT');
      if (values.eval !== undefined) throw new UsageError('--eval goes with a publication request, not --delete');
    } else {
      if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
      if (values.versions !== undefined || values.reason !== undefined) throw new UsageError('--versions and --reason go with --delete');
    }
    if (!values.to) throw new UsageError('--to CONN is required: the saved connection the request publishes to');
    if (!isProfileName(values.to)) throw new UsageError('--to must name a saved connection: a request file is shared through Git, and only the host its profile names may get a credential for it');
    const evalRun = values.eval === undefined ? undefined : evalRunOf(io, resolve(io.cwd, values.workspace ?? '.'), values.eval);
    if (evalRun && !isRunId(evalRun.run)) throw new UsageError('--eval takes a run id (letters, digits, . _ -) or the path of a run folder');
    const ctx = context(io, values);
    const file = deletion ? '' : relative(ctx.root, resolve(io.cwd, positionals[0] ?? '')).split('\\').join('/');
    if (file.startsWith('..')) throw new UsageError(`${positionals[0]} is outside the workspace ${ctx.root}`);
    const range = deletion ? parseVersions(values.versions!) : undefined;
    const skill = deletion ? skillArg(values.delete) : undefined;
    return guarded(io, 'review create', json, async () => {
      await ctx.registry(values.to!);
      // A local registry that does not exist yet has nothing published: the base is none, and filing creates nothing.
      const store = await openCliStore(values.to, io).catch((error: unknown) => {
        if (deletion || !isAbsentRegistry(error)) throw error;
        return { ...absentStore(values.to!), close: async () => undefined };
      });
      try {
        const note = values.note !== undefined ? { note: values.note } : {};
        const doc =
          skill && range
            ? await createDeleteRequest(ctx, { skill, ...range, reason: values.reason!, connection: values.to!, store, ...note })
            : await createRequest(ctx, { file, connection: values.to!, store, ...note, ...(evalRun && { evalRun }) });
        const what = doc.action === 'delete' ? `delete v${doc.delete!.from}${doc.delete!.to !== doc.delete!.from ? `-${doc.delete!.to}` : ''} of` : '';
        say(io, `skillbench review create: ${doc.id} (${what ? `${what} ` : ''}${doc.skill.namespace}/${doc.skill.name} to ${doc.connection}, base ${doc.base ? `v${doc.base.version}` : 'none: a create'}), signed by ${doc.author}`);
        if (json) printJsonDocument(io, 'review-request', viewOf(doc, false, doc.author));
        else io.stdout.write(`${doc.id}\n`);
        return EXIT.ok;
      } finally {
        await store.close();
      }
    });
  },
);

export const listCommand = command(
  'list the publication requests of the workspace',
  `Usage: skillbench review list [--status S] [--workspace DIR] [--json]

  --status S   one of ${STATUSES.join(', ')}`,
  async (args, io) => {
    const { values, positionals } = parse(args, { ...common, status: { type: 'string' } });
    const json = values.json === true;
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const status = values.status as ReviewStatus | undefined;
    if (status !== undefined && !STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
    const root = resolve(io.cwd, values.workspace ?? '.');
    return guarded(io, 'review list', json, async () => {
      const found = await listRequests(root, resolveLimits(), status);
      const reviews = found.map(({ doc, stale }) => summaryOf(doc, stale));
      if (json) printJsonDocument(io, 'review-requests', { reviews });
      else for (const r of reviews) io.stdout.write(`${r.id}\t${r.status}\t${r.skill.namespace}/${r.skill.name}\t${r.connection}\t${r.author}\n`);
      return EXIT.ok;
    });
  },
);

export const showCommand = command(
  'show a publication request',
  `Usage: skillbench review show ID [--workspace DIR] [--json]

Prints the request with each signature checked now: its principal, whether it
verifies against the allowed signers, and whether it stands for the request.

${SIGNING_HELP}`,
  async (args, io) => {
    const { values, positionals } = parse(args, common);
    const json = values.json === true;
    if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
    const ctx = context(io, values);
    return guarded(io, 'review show', json, async () => {
      const doc = await readRequest(ctx.root, positionals[0]!);
      const limits = resolveLimits();
      const view = viewOf(doc, await isStale(ctx.root, doc, limits), await sessionPrincipal(ctx.signer), await inspectRequest(ctx, doc, limits));
      if (json) printJsonDocument(io, 'review-request', view);
      else {
        const lines = [
          `${view.id}: ${view.status}${view.stale ? ' (stale)' : ''}${view.status === 'approved' && !view.verified_approval ? ' (no approval stands)' : ''}`,
          `${view.delete ? `delete v${view.delete.from}-${view.delete.to} of` : 'skill'} ${view.skill.namespace}/${view.skill.name} to ${view.connection}, base ${view.base ? `v${view.base.version} ${view.base.etag}` : 'none (create)'}`,
          ...(view.registry ? [`registry ${view.registry}`] : []),
          `manifest ${view.manifest_hash}, validation ${view.validation.valid ? 'passed' : 'failed'} (${view.validation.warnings.length} warnings)`,
          `author ${view.author}${view.note ? `: ${view.note}` : ''}`,
          ...(view.unverifiable ? [`signatures not checked: ${view.unverifiable}`] : []),
          ...view.signatures.map(
            (g) => `signature ${g.role === 'author' ? 'request ' : 'approval'} ${g.principal ?? `${g.claimed} (claimed)`} ${g.fingerprint ?? ''} ${g.counts ? 'verified' : `does not stand: ${g.problem ?? 'unknown'}`}`,
          ),
          ...evalLines(view),
          ...view.history.map((h) => `  ${h.at} ${h.actor} ${h.action}${h.comment ? `: ${h.comment}` : ''}`),
        ];
        io.stdout.write(`${lines.join('\n')}\n`);
      }
      return EXIT.ok;
    });
  },
);

/** The eval evidence of a request as `review show` prints it: the verdict, then the request's skill per model. */
function evalLines(view: ReviewRequest): string[] {
  const evidence = view.eval;
  if (!evidence) return ['eval none attached'];
  const lines = [`eval run ${evidence.run}: ${evidence.verdict ? evidence.verdict.message : 'no verdict'}`];
  const key = `${view.skill.namespace}/${view.skill.name}`;
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  for (const model of evidence.summary?.models ?? []) {
    for (const s of model.skills.filter((m) => m.skill === key)) {
      lines.push(`  ${model.model} ${s.variant}: accuracy ${f(s.accuracy)}, precision ${f(s.precision)}, recall ${f(s.recall)}, F1 ${f(s.f1)} (${s.cells - s.errors} of ${s.cells} cells answered)`);
    }
  }
  for (const g of evidence.summary?.gates ?? []) lines.push(`  gate ${g.gate} ${g.passed ? 'passed' : 'failed'}: ${g.message}`);
  return lines;
}

function decision(kind: 'approve' | 'reject'): Command {
  return command(
    kind === 'approve' ? 'approve a publication request (never your own)' : 'reject a publication request',
    `Usage: skillbench review ${kind} ID [--comment TEXT] [--workspace DIR] [--json]
${kind === 'approve' ? '\nSigns the request\'s statement with your SSH key. Refused (exit 8) when the author\'s\nsignature does not stand for the request as it is, or when you are its author.\n' : ''}
${SIGNING_HELP}`,
    async (args, io) => {
      const { values, positionals } = parse(args, { ...common, comment: { type: 'string' } });
      const json = values.json === true;
      if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
      const ctx = context(io, values);
      return guarded(io, `review ${kind}`, json, async () => {
        const id = positionals[0]!;
        const doc = kind === 'approve' ? await approveRequest(ctx, id, values.comment) : await rejectRequest(ctx, id, values.comment);
        const by = kind === 'approve' ? doc.approvals.at(-1)!.reviewer : doc.history.at(-1)!.actor;
        say(io, `skillbench review ${kind}: ${doc.id} is ${doc.status}${kind === 'approve' ? ` (manifest ${doc.manifest_hash})` : ''}, signed by ${by}`);
        if (json) printJsonDocument(io, 'review-request', viewOf(doc, false, by));
        return EXIT.ok;
      });
    },
  );
}

export const approveCommand = decision('approve');
export const rejectCommand = decision('reject');

export const publishCommand = command(
  'carry out an approved request exactly as approved',
  `Usage: skillbench review publish ID [--idempotency-key KEY] [--workspace DIR] [--json]

Publishes the approved package bytes to the request's saved connection with If-Match
the ETag recorded when the request was filed (or deletes the approved versions), with
the signed approval attached for a host that enforces approvals. First, every field
the signatures bind is recomputed from what is about to be sent; nothing is sent, and
the exit code is 8, when no approval verifies against the allowed signers, the only
approval is the author's own, a signature names another registry, skill, base or
bytes, or the status says approved without a standing approval. A draft edited after
the approval, or a store that moved on (412), marks the request stale (exit 3).

${SIGNING_HELP}`,
  async (args, io) => {
    const { values, positionals } = parse(args, { ...common, 'idempotency-key': { type: 'string' } });
    const json = values.json === true;
    if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
    const ctx = context(io, values);
    return guarded(io, 'review publish', json, async () => {
      const doc = await readRequest(ctx.root, positionals[0]!);
      // A connection string in the file is refused before anything is opened: credentials go only to a saved profile's host.
      await ctx.registry(doc.connection);
      // The profile's guard stays on: only the approved request's own write gets past it.
      const { store } = await new ConnectionManager({ dataDir: appDataDir(io.env), env: io.env }).openByName(doc.connection, { create: doc.action !== 'delete' });
      try {
        const key = values['idempotency-key'] ?? randomUUID();
        if (values['idempotency-key'] === undefined && doc.action !== 'delete') say(io, `skillbench review publish: idempotency key ${key}`);
        const { request, outcome } = await carryOutRequest(ctx, doc.id, store, { idempotencyKey: key });
        if (outcome.kind === 'publish') {
          const result = outcome.result;
          say(io, `skillbench review publish: ${request.id} published ${result.namespace}/${result.name} v${result.version} (${result.outcome})`);
          if (json) printJsonDocument(io, 'review-publish', { id: request.id, status: request.status, outcome: result.outcome, version: result.version, etag: result.etag, manifest_hash: result.manifest_hash });
        } else {
          const result = outcome.result;
          say(io, `skillbench review publish: ${request.id} deleted ${result.namespace}/${result.name} version${result.deleted.length === 1 ? '' : 's'} ${result.deleted.join(', ') || '(none: already deleted)'}`);
          if (json) printJsonDocument(io, 'review-publish', { id: request.id, status: request.status, outcome: 'deleted', deleted: result.deleted, already_deleted: result.already_deleted, etag: result.etag });
        }
        return EXIT.ok;
      } finally {
        await store.close();
      }
    });
  },
);
