/**
 * `skillbench import` and `skillbench export`: Agent Skills (SKILL.md) folders
 * into V1 packages of a workspace and back. Parse, call core/interop, format.
 */
import { resolve } from 'node:path';
import { WorkbenchError } from '../../core/errors';
import { expandSkillPaths, importSkills, writeSkillExport } from '../../core/interop/files';
import type { Conversion, SkillImportReport } from '../../core/interop/types';
import { validatePackage } from '../../core/package/validate';
import type { SkillId, SkillPackage } from '../../core/package/types';
import { identityFromPath, parseSkillId } from '../../core/workspace/identity';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from '../../core/workspace/read';
import { parse } from '../args';
import { EXIT, UsageError, exitCodeFor } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { formatFinding, withStore } from '../store';

const importUsage = `Usage: skillbench import PATH... --namespace NS [--workspace DIR] [--overwrite] [--dry-run] [--json]

Converts Agent Skills folders (a SKILL.md with YAML frontmatter and a markdown
body, plus reference files) into V1 packages at skills/packages/NS/<name>.json
of the workspace. PATH is a SKILL.md, the folder holding one, or a folder of
such folders (each of its subfolders with a SKILL.md is imported).

The frontmatter's name and description become the package's; the body and the
folder's markdown files become resources, split at the V1 limits on heading
boundaries. Scripts, binaries, other files and frontmatter keys V1 has no field
for are left out and listed. Every forced change (a description shortened, a
body split, a <script> tag escaped, a credential-looking value redacted, a file
left out) is printed per skill and summarised in the package's change_reason.
No activation example is invented: the report says the package needs them.

  --namespace NS   the namespace to import into (required)
  --workspace DIR  the workspace folder (default: the working directory)
  --overwrite      replace package files that exist with different content
                   (default: nothing is written when one does)
  --dry-run        convert and report; write nothing
  --json           print {format, namespace, dry_run, imported: [{skill, file,
                   conversions: [{field, change, reason}], valid, ...}], failed}

Exit status: 0 when every skill is imported and valid, 1 when a package is
invalid or a SKILL.md cannot be converted, 2 on usage errors, 4 when a package
file exists with different content (nothing written), 5 when a PATH or its
SKILL.md does not exist.`;

const exportUsage = `Usage: skillbench export NS/NAME|FILE --to DIR [--from CONN] [--overwrite] [--json]

Writes DIR/<name>/SKILL.md (frontmatter name and description, the body from the
display name, the instruction fields and the resources) and DIR/<name>/references/
(one markdown file per resource, listed with its description and load condition),
so a skill authored here can be used where SKILL.md is read. Importing the folder
gives the same package except domains, tags, activation examples and
change_reason, which SKILL.md has no place for (the report lists them).

NS/NAME is read from a store (the published revision); FILE is a package file
.../<namespace>/<name>.json.

  --to DIR      the folder to write <name>/ into (created when missing)
  --from CONN   the store NS/NAME is read from (default: the local registry)
  --overwrite   replace an existing DIR/<name>/SKILL.md and reference files
  --json        print {format, skill, dir, files, conversions, kept}

Exit status: 0 on success, 1 when FILE is not a valid package, 2 on usage errors,
4 when DIR/<name>/SKILL.md exists (nothing written), 5 when the skill is not found.`;

function conversionLine(c: Conversion): string {
  const paths = c.paths && c.paths.length > 0 ? ` [${c.paths.slice(0, 8).join(', ')}${c.paths.length > 8 ? `, and ${c.paths.length - 8} more` : ''}]` : '';
  return `  ${c.change.replace('_', ' ')} ${c.field}: ${c.reason}${paths}`;
}

function printImport(io: CliIo, report: SkillImportReport): void {
  for (const s of report.imported) {
    const state = report.dry_run ? (s.status === 'exists' ? 'exists with other content, not replaced' : `would be ${s.status === 'new' ? 'written' : s.status}`) : s.status === 'unchanged' ? 'unchanged' : s.status === 'replaced' ? 'replaced' : 'written';
    say(io, `${s.skill} <- ${s.source}: ${s.file} ${state}; ${s.valid ? 'valid' : 'INVALID'}, ${s.resources} resource${s.resources === 1 ? '' : 's'}, ${s.bytes.toLocaleString('en-US')} bytes`);
    for (const c of s.conversions) say(io, conversionLine(c));
    for (const f of [...s.errors, ...s.warnings]) say(io, `  ${formatFinding(s.file, f)}`);
  }
  for (const f of report.failed) say(io, `${f.source}: ${f.location ? `${f.location}: ` : ''}${f.message}`);
  const exists = report.imported.filter((s) => s.status === 'exists');
  if (exists.length > 0) say(io, `nothing written: ${exists.map((s) => s.file).join(', ')} exist${exists.length === 1 ? 's' : ''} with other content; pass --overwrite to replace ${exists.length === 1 ? 'it' : 'them'}`);
  else if (report.failed.some((f) => f.code === 'conflict')) say(io, 'nothing written: two folders give the same name');
}

async function runImport(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    namespace: { type: 'string' },
    workspace: { type: 'string' },
    overwrite: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (positionals.length === 0) throw new UsageError('expected at least one PATH (a SKILL.md or the folder holding one)');
  if (values.namespace === undefined) throw new UsageError('--namespace NS is required: the namespace the skills are imported into');
  const report = await importSkills(await expandSkillPaths(positionals, io.cwd), {
    namespace: values.namespace,
    workspace: resolve(io.cwd, values.workspace ?? '.'),
    cwd: io.cwd,
    overwrite: values.overwrite === true,
    dryRun: values['dry-run'] === true,
  }).catch((error: unknown) => {
    if (error instanceof WorkbenchError && error.code === 'invalid_request') throw new UsageError(error.message);
    throw error;
  });
  printImport(io, report);
  if (values.json) printJsonDocument(io, 'import', report);
  if (report.imported.some((s) => s.status === 'exists') || report.failed.some((f) => f.code === 'conflict')) return EXIT.conflict;
  if (report.failed.some((f) => f.code === 'not_found')) return EXIT.notFound;
  if (report.failed.length > 0 || report.imported.some((s) => !s.valid)) return EXIT.invalid;
  return EXIT.ok;
}

/** Reads a package file for export: its identity from the path, and its normalized package (refused when invalid). */
async function packageFile(io: CliIo, path: string): Promise<{ id: SkillId; pkg: SkillPackage } | number> {
  const { id, problem } = identityFromPath(path);
  if (problem) throw new UsageError(`${path}: ${problem}`);
  const bytes = await readFileBounded(resolve(io.cwd, path), PACKAGE_FILE_MAX_BYTES, path);
  const result = validatePackage(bytes, { id });
  if (!result.valid || !result.normalized) {
    for (const f of result.errors) say(io, formatFinding(path, f));
    say(io, `skillbench export: ${path} is not a valid V1 package: fix it first`);
    return EXIT.invalid;
  }
  return { id, pkg: result.normalized };
}

async function runExport(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    to: { type: 'string' },
    from: { type: 'string' },
    overwrite: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('expected exactly one NS/NAME or package FILE');
  if (values.to === undefined) throw new UsageError('--to DIR is required: the folder the skill folder is written into');
  const target = positionals[0]!;
  const json = values.json === true;
  const write = async (id: SkillId, pkg: SkillPackage): Promise<number> => {
    try {
      const report = await writeSkillExport(pkg, id, resolve(io.cwd, values.to!), { overwrite: values.overwrite === true });
      say(io, `${report.skill} -> ${report.dir}: ${report.files.map((f) => f.path).join(', ')}`);
      for (const c of report.conversions) say(io, conversionLine(c));
      if (report.kept.length > 0) say(io, `  left in place (not part of this export): ${report.kept.join(', ')}`);
      if (json) printJsonDocument(io, 'export', report);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof WorkbenchError)) throw error;
      say(io, `skillbench export: ${error.message}`);
      if (json) printJsonDocument(io, 'error', { error: error.toJSON() });
      return exitCodeFor(error);
    }
  };
  if (target.toLowerCase().endsWith('.json')) {
    if (values.from !== undefined) throw new UsageError('--from applies to NS/NAME, not to a package FILE');
    const file = await packageFile(io, target);
    return typeof file === 'number' ? file : write(file.id, file.pkg);
  }
  const id = parseSkillId(target);
  if (!id) throw new UsageError(`'${target}' is neither NS/NAME (two slugs) nor a package file .../<namespace>/<name>.json`);
  return withStore(io, values.from, { command: 'export', json }, async (store) => write(id, (await store.getPublished(id)).package));
}

/** The `import` command. */
export const importCommand: Command = { summary: 'Convert Agent Skills SKILL.md folders into V1 packages of the workspace', usage: importUsage, run: runImport };

/** The `export` command. */
export const exportCommand: Command = { summary: 'Write a V1 package as an Agent Skills folder (SKILL.md and references/)', usage: exportUsage, run: runExport };
