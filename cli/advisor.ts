/**
 * The options `analyze` and `registry serve` share to compose the default
 * authoring advisor: the model spec, the reasoning-effort intent, additional
 * guidance from a file, and the output ceiling.
 */
import { resolve } from 'node:path';
import { createDefaultAdvisor } from '../core/advisor/index';
import type { ReasoningEffort } from '../core/advisor/index';
import type { AuthoringAdvisor } from '../core/admin/types';
import { WorkbenchError } from '../core/errors';
import { openModel, safeParseModelSpec } from '../core/models/index';
import type { ModelClient } from '../core/models/types';
import { GUIDANCE_LIMITS } from '../core/selector/guidance';
import { readFileBounded } from '../core/workspace/read';
import { positiveInt } from './args';
import { UsageError } from './exit';
import type { CliIo } from './io';

/** The advisor settings as parsed from flags. */
export interface AdvisorFlags {
  model: string;
  reasoningEffort?: string;
  guidanceFile?: string;
  maxOutputTokens?: string;
  timeout?: string;
}

/** An open advisor and the model client behind it. */
export interface OpenAdvisor {
  advisor: AuthoringAdvisor;
  model: ModelClient;
  close(): Promise<void>;
}

const EFFORTS: readonly string[] = ['low', 'medium', 'high', 'none'];

/** Checks the flags before anything is opened (usage errors name the flag). */
export function checkAdvisorFlags(flags: AdvisorFlags, prefix: string): void {
  const spec = safeParseModelSpec(flags.model);
  if (!spec.success) throw new UsageError(`${prefix === '' ? '--model' : `--${prefix.replace(/-$/, '')}`}: ${spec.error.message}`);
  if (flags.reasoningEffort !== undefined && !EFFORTS.includes(flags.reasoningEffort)) {
    throw new UsageError(`--${prefix}reasoning-effort must be low, medium, high or none, got '${flags.reasoningEffort}'`);
  }
  positiveInt(flags.maxOutputTokens, `--${prefix}max-output-tokens`);
  positiveInt(flags.timeout, `--${prefix}timeout`);
}

/** Reads the guidance file: at most 4,096 bytes of UTF-8 (its token bound is checked by the advisor). */
async function readGuidance(file: string, io: CliIo, flag: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileBounded(resolve(io.cwd, file), GUIDANCE_LIMITS.maxBytes, file);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${flag}: ${file} is not UTF-8 text`);
  }
}

/**
 * Opens the model and composes the default advisor. `prefix` is the flag
 * prefix (`advisor-` for `registry serve`, '' for `analyze`), for messages.
 * Refused guidance is a usage error naming the bound it breaks.
 */
export async function openAdvisor(flags: AdvisorFlags, io: CliIo, prefix: string): Promise<OpenAdvisor> {
  checkAdvisorFlags(flags, prefix);
  const guidance = flags.guidanceFile !== undefined ? await readGuidance(flags.guidanceFile, io, `--${prefix}guidance-file`) : undefined;
  const timeoutMs = positiveInt(flags.timeout, `--${prefix}timeout`) ?? 120_000;
  const maxOutputTokens = positiveInt(flags.maxOutputTokens, `--${prefix}max-output-tokens`);
  const effort = flags.reasoningEffort as ReasoningEffort | 'none' | undefined;
  const model = await openModel(flags.model, { env: io.env, timeoutMs, retries: { retryOn: ['server'] } });
  try {
    const advisor = createDefaultAdvisor({
      model,
      ...(effort !== undefined && { reasoningEffort: effort === 'none' ? null : effort }),
      ...(guidance !== undefined && { guidance }),
      ...(maxOutputTokens !== undefined && { maxOutputTokens }),
    });
    return { advisor, model, close: async () => model.close?.() };
  } catch (error) {
    await model.close?.();
    if (error instanceof WorkbenchError && error.code === 'invalid_request') throw new UsageError(`--${prefix}guidance-file: ${error.message}`);
    throw error;
  }
}
