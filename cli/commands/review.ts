/**
 * `skillbench review …`: publication requests in the workspace
 * (`skills/reviews/<id>.json`): create, list, show, approve, reject, publish.
 * Identities come from `SKILLBENCH_USER`, else `git config user.name` and
 * `user.email` of the workspace.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { ReviewRequest, ReviewStatus } from '../../core/api/contract';
import { resolveLimits } from '../../core/package/index';
import {
  approveRequest,
  createRequest,
  isStale,
  listRequests,
  publishRequest,
  readRequest,
  rejectRequest,
  summaryOf,
  viewOf,
  type ReviewContext,
} from '../../core/review/request';
import { isRunId, type RunsPlace } from '../../core/review/evalRun';
import { reviewContext } from '../../core/review/session';
import { redactConnection } from '../../core/store/connect';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { openCliStore, reportFailure } from '../store';

const STATUSES: readonly ReviewStatus[] = ['open', 'changes_requested', 'approved', 'rejected', 'published', 'stale'];

const common = { workspace: { type: 'string' }, json: { type: 'boolean' } } as const;

function context(io: CliIo, workspace: string | undefined): ReviewContext {
  return reviewContext(resolve(io.cwd, workspace ?? '.'), { env: io.env });
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

export const createCommand = command(
  'file a publication request for a workspace package',
  `Usage: skillbench review create FILE --to CONN [--note TEXT] [--eval RUN] [--workspace DIR] [--json]

Validates FILE (skills/packages/<namespace>/<name>.json of the workspace), reads the
skill's published version and ETag from CONN as the base, and writes the request to
skills/reviews/<id>.json with the normalized package and its manifest hash.

  --to CONN        a saved connection name or a connection string without credentials
  --note TEXT      what the change is for
  --eval RUN       the eval run that backs the change: a run id (a folder of
                   .skillbench/runs in the workspace or the working directory)
                   or the path of a run folder; its summary and gate verdict
                   are recorded. The run must have finished (exit 3 otherwise)
                   and have evaluated this skill (exit 2 otherwise); an
                   unknown run is exit 5
  --workspace DIR  the workspace root (default: the working directory)
  --json           print the request as JSON on stdout`,
  async (args, io) => {
    const { values, positionals } = parse(args, { ...common, to: { type: 'string' }, note: { type: 'string' }, eval: { type: 'string' } });
    const json = values.json === true;
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    if (!values.to) throw new UsageError('--to CONN is required: the connection the request publishes to');
    if (redactConnection(values.to) !== values.to) throw new UsageError('--to must not carry credentials: a request file is shared through Git; save a connection and name it');
    const evalRun = values.eval === undefined ? undefined : evalRunOf(io, resolve(io.cwd, values.workspace ?? '.'), values.eval);
    if (evalRun && !isRunId(evalRun.run)) throw new UsageError('--eval takes a run id (letters, digits, . _ -) or the path of a run folder');
    const ctx = context(io, values.workspace);
    const file = relative(ctx.root, resolve(io.cwd, positionals[0] ?? '')).split('\\').join('/');
    if (file.startsWith('..')) throw new UsageError(`${positionals[0]} is outside the workspace ${ctx.root}`);
    return guarded(io, 'review create', json, async () => {
      const store = await openCliStore(values.to, io);
      try {
        const doc = await createRequest(ctx, {
          file,
          connection: values.to!,
          store,
          ...(values.note !== undefined && { note: values.note }),
          ...(evalRun && { evalRun }),
        });
        say(io, `skillbench review create: ${doc.id} (${doc.skill.namespace}/${doc.skill.name} to ${doc.connection}, base ${doc.base ? `v${doc.base.version}` : 'none: a create'})`);
        if (json) printJsonDocument(io, 'review-request', viewOf(doc, false, ctx.actor));
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
  `Usage: skillbench review show ID [--workspace DIR] [--json]`,
  async (args, io) => {
    const { values, positionals } = parse(args, common);
    const json = values.json === true;
    if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
    const ctx = context(io, values.workspace);
    return guarded(io, 'review show', json, async () => {
      const doc = await readRequest(ctx.root, positionals[0]!);
      const view = viewOf(doc, await isStale(ctx.root, doc, resolveLimits()), ctx.actor);
      if (json) printJsonDocument(io, 'review-request', view);
      else {
        const lines = [
          `${view.id}: ${view.status}${view.stale ? ' (stale)' : ''}`,
          `skill ${view.skill.namespace}/${view.skill.name} to ${view.connection}, base ${view.base ? `v${view.base.version} ${view.base.etag}` : 'none (create)'}`,
          `manifest ${view.manifest_hash}, validation ${view.validation.valid ? 'passed' : 'failed'} (${view.validation.warnings.length} warnings)`,
          `author ${view.author}${view.note ? `: ${view.note}` : ''}`,
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
    `Usage: skillbench review ${kind} ID [--comment TEXT] [--workspace DIR] [--json]`,
    async (args, io) => {
      const { values, positionals } = parse(args, { ...common, comment: { type: 'string' } });
      const json = values.json === true;
      if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
      const ctx = context(io, values.workspace);
      return guarded(io, `review ${kind}`, json, async () => {
        const id = positionals[0]!;
        const doc = kind === 'approve' ? await approveRequest(ctx, id, values.comment) : await rejectRequest(ctx, id, values.comment);
        say(io, `skillbench review ${kind}: ${doc.id} is ${doc.status}${kind === 'approve' ? ` (manifest ${doc.manifest_hash})` : ''}`);
        if (json) printJsonDocument(io, 'review-request', viewOf(doc, false, ctx.actor));
        return EXIT.ok;
      });
    },
  );
}

export const approveCommand = decision('approve');
export const rejectCommand = decision('reject');

export const publishCommand = command(
  'publish an approved request exactly as approved',
  `Usage: skillbench review publish ID [--idempotency-key KEY] [--workspace DIR] [--json]

Publishes the approved package bytes to the request's connection with If-Match the
ETag recorded when the request was filed. A draft or request edited after the
approval, or a store that moved on (412), marks the request stale (exit 3) and
publishes nothing.`,
  async (args, io) => {
    const { values, positionals } = parse(args, { ...common, 'idempotency-key': { type: 'string' } });
    const json = values.json === true;
    if (positionals.length !== 1) throw new UsageError('expected exactly one review ID');
    const ctx = context(io, values.workspace);
    return guarded(io, 'review publish', json, async () => {
      const doc = await readRequest(ctx.root, positionals[0]!);
      const store = await openCliStore(doc.connection, io, { create: true });
      try {
        const key = values['idempotency-key'] ?? randomUUID();
        if (values['idempotency-key'] === undefined) say(io, `skillbench review publish: idempotency key ${key}`);
        const { request, result } = await publishRequest(ctx, doc.id, store, { idempotencyKey: key });
        say(io, `skillbench review publish: ${request.id} published ${result.namespace}/${result.name} v${result.version} (${result.outcome})`);
        if (json) printJsonDocument(io, 'review-publish', { id: request.id, status: request.status, outcome: result.outcome, version: result.version, etag: result.etag, manifest_hash: result.manifest_hash });
        return EXIT.ok;
      } finally {
        await store.close();
      }
    });
  },
);

