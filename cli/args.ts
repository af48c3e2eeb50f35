/**
 * Strict argument parsing on top of `node:util` parseArgs: unknown flags and
 * missing values are usage errors (exit 2) with a message naming the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './exit';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `args` against `options`; throws {@link UsageError} on anything unexpected. */
export function parse<O extends Options>(args: string[], options: O, opts: { allowPositionals?: boolean } = {}) {
  try {
    return parseArgs({ args, options, allowPositionals: opts.allowPositionals ?? true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Parses a positive integer flag value or throws a usage error naming the flag. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`${flag} must be a positive integer, got '${value}'`);
  return Number(value);
}
