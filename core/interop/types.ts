/**
 * The types of Agent Skills (`SKILL.md`) import and export: what a skill
 * folder holds once read, and the report of every change a conversion had to
 * make. The CLI's `--json`, the WorkbenchApi and the workbench's import dialog
 * all carry these same objects.
 *
 * Isomorphic: no `node:` imports.
 */
import type { Finding, SkillPackage } from '../package/types';

/** The `format` tag of an import report. */
export const IMPORT_REPORT_FORMAT = 'skillbench.import/v1';

/** The `format` tag of an export report. */
export const EXPORT_REPORT_FORMAT = 'skillbench.export/v1';

/**
 * What a conversion did to one part of a skill:
 * - `shortened`: text cut to fit a V1 limit (the cut text is in the reason);
 * - `split`: one text became several resources at heading boundaries;
 * - `escaped`: characters V1 validation reads as executable content were escaped;
 * - `redacted`: a value V1 validation reads as a credential was replaced with a placeholder;
 * - `left_out`: a file, frontmatter key or field the target format cannot carry;
 * - `renamed`: a name that is not a V1 slug was turned into one;
 * - `derived`: a field the source format lacks was filled from what it has;
 * - `added`: text the target format requires was written (and says so);
 * - `needed`: something the package still needs from its author (activation examples).
 */
export type ConversionChange = 'shortened' | 'split' | 'escaped' | 'redacted' | 'left_out' | 'renamed' | 'derived' | 'added' | 'needed';

/** One change a conversion made, and why. */
export interface Conversion {
  /** What it applies to: a package field (`description`, `resources.instructions-2`), a frontmatter key (`frontmatter.license`) or the folder's files (`files`). */
  field: string;
  change: ConversionChange;
  /** One or two sentences a user can act on. */
  reason: string;
  /** The files concerned, relative to the skill folder (`/` separators), when the change is about files. */
  paths?: string[];
}

/** How a file of a skill folder was classified when it was read. */
export type FolderFileKind =
  /** A markdown file (`.md`, `.markdown`), read. */
  | 'markdown'
  /** A program or shell script (by extension, or an executable text file). */
  | 'script'
  /** Not text (a NUL byte or invalid UTF-8 in its first bytes, or a known binary extension). */
  | 'binary'
  /** Text that is not markdown: templates, licences, data files. */
  | 'text'
  /** Larger than the read limit: not read. */
  | 'too_large'
  /** A symbolic link whose target is outside the skill folder: never read. */
  | 'outside'
  /** Anything else that could not be read (a FIFO, a device, permission denied). */
  | 'unreadable';

/** One file of a skill folder other than SKILL.md. */
export interface FolderFile {
  /** Path relative to the skill folder, `/` separators. */
  path: string;
  kind: FolderFileKind;
  /** Size in bytes as found (0 when unknown). */
  bytes: number;
  /** The text of a `markdown` file. */
  text?: string;
  /** Why it is `unreadable`, `too_large` or `outside`. */
  note?: string;
}

/** A skill folder as read from disk: the input of {@link SkillFolder} conversion. */
export interface SkillFolder {
  /** How the folder is named in messages (the path as the user gave it). */
  label: string;
  /** The folder's own name (a fallback for a missing frontmatter `name`). */
  folderName: string;
  /** The text of SKILL.md. */
  skillMd: string;
  /** Every other file found, in path order. */
  files: FolderFile[];
  /** What the walk did not examine (too many entries, too deep), as conversions. */
  skipped: Conversion[];
}

/** A summary of a package's validation for a report. */
export interface ValidationSummary {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** One imported skill, as reported. */
export interface ImportedSkill {
  /** `namespace/name`. */
  skill: string;
  /** Where the package is (or would be) written, relative to the workspace: `skills/packages/<namespace>/<name>.json`. */
  file: string;
  /** The SKILL.md folder as the user named it. */
  source: string;
  /** Every change the conversion made, in the order it made them. */
  conversions: Conversion[];
  /** Whether the package passes V1 validation (warnings allowed). */
  valid: boolean;
  /** Validation findings: errors (which make it invalid) and warnings. */
  errors: Finding[];
  warnings: Finding[];
  /** Resources in the package, and its size in bytes as written. */
  resources: number;
  bytes: number;
  /**
   * What happens to the file: `new` (written, or would be), `replaced` (an
   * existing different file, with overwrite), `unchanged` (the same bytes are
   * there), `exists` (a different file is there and overwrite was not asked:
   * nothing written).
   */
  status: 'new' | 'replaced' | 'unchanged' | 'exists';
  /** True once the file is on disk with these bytes (false in a preview). */
  written: boolean;
}

/** A skill folder that could not be converted at all (no SKILL.md, bad frontmatter). */
export interface ImportFailure {
  source: string;
  /** `not_found` (no such path, no SKILL.md), `invalid_skill` (nothing to convert), `conflict` (a name given twice), or the read error's code. */
  code: string;
  /** `SKILL.md:3:7` style location when there is one. */
  location?: string;
  message: string;
}

/** The report of `skillbench import` and of the workbench's import. */
export interface SkillImportReport {
  format: typeof IMPORT_REPORT_FORMAT;
  namespace: string;
  /** True when nothing was written (a preview, or a conflict stopped the import). */
  dry_run: boolean;
  imported: ImportedSkill[];
  failed: ImportFailure[];
}

/** One file an export writes. */
export interface ExportedFile {
  /** Path relative to the export folder `DIR/<name>`, `/` separators. */
  path: string;
  bytes: number;
}

/** The report of `skillbench export` and of the workbench's export. */
export interface SkillExportReport {
  format: typeof EXPORT_REPORT_FORMAT;
  /** `namespace/name` of the package exported. */
  skill: string;
  /** The folder written (`DIR/<name>`), as an absolute path. */
  dir: string;
  files: ExportedFile[];
  /** What SKILL.md cannot carry and was left out, and how resources were placed. */
  conversions: Conversion[];
  /** Files already in the folder that the export did not write (left in place). */
  kept: string[];
  dry_run: boolean;
}

/** A package converted from a skill folder, before it is written. */
export interface ConvertedSkill {
  name: string;
  package: SkillPackage;
  /** The package file's text as it is written (pretty JSON, final newline). */
  text: string;
  conversions: Conversion[];
  validation: ValidationSummary;
}
