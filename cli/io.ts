/**
 * The command's view of the process: machine output on stdout, human text on
 * stderr (ARCHITECTURE.md section 5). Tests pass their own streams.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Working directory relative paths resolve against. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** True when stderr is a terminal (progress bars, colour). */
  isTTY: boolean;
  /** Removes the command line's known secrets from a text (stdout and stderr already pass through it); for files a command writes. */
  redact?: (text: string) => string;
  /**
   * stdout without the redactor, for the one line a command prints so the user
   * can use it verbatim: `serve`'s address with this launch's access token.
   */
  verbatimStdout?: NodeJS.WritableStream;
}

/** The real process streams. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
  };
}

/**
 * True when stderr may be redrawn in place (`\r` and erase-line sequences): a
 * terminal that is not `TERM=dumb`. Elsewhere (a pipe, a CI log, Emacs' shell)
 * progress is printed as plain lines. (The CLI prints no colour, so `NO_COLOR`
 * holds by construction.)
 */
export function canRedraw(io: CliIo): boolean {
  return io.isTTY && io.env['TERM'] !== 'dumb';
}

/** Writes `value` as pretty JSON plus a newline to stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The `format` tag of a `--json` document of the CLI, `skillbench.<kind>/v1`:
 * every object a command prints with `--json` starts with it, so a script can
 * tell what it reads and notice a new version instead of misreading it.
 */
export function jsonFormat(kind: string): string {
  return `skillbench.${kind}/v1`;
}

/** Writes a `--json` document: `{format: "skillbench.<kind>/v1", ...value}` (see {@link jsonFormat}). */
export function printJsonDocument(io: CliIo, kind: string, value: object): void {
  printJson(io, { format: jsonFormat(kind), ...value });
}

/** Writes one line of human text to stderr. */
export function say(io: CliIo, line: string): void {
  io.stderr.write(`${line}\n`);
}
