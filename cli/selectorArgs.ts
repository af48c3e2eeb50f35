/**
 * Selector arguments shared by `select` and `eval`: a JSON value given inline
 * or as a file (`--bindings`, `--limits`), read bounded and refused with the
 * flag's name.
 */
import { resolve } from 'node:path';
import { resolveSelectorLimits, type SelectorLimits } from '../core/selector/limits';
import { SIDE_FILE_MAX_BYTES, readTextBounded } from '../core/workspace/read';
import { UsageError } from './exit';
import type { CliIo } from './io';

/** Reads an argument that is either inline JSON (starting with `lead`) or a file path. */
export async function jsonArg(value: string, lead: string, io: CliIo, flag: string): Promise<{ text: string; source: string }> {
  if (value.trimStart().startsWith(lead)) return { text: value, source: flag };
  try {
    return { text: await readTextBounded(resolve(io.cwd, value), SIDE_FILE_MAX_BYTES, value), source: value };
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

/**
 * `--limits FILE_OR_JSON`: selector limits (guide 9.10) as a JSON object, the
 * defaults filled in; a usage error naming each bad field otherwise.
 */
export async function readLimitsArg(value: string | undefined, io: CliIo): Promise<{ limits: SelectorLimits; given: Record<string, unknown> } | undefined> {
  if (value === undefined) return undefined;
  const { text, source } = await jsonArg(value, '{', io, '--limits');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source}: invalid JSON: ${(error as Error).message}`);
  }
  const result = resolveSelectorLimits(parsed);
  if (!result.ok) throw new UsageError(`invalid limits:\n${result.issues.map((i) => `  ${source}: ${i.path}: ${i.message}`).join('\n')}`);
  return { limits: result.limits, given: parsed as Record<string, unknown> };
}
