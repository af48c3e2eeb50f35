/**
 * `skillbench.config.json`: a project's defaults, so a team's CI and the
 * workbench share one evaluation setup. Looked for in the working directory,
 * then each parent folder; the first found applies. Precedence, for each value:
 * a flag on the command line, then an environment variable, then this file,
 * then the built-in default.
 *
 * ```json
 * { "connection": "staging", "models": ["baseline:lexical"],
 *   "gates": { "min_accuracy": 0.9, "min_recall": 0.8, "min_precision": 0.8, "fail_on_regression": true },
 *   "limits": { "repeats": 3, "concurrency": 4, "timeout_ms": 30000 } }
 * ```
 *
 * The defaults become flags of the commands that take them, so a command sees
 * exactly what the same flags typed out would give it.
 */
import { dirname, join } from 'node:path';
import { WorkbenchError } from '../core/errors';
import { readFileBounded } from '../core/workspace/read';
import { MAX_PROJECT_CONFIG_BYTES, PROJECT_CONFIG_FILE, parseProjectConfig, type ProjectConfig } from '../core/workspace/projectConfig';
import { COMMAND_TABLE, CONNECTION_FLAGS, flagInfo } from './commandTable';
import { UsageError } from './exit';
import type { CliIo } from './io';

export { PROJECT_CONFIG_FILE as CONFIG_FILE, type ProjectConfig } from '../core/workspace/projectConfig';
/** Overrides the file's `connection`. */
export const CONNECTION_ENV = 'SKILLBENCH_CONNECTION';
/** Overrides the file's `models`: specs separated by commas. */
export const MODELS_ENV = 'SKILLBENCH_MODELS';

/** Finds and reads the project file from `cwd` upwards; undefined when there is none. Reads only; creates nothing. A bad file is a usage error naming it and the setting. */
export async function loadProjectConfig(cwd: string): Promise<{ file: string; config: ProjectConfig } | undefined> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, PROJECT_CONFIG_FILE);
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readFileBounded(file, MAX_PROJECT_CONFIG_BYTES, PROJECT_CONFIG_FILE);
    } catch (error) {
      if (!(error instanceof WorkbenchError && error.code === 'not_found')) throw error;
    }
    if (bytes !== undefined) {
      try {
        return { file, config: parseProjectConfig(file, bytes) };
      } catch (error) {
        if (error instanceof WorkbenchError && error.details?.['reason'] === 'project_config') throw new UsageError(error.message);
        throw error;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

const has = (args: readonly string[], flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/**
 * The command line with the project's defaults added as flags where the
 * command takes them and the user gave none: environment variables first,
 * then the file.
 */
export async function withProjectDefaults(name: string, args: readonly string[], io: CliIo): Promise<string[]> {
  const spec = COMMAND_TABLE[name];
  if (!spec) return [...args];
  const flags = spec.flags.map(flagInfo);
  const takes = (flag: string, value?: string) => flags.some((f) => f.name === flag && (value === undefined || f.value === value));
  const connectionFlags = flags.filter((f) => CONNECTION_FLAGS.includes(f.name) && (f.value === 'CONN' || f.value === 'CONN_OR_DIR'));
  const wantsConfig = connectionFlags.length > 0 || takes('--model', 'SPEC');
  if (!wantsConfig) return [...args];
  const loaded = await loadProjectConfig(io.cwd);
  const config = loaded?.config ?? {};
  const out = [...args];
  const envConnection = io.env[CONNECTION_ENV]?.trim();
  const connection = envConnection || config.connection;
  if (connection !== undefined) for (const f of connectionFlags) if (!has(out, f.name)) out.push(f.name, connection);
  // The models of eval, optimize and select (analyze's --model is its advisor, not an evaluated model).
  if (name !== 'analyze' && takes('--model', 'SPEC') && !has(out, '--model')) {
    const envModels = io.env[MODELS_ENV]
      ?.split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    for (const model of envModels && envModels.length > 0 ? envModels : (config.models ?? [])) out.push('--model', model);
  }
  const numeric: [string, number | undefined][] = [
    ['--min-accuracy', config.gates?.min_accuracy],
    ['--min-recall', config.gates?.min_recall],
    ['--min-precision', config.gates?.min_precision],
    ['--repeats', config.limits?.repeats],
    ['--concurrency', config.limits?.concurrency],
    ['--timeout', config.limits?.timeout_ms],
  ];
  for (const [flag, value] of numeric) if (value !== undefined && takes(flag) && !has(out, flag)) out.push(flag, String(value));
  if (config.gates?.fail_on_regression === true && takes('--fail-on-regression') && !has(out, '--fail-on-regression')) out.push('--fail-on-regression');
  return out;
}
