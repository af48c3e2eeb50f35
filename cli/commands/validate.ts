/**
 * `skillbench validate <file|dir>...`: deterministic validation of package
 * files, offline, with compiler-style findings. Namespace and name come from
 * the path `.../<namespace>/<name>.json` unless --namespace/--name are given.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { emptyMetrics, validatePackage } from '../../core/package/index';
import type { PackageMetrics, SkillId } from '../../core/package/types';
import { discoverPackages } from '../../core/workspace/discover';
import { identityFromPath } from '../../core/workspace/identity';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from '../../core/workspace/read';
import { WorkbenchError } from '../../core/errors';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';

const usage = `Usage: skillbench validate <file|dir>... [--json] [--namespace NS --name NAME]

Validates V1 package files without contacting any store. A folder is searched
for skills/packages/<namespace>/<name>.json (a workspace) or <namespace>/<name>.json;
a folder holding <name>.json files directly is a namespace folder (its name is the
namespace). Unexpected files there are reported too. Only regular files of at most
the package limit are read.

  --namespace NS  the namespace to validate a single file under (default: its folder name)
  --name NAME     the name to validate a single file under (default: its file name)
  --json          print one JSON object on stdout: {format: "skillbench.validate/v1",
                  files: [{file, namespace, name, valid, errors, warnings, metrics}]}

Exit status: 0 when every file is valid (warnings allowed), 1 when any is not,
2 on usage errors, among them a PATH that does not exist (still reported).`;

/** One finding as printed with --json. */
interface OutputFinding {
  code: string;
  path: string;
  message: string;
  line: number | null;
  column: number | null;
}

/** One file's verdict as printed with --json. */
interface FileReport {
  file: string;
  namespace: string | null;
  name: string | null;
  valid: boolean;
  errors: OutputFinding[];
  warnings: OutputFinding[];
  metrics: PackageMetrics;
  /** Set (and not printed) when the operand itself does not exist. */
  missing?: true;
}

function finding(f: { code: string; path: string; message: string; line?: number; column?: number }): OutputFinding {
  return { code: f.code, path: f.path, message: f.message, line: f.line ?? null, column: f.column ?? null };
}

function problemReport(file: string, code: string, message: string, id?: SkillId): FileReport {
  return {
    file,
    namespace: id?.namespace ?? null,
    name: id?.name ?? null,
    valid: false,
    errors: [{ code, path: '', message, line: null, column: null }],
    warnings: [],
    metrics: emptyMetrics(),
  };
}

function describeIoError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder';
  return error instanceof Error ? error.message : String(error);
}

async function validateFile(display: string, absolute: string, id: SkillId): Promise<FileReport> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileBounded(absolute, PACKAGE_FILE_MAX_BYTES, 'the file');
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'payload_too_large') return problemReport(display, 'package_bytes_exceeded', error.message, id);
    if (error instanceof WorkbenchError && error.code === 'not_found') return problemReport(display, 'file_unreadable', 'cannot read the file: no such file or folder', id);
    return problemReport(display, 'file_unreadable', error instanceof WorkbenchError ? error.message : `cannot read the file: ${describeIoError(error)}`, id);
  }
  const check = validatePackage(bytes, { id });
  return {
    file: display,
    namespace: id.namespace,
    name: id.name,
    valid: check.valid,
    errors: check.errors.map(finding),
    warnings: check.warnings.map(finding),
    metrics: check.metrics,
  };
}

async function collect(target: string, io: CliIo, override: Partial<SkillId>): Promise<FileReport[]> {
  const absolute = resolve(io.cwd, target);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch (error) {
    // A path that is not there is a mistyped operand, a usage error (exit 2), not an invalid package.
    const missing = (error as { code?: unknown } | null)?.code === 'ENOENT';
    return [{ ...problemReport(target, 'file_unreadable', `cannot read the file: ${describeIoError(error)}`), ...(missing && { missing }) }];
  }
  if (!isDirectory) {
    const fromPath = identityFromPath(absolute).id;
    return [await validateFile(target, absolute, { namespace: override.namespace ?? fromPath.namespace, name: override.name ?? fromPath.name })];
  }
  if (override.namespace !== undefined || override.name !== undefined) {
    throw new UsageError('--namespace and --name apply to a single file, not a folder');
  }
  const discovered = await discoverPackages(absolute);
  if (discovered.length === 0) {
    return [problemReport(target, 'no_packages', 'no package files found: expected skills/packages/<namespace>/<name>.json or <namespace>/<name>.json')];
  }
  const reports: FileReport[] = [];
  for (const entry of discovered) {
    const display = entry.path === '.' ? target : join(target, entry.path);
    if (entry.problem !== undefined || entry.id === undefined) {
      reports.push(problemReport(display, entry.problem?.code ?? 'unexpected_entry', entry.problem?.message ?? 'not a package file'));
    } else {
      reports.push(await validateFile(display, entry.file, entry.id));
    }
  }
  return reports;
}

function printHuman(io: CliIo, reports: FileReport[]): void {
  let errors = 0;
  let warnings = 0;
  for (const report of reports) {
    for (const [severity, list] of [['error', report.errors], ['warning', report.warnings]] as const) {
      for (const f of list) {
        const where = f.line === null ? report.file : `${report.file}:${f.line}:${f.column ?? 1}`;
        say(io, `${where}: ${severity} ${f.code}: ${f.message}`);
      }
    }
    errors += report.errors.length;
    warnings += report.warnings.length;
  }
  const invalid = reports.filter((r) => !r.valid).length;
  const files = `${reports.length} file${reports.length === 1 ? '' : 's'}`;
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  say(io, `skillbench validate: ${files} checked, ${reports.length - invalid} valid, ${invalid} invalid (${counts})`);
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    json: { type: 'boolean' },
    namespace: { type: 'string' },
    name: { type: 'string' },
  });
  if (positionals.length === 0) throw new UsageError('give at least one package file or folder');
  const override: Partial<SkillId> = {};
  if (values.namespace !== undefined) override.namespace = values.namespace;
  if (values.name !== undefined) override.name = values.name;
  if ((override.namespace !== undefined || override.name !== undefined) && positionals.length !== 1) {
    throw new UsageError('--namespace and --name need exactly one file');
  }
  const reports: FileReport[] = [];
  for (const target of positionals) reports.push(...(await collect(target, io, override)));
  printHuman(io, reports);
  if (values.json === true) printJsonDocument(io, 'validate', { files: reports.map(({ missing: _, ...report }) => report) });
  if (reports.some((r) => r.missing)) return EXIT.usage;
  return reports.every((r) => r.valid) ? EXIT.ok : EXIT.invalid;
}

/** The `validate` command. */
export const command: Command = { summary: 'Validate package files offline (compiler-style findings, exit 1 if invalid)', usage, run };
