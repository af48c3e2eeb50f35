/**
 * `skillbench <command> [options]`: parse, call core/evals, format. Each command
 * lives in `cli/commands/<name>.ts` and exports `run(args, io)` returning an exit code.
 */
import { EXIT, UsageError, exitCodeFor, isExpected } from './exit';
import { type CliIo, processIo, say } from './io';
import { redactingIo } from './redactIo';
import { WorkbenchError } from '../core/errors';

/** A CLI command: parses its own arguments, returns an exit code. */
export interface Command {
  /** One-line summary for `skillbench --help`. */
  summary: string;
  /** Full usage text. */
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

type Loader = () => Promise<{ command: Command }>;

/** Commands load lazily so `skillbench validate` does not pay for ioredis or undici. */
const COMMANDS: Record<string, Loader> = {
  validate: () => import('./commands/validate'),
  publish: () => import('./commands/publish'),
  get: () => import('./commands/get'),
  versions: () => import('./commands/versions'),
  delete: () => import('./commands/delete'),
  list: () => import('./commands/list'),
  check: () => import('./commands/check'),
  sync: () => import('./commands/sync'),
  'registry serve': () => import('./commands/registryServe'),
  serve: () => import('./commands/serve'),
  select: () => import('./commands/select'),
  eval: () => import('./commands/eval'),
  analyze: () => import('./commands/analyze'),
  optimize: () => import('./commands/optimize'),
  'review create': () => import('./commands/review').then((m) => ({ command: m.createCommand })),
  'review list': () => import('./commands/review').then((m) => ({ command: m.listCommand })),
  'review show': () => import('./commands/review').then((m) => ({ command: m.showCommand })),
  'review approve': () => import('./commands/review').then((m) => ({ command: m.approveCommand })),
  'review reject': () => import('./commands/review').then((m) => ({ command: m.rejectCommand })),
  'review publish': () => import('./commands/review').then((m) => ({ command: m.publishCommand })),
  import: () => import('./commands/interop').then((m) => ({ command: m.importCommand })),
  export: () => import('./commands/interop').then((m) => ({ command: m.exportCommand })),
  catalog: () => import('./commands/catalog'),
};

/**
 * Each command's `summary`, as its module states it, for `skillbench --help`:
 * listing the commands then loads none of them (a unit test keeps the two equal).
 */
export const SUMMARIES: Readonly<Record<string, string>> = {
  validate: 'Validate package files offline (compiler-style findings, exit 1 if invalid)',
  publish: 'Publish a package as the next revision (conditional, idempotent)',
  get: 'Read the published package (or a retained version) and its ETag',
  versions: 'List body-free version history, newest first',
  delete: 'Delete old revisions (guarded, atomic, audited)',
  list: 'List published skills (body-free), with filters',
  check: 'Compare a folder of packages with a store (read-only drift report)',
  sync: 'Publish a folder of packages to a store (changed ones only, verified, never deletes)',
  'registry serve': 'Serve the V1 admin API over a store',
  serve: 'Serve the workbench UI and its API to a browser',
  select: 'Simulate runtime skill activation, resource selection and projection',
  eval: 'Evaluate skill activation accuracy across models (resumable, CI gates)',
  analyze: 'AI authoring advice and checked JSON Patch proposals for a package file',
  optimize: 'Optimize a skill description across models; propose it only on a proven held-out gain',
  'review create': 'file a signed publication (or deletion) request',
  'review list': 'list the publication requests of the workspace',
  'review show': 'show a publication request',
  'review approve': 'approve a publication request (never your own)',
  'review reject': 'reject a publication request',
  'review publish': 'carry out an approved request exactly as approved',
  import: 'Convert Agent Skills SKILL.md folders into V1 packages of the workspace',
  export: 'Write a V1 package as an Agent Skills folder (SKILL.md and references/)',
  catalog: 'Catalog health: budgets against limits, where requests go, and a split that fits',
};

/** The registered command names, sorted. */
export function commandNames(): string[] {
  return Object.keys(COMMANDS).sort();
}

/** Loads the command registered as `name` (undefined for an unknown name), e.g. to read its usage. */
export async function loadCommand(name: string): Promise<Command | undefined> {
  const loader = COMMANDS[name];
  return loader ? (await loader()).command : undefined;
}

async function help(io: CliIo): Promise<void> {
  const lines = ['Usage: skillbench <command> [options]', '', 'Commands:'];
  for (const name of commandNames()) {
    // A command without a stated summary is loaded for it.
    const summary = SUMMARIES[name] ?? (await loadCommand(name))?.summary;
    if (summary === undefined) continue;
    lines.push(`  ${name.padEnd(18)} ${summary}`);
  }
  lines.push('', 'Run `skillbench <command> --help` for its options.');
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], rawIo: CliIo = processIo()): Promise<number> {
  // Every byte the command writes passes the redactor: keys, tokens and passwords never reach the terminal.
  const io = redactingIo(rawIo, argv);
  // `--debug` may stand anywhere; it only adds the stack of an unexpected error.
  const debug = argv.includes('--debug');
  const [first, ...rest] = argv.filter((a) => a !== '--debug');
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    await help(io);
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  // Two-word commands such as `registry serve` and `review approve`.
  let name = first;
  let args = rest;
  const second = rest[0];
  if (second !== undefined && COMMANDS[`${first} ${second}`]) {
    name = `${first} ${second}`;
    args = rest.slice(1);
  }
  const loader = COMMANDS[name];
  if (!loader) {
    say(io, `skillbench: unknown command '${first}'. Run 'skillbench --help' for the list.`);
    return EXIT.usage;
  }
  const { command } = await loader();
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // The problem and where the options are explained; the whole usage text would bury the one line that matters.
      say(io, `skillbench ${name}: ${error.message.replace(/[.\s]+$/, '')} (see 'skillbench ${name} --help')`);
      return EXIT.usage;
    }
    if (isExpected(error)) {
      say(io, `skillbench ${name}: ${error instanceof Error ? error.message : String(error)}`);
      return exitCodeFor(error);
    }
    return internalError(io, name, error, debug);
  }
}

/** One line for an unexpected error (a bug), the stack only with `--debug`; exit 7. */
function internalError(io: CliIo, name: string, error: unknown, debug: boolean): number {
  const message = (error instanceof WorkbenchError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error)).replace(/\s+/g, ' ').trim().slice(0, 500);
  say(io, `skillbench ${name}: internal error (${message}). This is a bug: please report it with the command you ran${debug ? '' : ' (run it again with --debug for the stack)'}.`);
  if (debug && error instanceof Error && error.stack) say(io, error.stack);
  return EXIT.internal;
}
