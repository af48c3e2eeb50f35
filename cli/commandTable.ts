/**
 * The static description of every command's operands and flags (its summary is
 * in cli/main.ts's SUMMARIES). The listings of `skillbench review` and the other
 * command groups, every `--help` footer and `skillbench completion` read it
 * without loading a single command module, so they cost no more than this file.
 *
 * Its flags are checked against each command's usage text by
 * test/unit/cli/commandTable.test.ts, so a flag added to a command and not here
 * (or the other way round) fails a test.
 *
 * Notation, as in the usage texts: `--flag` is a switch; `--flag VALUE` takes a
 * value; `--flag [VALUE]` takes one optionally; `--flag a|b|c` takes one of
 * those words. The value's name says how a shell completes it:
 * `CONN` a saved connection name (or a connection string), `CONN_OR_DIR` a saved
 * connection or a folder, `DIR` a folder, `FILE`/`F`/`FILE_OR_JSON` a file,
 * `SPEC` a model spec; anything else is typed freely.
 */

/** One command as its `--help` footer and shell completion see it. */
export interface CommandSpec {
  /** The operands after the command name, in the usage notation (`FILE`, `PATH...`, `NS/NAME`, `NAME`, `SHELL`), or '' for none. */
  operands: string;
  /** Every flag the command's parser accepts, in the notation above. */
  flags: readonly string[];
}

const json = '--json';

/** Every command by name; two-word names belong to a group (`review create`). */
export const COMMAND_TABLE: Readonly<Record<string, CommandSpec>> = {
  validate: { operands: 'PATH...', flags: [json, '--namespace NS', '--name NAME'] },
  publish: {
    operands: 'FILE',
    flags: ['--to CONN', '--create', '--if-match ETAG', '--idempotency-key KEY', '--namespace NS', '--name NAME', json],
  },
  get: { operands: 'NS/NAME', flags: ['--from CONN', '--version N', json] },
  versions: { operands: 'NS/NAME', flags: ['--from CONN', '--before N', '--limit N', json] },
  delete: {
    operands: 'NS/NAME',
    flags: ['--from CONN', '--version N', '--range FROM-TO', '--if-match ETAG', '--reason TEXT', json],
  },
  list: { operands: '', flags: ['--from CONN', '--namespace NS', '--domain D', '--tag T', json] },
  check: { operands: '', flags: ['--from DIR', '--to CONN', json] },
  sync: { operands: '', flags: ['--from DIR', '--to CONN', json] },
  'registry serve': {
    operands: '',
    flags: [
      '--store CONN',
      '--host ADDR',
      '--port N',
      '--token TOKEN',
      '--token-env NAME',
      '--advisor SPEC',
      '--advisor-reasoning-effort low|medium|high|none',
      '--advisor-guidance-file FILE',
      '--advisor-max-output-tokens N',
      '--advisor-timeout MS',
      json,
      '--require-approval NS_GLOB',
      '--allowed-signers FILE',
      '--registry-url URL',
    ],
  },
  serve: { operands: '', flags: ['--port N', '--host ADDR', '--open', '--workspace DIR', '--token-env NAME', '--stall-timeout S'] },
  select: {
    operands: '',
    flags: [
      '--request TEXT',
      '--catalog CONN_OR_DIR',
      '--bindings FILE_OR_JSON',
      '--model SPEC',
      '--boundary planning|continuation|synthesis',
      '--trusted-activation NS/NAME',
      '--trusted-resource NS/NAME#RESOURCE',
      '--template FILE',
      '--limits FILE_OR_JSON',
      '--domain D',
      '--domain-mode off|warn|enforce',
      json,
      '--activation-model SPEC',
      '--resource-model SPEC',
    ],
  },
  eval: {
    operands: 'PATH_OR_ID...',
    flags: [
      '--model SPEC',
      '--from CONN',
      '--bindings FILE',
      '--repeats N',
      '--concurrency N',
      '--timeout MS',
      '--out DIR',
      '--no-cache',
      '--compare-published',
      '--json [F]',
      '--workspace DIR',
      '--resource-model SPEC',
      '--limits FILE_OR_JSON',
      '--no-adjacent-negatives',
      '--regression-margin X',
      '--reference-model SPEC',
      '--max-error-rate R',
      '--max-invalid-rate R',
      '--allow-skipped-activation',
      '--junit F',
      '--markdown F',
      '--html F',
      '--min-accuracy X',
      '--min-recall X',
      '--min-precision X',
      '--fail-on-regression',
    ],
  },
  analyze: {
    operands: 'FILE',
    flags: ['--model SPEC', '--reasoning-effort low|medium|high|none', '--guidance-file FILE', '--max-output-tokens N', '--timeout MS', '--id NS/NAME', '--write-patch F', json],
  },
  optimize: {
    operands: 'FILE',
    flags: [
      '--model SPEC',
      '--proposer SPEC',
      '--rounds N',
      '--candidates N',
      '--holdout X',
      '--repeats N',
      '--harm-margin X',
      '--seed S',
      '--from CONN',
      '--bindings FILE',
      '--concurrency N',
      '--timeout MS',
      '--no-cache',
      '--json [F]',
      '--html F',
    ],
  },
  'review create': { operands: 'FILE', flags: ['--to CONN', '--note TEXT', '--eval RUN', '--workspace DIR', json, '--delete NS/NAME', '--versions FROM-TO', '--reason TEXT', '--signing-key KEY', '--allowed-signers FILE'] },
  'review list': { operands: '', flags: ['--status open|changes_requested|approved|rejected|published|stale', '--workspace DIR', json] },
  'review show': { operands: 'ID', flags: ['--workspace DIR', json, '--signing-key KEY', '--allowed-signers FILE'] },
  'review approve': { operands: 'ID', flags: ['--comment TEXT', '--workspace DIR', json, '--signing-key KEY', '--allowed-signers FILE'] },
  'review reject': { operands: 'ID', flags: ['--comment TEXT', '--workspace DIR', json, '--signing-key KEY', '--allowed-signers FILE'] },
  'review publish': { operands: 'ID', flags: ['--idempotency-key KEY', '--workspace DIR', json, '--signing-key KEY', '--allowed-signers FILE'] },
  import: { operands: 'PATH...', flags: ['--namespace NS', '--workspace DIR', '--overwrite', '--dry-run', json] },
  export: { operands: 'NS/NAME|FILE', flags: ['--to DIR', '--from CONN', '--overwrite', json] },
  catalog: { operands: 'BINDINGS_OR_NS', flags: ['--from CONN', '--run DIR', '--model SPEC', '--variant LABEL', '--split', '--write DIR', json] },
  completion: { operands: 'SHELL', flags: [] },
  'connection add': { operands: 'NAME CONNECTION', flags: ['--label TEXT', '--read-only', '--protected', '--token-env NAME', '--password-env NAME', json] },
  'connection list': { operands: '', flags: ['--names', json] },
  'connection test': { operands: 'CONN', flags: [json] },
  'connection remove': { operands: 'CONN', flags: [json] },
};

/** Flags every command takes, handled before the command runs. */
export const GLOBAL_FLAGS: readonly { flag: string; help: string }[] = [
  { flag: '--help', help: "print the command's usage and exit 0" },
  { flag: '--debug', help: 'add the stack trace to an internal error (exit 7), to attach to a bug report' },
];

/** The flags of the connection options that name a store. */
export const CONNECTION_FLAGS: readonly string[] = ['--from', '--to', '--store', '--catalog'];

/** A flag of the table, parsed from its notation. */
export interface FlagInfo {
  /** `--from` */
  name: string;
  /** The value's name (`CONN`), absent for a switch. */
  value?: string;
  /** True when the value may be left out (`--json [F]`). */
  optional: boolean;
  /** The words a value must be one of (`planning|continuation|synthesis`). */
  choices?: string[];
}

/** Parses one flag of the table's notation. */
export function flagInfo(text: string): FlagInfo {
  const [name = text, rest] = text.split(' ', 2) as [string, string | undefined];
  if (rest === undefined) return { name, optional: false };
  const optional = rest.startsWith('[') && rest.endsWith(']');
  const value = optional ? rest.slice(1, -1) : rest;
  const choices = /^[a-z][a-z0-9_-]*(\|[a-z][a-z0-9_-]*)+$/.test(value) ? value.split('|') : undefined;
  return { name, value, optional, ...(choices && { choices }) };
}

/** The registered command names, sorted. */
export function tableCommandNames(): string[] {
  return Object.keys(COMMAND_TABLE).sort();
}

/** The groups of two-word commands (`review`, `registry`) and their subcommands, sorted. */
export function commandGroups(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const name of tableCommandNames()) {
    const [group, sub] = name.split(' ');
    if (sub === undefined || group === undefined) continue;
    groups.set(group, [...(groups.get(group) ?? []), sub]);
  }
  return groups;
}
