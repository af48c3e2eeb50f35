/**
 * `skillbench.config.json`: a project's evaluation defaults (connection,
 * models, gates, limits), so a team's CI, everyone's command line and the
 * workbench run one setup. This module checks the file; the CLI looks for it
 * from the working folder upwards (cli/projectConfig.ts), the workbench reads
 * the one at the open workspace's root (`workspace.projectConfig`).
 *
 * ```json
 * { "connection": "staging", "models": ["baseline:lexical"],
 *   "gates": { "min_accuracy": 0.9, "min_recall": 0.8, "min_precision": 0.8, "fail_on_regression": true },
 *   "limits": { "repeats": 3, "concurrency": 4, "timeout_ms": 30000 } }
 * ```
 *
 * Isomorphic: no node: imports.
 */
import { WorkbenchError } from '../errors';

/** The project file's name. */
export const PROJECT_CONFIG_FILE = 'skillbench.config.json';

/** Bound on the project file's size. */
export const MAX_PROJECT_CONFIG_BYTES = 64 * 1024;

/** The file's contents, checked. */
export interface ProjectConfig {
  connection?: string;
  models?: string[];
  gates?: { min_accuracy?: number; min_recall?: number; min_precision?: number; fail_on_regression?: boolean };
  limits?: { repeats?: number; concurrency?: number; timeout_ms?: number };
}

/**
 * A problem in the project file: `invalid`, with the file and the JSON
 * pointer of the setting in `details`, and a message reading
 * `<file>: <pointer>: <what is wrong>`.
 */
function fail(file: string, pointer: string, message: string): never {
  throw new WorkbenchError('invalid', `${file}: ${pointer}: ${message}`, { details: { file, pointer, reason: 'project_config' } });
}

function objectAt(file: string, value: unknown, pointer: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(file, pointer || '/', 'expected an object');
  for (const key of Object.keys(value)) if (!keys.includes(key)) fail(file, `${pointer}/${key}`, `unknown setting (known: ${keys.join(', ')})`);
  return value as Record<string, unknown>;
}

/** Checks a parsed file (`file` names it in errors); every problem names its JSON pointer. */
export function checkProjectConfig(file: string, raw: unknown): ProjectConfig {
  const top = objectAt(file, raw, '', ['$schema', 'connection', 'models', 'gates', 'limits']);
  const config: ProjectConfig = {};
  if (top['connection'] !== undefined) {
    if (typeof top['connection'] !== 'string' || top['connection'].trim() === '') fail(file, '/connection', 'expected a saved connection name or a connection string');
    config.connection = top['connection'];
  }
  if (top['models'] !== undefined) {
    const models = top['models'];
    if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m === 'string' && m.trim() !== '')) fail(file, '/models', 'expected a non-empty array of model specs');
    config.models = models as string[];
  }
  if (top['gates'] !== undefined) {
    const gates = objectAt(file, top['gates'], '/gates', ['min_accuracy', 'min_recall', 'min_precision', 'fail_on_regression']);
    config.gates = {};
    for (const key of ['min_accuracy', 'min_recall', 'min_precision'] as const) {
      const v = gates[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) fail(file, `/gates/${key}`, 'expected a number from 0 to 1');
      config.gates[key] = v;
    }
    if (gates['fail_on_regression'] !== undefined) {
      if (typeof gates['fail_on_regression'] !== 'boolean') fail(file, '/gates/fail_on_regression', 'expected true or false');
      config.gates.fail_on_regression = gates['fail_on_regression'];
    }
  }
  if (top['limits'] !== undefined) {
    const limits = objectAt(file, top['limits'], '/limits', ['repeats', 'concurrency', 'timeout_ms']);
    config.limits = {};
    for (const key of ['repeats', 'concurrency', 'timeout_ms'] as const) {
      const v = limits[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) fail(file, `/limits/${key}`, 'expected a positive integer');
      config.limits[key] = v;
    }
  }
  return config;
}

/** Decodes (strict UTF-8), parses and checks the file's bytes. */
export function parseProjectConfig(file: string, bytes: Uint8Array): ProjectConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    fail(file, '/', `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return checkProjectConfig(file, raw);
}
