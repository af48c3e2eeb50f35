/**
 * Strict argument parsing on top of `node:util` parseArgs: unknown flags and
 * missing values are usage errors (exit 2) with a message naming the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WorkbenchError } from '../core/errors';
import { safeParseModelSpec } from '../core/models/spec';
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

/**
 * A positive integer as typed, exactly: digits that a double would round (past
 * 2^53 - 1) are refused rather than silently read as a neighbouring number.
 */
function exactPositive(digits: string, flag: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag}: ${digits.length > 40 ? `${digits.slice(0, 40)}…` : digits} is too large (at most ${Number.MAX_SAFE_INTEGER})`);
  return n;
}

/** Parses a positive integer flag value (at most `max` when given, and never past 2^53 - 1) or throws a usage error naming the flag and its bound. */
export function positiveInt(value: string | undefined, flag: string, max?: number): number | undefined {
  if (value === undefined) return undefined;
  const bound = max === undefined ? '' : ` up to ${max}`;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`${flag} must be a positive integer${bound}, got '${value}'`);
  if (max !== undefined && !(Number(value) <= max)) throw new UsageError(`${flag} must be a positive integer${bound}, got '${value}'`);
  return exactPositive(value, flag);
}

/** Parses `FROM-TO` (positive integers, each at most 2^53 - 1) or throws a usage error naming the flag. */
export function positiveIntRange(value: string, flag: string): { from: number; to: number } {
  const m = /^([1-9][0-9]*)-([1-9][0-9]*)$/.exec(value);
  if (!m) throw new UsageError(`${flag} must be FROM-TO with positive integers, got '${value}'`);
  return { from: exactPositive(m[1]!, flag), to: exactPositive(m[2]!, flag) };
}

/** Parses a fraction flag value from 0 to 1 or throws a usage error naming the flag. */
export function fraction(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`${flag} must be a number from 0 to 1, got '${value}'`);
  return n;
}

/** `--json` with no value (end of arguments or another flag next) means stdout (`-`). */
export function normalizeJsonArg(args: string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    out.push(arg);
    const next = args[i + 1];
    if (arg === '--json' && (next === undefined || next.startsWith('--'))) out.push('-');
  });
  return out;
}

/**
 * Awaits a step that reports bad input as `invalid_request` and turns that
 * into a usage error (exit 2); an unreadable file is prefixed with its flag.
 */
export async function asUsage<T>(step: Promise<T>, flag?: string): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (!(error instanceof WorkbenchError) || error.code !== 'invalid_request') throw error;
    throw new UsageError(flag !== undefined && error.details?.['reason'] === 'unreadable' ? `${flag}: ${error.message}` : error.message);
  }
}

/**
 * The `--model` specs of a command: at least one, none twice, each a valid
 * spec; otherwise a usage error naming the problem.
 */
export function modelSpecs(values: string[] | undefined, flag = '--model'): string[] {
  const specs = values ?? [];
  if (specs.length === 0) throw new UsageError(`give at least one ${flag} SPEC (for example ${flag} baseline:lexical)`);
  if (new Set(specs).size !== specs.length) throw new UsageError(`${flag}: the same spec is given twice`);
  for (const spec of specs) {
    const parsed = safeParseModelSpec(spec);
    if (!parsed.success) throw new UsageError(flag === '--model' ? parsed.error.message : `${flag}: ${parsed.error.message}`);
  }
  return specs;
}
