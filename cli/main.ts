/**
 * `skillbench <command> [options]`: parse, call core/evals, format. Each command
 * lives in `cli/commands/<name>.ts` and exports `run(args, io)` returning an exit code.
 * What `--help`, the group listings and shell completion show comes from the
 * static table of cli/commandTable.ts, so none of them loads a command.
 */
import { COMMAND_TABLE, CONNECTION_FLAGS, GLOBAL_FLAGS, commandGroups, flagInfo } from './commandTable';
import { EXIT, UsageError, exitCodeFor, isExpected } from './exit';
import { type CliIo, processIo, say } from './io';
import { redactingIo } from './redactIo';
import { withProjectDefaults } from './projectConfig';
import { packageVersion } from './version';
import { WorkbenchError } from '../core/errors';

/** A CLI command: parses its own arguments, returns an exit code. Its flags are listed in cli/commandTable.ts too. */
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
  completion: () => import('./commands/completion'),
  'connection add': () => import('./commands/connection').then((m) => ({ command: m.addCommand })),
  'connection list': () => import('./commands/connection').then((m) => ({ command: m.listCommand })),
  'connection test': () => import('./commands/connection').then((m) => ({ command: m.testCommand })),
  'connection remove': () => import('./commands/connection').then((m) => ({ command: m.removeCommand })),
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
  completion: 'Print a shell completion script (bash, zsh or fish)',
  'connection add': 'save a connection under a name, for --from/--to NAME',
  'connection list': 'list the saved connections',
  'connection test': 'check that a saved connection answers, and say why not',
  'connection remove': 'remove a saved connection and its secrets',
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

function help(io: CliIo): void {
  const lines = ['Usage: skillbench <command> [options]', '', 'Commands:'];
  for (const name of commandNames()) lines.push(`  ${name.padEnd(18)} ${SUMMARIES[name] ?? ''}`.trimEnd());
  lines.push('', 'Options:', '  --version          print the version and exit', ...GLOBAL_FLAGS.map((g) => `  ${g.flag.padEnd(18)} ${g.help}`));
  lines.push('', 'Run `skillbench <command> --help` for its options.');
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** The flags every command takes, as a command's (or a group's) `--help` ends with them. */
const EVERY_COMMAND_OPTIONS: readonly string[] = ['', 'Options of every command:', ...GLOBAL_FLAGS.map((g) => `  ${g.flag.padEnd(9)} ${g.help}`)];

/** The subcommands of a group such as `review`, the way `skillbench --help` lists commands. */
function groupHelp(group: string, subs: readonly string[]): string {
  const lines = [`Usage: skillbench ${group} <command> [options]`, '', 'Commands:'];
  for (const sub of subs) lines.push(`  ${sub.padEnd(10)} ${SUMMARIES[`${group} ${sub}`] ?? ''}`.trimEnd());
  lines.push(...EVERY_COMMAND_OPTIONS);
  lines.push('', `Run \`skillbench ${group} <command> --help\` for its options.`);
  return lines.join('\n');
}

/**
 * What every command's `--help` ends with: the flags every command takes and,
 * for a command naming a store, what a connection may be.
 */
export function usageFooter(name: string): string {
  const lines = [...EVERY_COMMAND_OPTIONS];
  const flags = (COMMAND_TABLE[name]?.flags ?? []).map((f) => flagInfo(f)).filter((f) => CONNECTION_FLAGS.includes(f.name) && (f.value === 'CONN' || f.value === 'CONN_OR_DIR'));
  if (flags.length > 0) {
    lines.push(
      '',
      `${flags.map((f) => f.name).join(', ')}: the name of a saved connection (\`skillbench connection list\`;`,
      'add one with `skillbench connection add` or in the workbench), or a connection',
      'string: local:DIR, redis://..., rediss://..., redis+sentinel://...,',
      'redis+cluster://..., http(s)://.../api/v1/skills (see docs/connections.md).',
    );
  }
  return lines.join('\n');
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], rawIo: CliIo = processIo()): Promise<number> {
  // Every byte the command writes passes the redactor: keys, tokens and passwords never reach the terminal.
  const io = redactingIo(rawIo, argv);
  // `--debug` may stand anywhere; it only adds the stack of an unexpected error.
  const debug = argv.includes('--debug');
  const [first, ...rest] = argv.filter((a) => a !== '--debug');
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    help(io);
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === '--version') {
    io.stdout.write(`${await packageVersion()}\n`);
    return EXIT.ok;
  }
  let name = first;
  let args = rest;
  // Two-word commands such as `registry serve` and `review approve`; the group alone lists them.
  const subs = commandGroups().get(first);
  if (subs) {
    const second = rest[0];
    if (second === undefined || second === '--help' || second === '-h') {
      io.stdout.write(`${groupHelp(first, subs)}\n`);
      return second === undefined ? EXIT.usage : EXIT.ok;
    }
    if (!subs.includes(second)) {
      say(io, `skillbench ${first}: unknown command '${second}'.`);
      say(io, groupHelp(first, subs));
      return EXIT.usage;
    }
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
    io.stdout.write(`${command.usage}\n${usageFooter(name)}\n`);
    return EXIT.ok;
  }
  try {
    // Project defaults (skillbench.config.json, SKILLBENCH_CONNECTION, SKILLBENCH_MODELS) fill the flags not given.
    return await command.run(await withProjectDefaults(name, args, io), io);
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
