/**
 * Icons of the workbench: VS Code's own codicons (`@vscode/codicons`), each
 * SVG emitted as a file and drawn as a CSS mask in the text colour, so an icon
 * follows the theme, hover and selection like the text beside it. Only the
 * icons named here are bundled.
 */
import add from '@vscode/codicons/src/icons/add.svg?url';
import beaker from '@vscode/codicons/src/icons/beaker.svg?url';
import database from '@vscode/codicons/src/icons/database.svg?url';
import diff from '@vscode/codicons/src/icons/diff.svg?url';
import edit from '@vscode/codicons/src/icons/edit.svg?url';
import file from '@vscode/codicons/src/icons/file.svg?url';
import fileCode from '@vscode/codicons/src/icons/file-code.svg?url';
import folder from '@vscode/codicons/src/icons/folder.svg?url';
import gitMerge from '@vscode/codicons/src/icons/git-merge.svg?url';
import gitPullRequest from '@vscode/codicons/src/icons/git-pull-request.svg?url';
import history from '@vscode/codicons/src/icons/history.svg?url';
import json from '@vscode/codicons/src/icons/json.svg?url';
import library from '@vscode/codicons/src/icons/library.svg?url';
import lock from '@vscode/codicons/src/icons/lock.svg?url';
import pulse from '@vscode/codicons/src/icons/pulse.svg?url';
import question from '@vscode/codicons/src/icons/question.svg?url';
import refresh from '@vscode/codicons/src/icons/refresh.svg?url';
import table from '@vscode/codicons/src/icons/table.svg?url';
import terminal from '@vscode/codicons/src/icons/terminal.svg?url';

const ICONS = {
  add,
  beaker,
  database,
  diff,
  edit,
  file,
  'file-code': fileCode,
  folder,
  'git-merge': gitMerge,
  'git-pull-request': gitPullRequest,
  history,
  json,
  library,
  lock,
  pulse,
  question,
  refresh,
  table,
  terminal,
} as const;

/** The name of a bundled codicon. */
export type IconName = keyof typeof ICONS;

/** Whether `name` is a bundled codicon (an activity or tab may still give a text glyph). */
export function isIconName(name: string): name is IconName {
  return Object.prototype.hasOwnProperty.call(ICONS, name);
}

/** One codicon, `size` pixels square, in the current text colour; decorative (its control carries the name). */
export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  const url = `url("${ICONS[name]}")`;
  return (
    <span
      className={`icon${className ? ` ${className}` : ''}`}
      aria-hidden="true"
      data-icon={name}
      style={{ width: size, height: size, maskImage: url, WebkitMaskImage: url }}
    />
  );
}

/** A codicon when `glyph` names one, else the text glyph itself. */
export function Glyph({ glyph, size }: { glyph: string; size?: number }) {
  return isIconName(glyph) ? <Icon name={glyph} {...(size !== undefined && { size })} /> : <span aria-hidden="true">{glyph}</span>;
}
