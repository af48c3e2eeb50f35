/**
 * Model specs: the one-line strings that name a model everywhere (CLI flags,
 * eval suites, saved profiles). Grammar:
 *
 * ```
 * spec      = single | chain
 * chain     = "chain:" single *("," single)          ; failover order, left to right
 * single    = hosted | compatible | llama | baseline
 * hosted    = ("openai" | "anthropic" | "groq") ":" model   ; model = literal id or alias
 * compatible= "openai-compatible:" http-url "#" model
 * llama     = "llama-cpp:" path ".gguf" ["?" param *("&" param)]   ; grammar=0|1, seed=N
 * baseline  = "baseline:" ("lexical" | "embedding")
 * ```
 *
 * No whitespace anywhere; a `,` separates chain members, so a member cannot
 * contain one. Keys never go into a spec: a URL with credentials is rejected.
 */
import { ModelSpecError } from './errors';

/** Hosted providers reached over HTTP through the AI SDK. */
export type HostedProviderId = 'openai' | 'anthropic' | 'groq' | 'openai-compatible';

/** `openai:…`, `anthropic:…`, `groq:…`: `model` is a literal id or an alias, as written. */
export interface NamedProviderSpec {
  kind: 'hosted';
  provider: 'openai' | 'anthropic' | 'groq';
  model: string;
  spec: string;
}

/** `openai-compatible:<baseUrl>#<model>` (Ollama, vLLM, LM Studio, llama.cpp server). */
export interface CompatibleProviderSpec {
  kind: 'hosted';
  provider: 'openai-compatible';
  baseUrl: string;
  model: string;
  spec: string;
}

/** A hosted provider spec. */
export type HostedSpec = NamedProviderSpec | CompatibleProviderSpec;

/** `llama-cpp:<path>.gguf[?grammar=1&seed=N]`: a local GGUF model run in-process. */
export interface LlamaCppSpec {
  kind: 'llama-cpp';
  path: string;
  /** Grammar-constrained JSON decoding; unset leaves the choice to the request (on when it carries a jsonSchema). */
  grammar?: boolean;
  seed?: number;
  spec: string;
}

/** `baseline:lexical` or `baseline:embedding`: deterministic, not a language model. */
export interface BaselineSpec {
  kind: 'baseline';
  baseline: 'lexical' | 'embedding';
  spec: string;
}

/** One model (anything but a chain). */
export type SingleModelSpec = HostedSpec | LlamaCppSpec | BaselineSpec;

/** `chain:a,b,…`: try members in order, failing over per the error policy. */
export interface ChainSpec {
  kind: 'chain';
  members: Array<HostedSpec | LlamaCppSpec>;
  spec: string;
}

/** A parsed model spec. */
export type ModelSpec = SingleModelSpec | ChainSpec;

/** The spec prefixes, for messages and the UI. */
export const SPEC_PREFIXES = ['openai', 'anthropic', 'groq', 'openai-compatible', 'llama-cpp', 'baseline', 'chain'] as const;

const MAX_SPEC_LENGTH = 4096;
const MAX_SEED = 0xffffffff;

/** Result of {@link safeParseModelSpec}. */
export type ModelSpecResult = { success: true; output: ModelSpec } | { success: false; error: ModelSpecError };

/** Parses a spec without throwing. */
export function safeParseModelSpec(spec: unknown): ModelSpecResult {
  try {
    return { success: true, output: parseModelSpec(spec) };
  } catch (error) {
    if (error instanceof ModelSpecError) return { success: false, error };
    throw error;
  }
}

/**
 * Parses a model spec. Throws a {@link ModelSpecError} naming the offending
 * column for anything that does not follow the grammar in this module's header.
 */
export function parseModelSpec(spec: unknown): ModelSpec {
  if (typeof spec !== 'string') throw new ModelSpecError(String(spec), 0, 'a model spec must be a string');
  if (spec.length === 0) throw new ModelSpecError(spec, 0, 'the spec is empty; write e.g. openai:fast');
  if (spec.length > MAX_SPEC_LENGTH) throw new ModelSpecError(spec, MAX_SPEC_LENGTH, `a spec is at most ${MAX_SPEC_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- rejecting control characters is the point
  const bad = /[\s\u0000-\u001f\u007f]/u.exec(spec);
  if (bad) {
    const what = /\s/.test(bad[0]) ? 'whitespace' : 'a control character';
    throw new ModelSpecError(spec, bad.index, `${what} is not allowed in a model spec`);
  }
  const colon = spec.indexOf(':');
  const prefix = colon < 0 ? spec : spec.slice(0, colon);
  if (prefix === 'chain' && colon >= 0) return parseChain(spec, colon + 1);
  return parseSingle(spec, 0, spec.length, false);
}

function parseChain(spec: string, start: number): ChainSpec {
  if (start >= spec.length) throw new ModelSpecError(spec, start, 'a chain lists at least one model after chain:, e.g. chain:openai:fast,anthropic:fast');
  const members: Array<HostedSpec | LlamaCppSpec> = [];
  let from = start;
  while (from <= spec.length) {
    const comma = spec.indexOf(',', from);
    const end = comma < 0 ? spec.length : comma;
    if (end === from) throw new ModelSpecError(spec, from, 'empty chain member (two commas in a row, or a trailing comma)');
    const member = parseSingle(spec, from, end, true);
    if (member.kind === 'baseline') {
      throw new ModelSpecError(spec, from, 'a baseline is not a language model and cannot be part of a failover chain');
    }
    members.push(member);
    if (comma < 0) break;
    from = comma + 1;
  }
  return { kind: 'chain', members, spec };
}

/** Parses `spec.slice(start, end)`; positions in errors are offsets into the whole `spec`. */
function parseSingle(spec: string, start: number, end: number, inChain: boolean): SingleModelSpec {
  const text = spec.slice(start, end);
  const colon = text.indexOf(':');
  if (colon < 0) {
    const known = (SPEC_PREFIXES as readonly string[]).includes(text);
    throw new ModelSpecError(
      spec,
      end,
      known ? `expected ':' after '${text}', e.g. ${example(text)}` : `expected <provider>:<model>; providers are ${SPEC_PREFIXES.join(', ')}`,
    );
  }
  const prefix = text.slice(0, colon);
  const bodyStart = start + colon + 1;
  const body = text.slice(colon + 1);
  const own = inChain ? text : spec;
  switch (prefix) {
    case 'openai':
    case 'anthropic':
    case 'groq':
      return { kind: 'hosted', provider: prefix, model: checkModelId(spec, bodyStart, body, inChain), spec: own };
    case 'openai-compatible':
      return parseCompatible(spec, bodyStart, body, own, inChain);
    case 'llama-cpp':
      return parseLlama(spec, bodyStart, body, own);
    case 'baseline':
      if (body === 'lexical' || body === 'embedding') return { kind: 'baseline', baseline: body, spec: own };
      throw new ModelSpecError(spec, bodyStart, `unknown baseline '${body}'; use baseline:lexical or baseline:embedding`);
    case 'chain':
      throw new ModelSpecError(spec, start, 'chains cannot be nested');
    default:
      throw new ModelSpecError(spec, start, `unknown provider '${prefix}'; providers are ${SPEC_PREFIXES.join(', ')}`);
  }
}

function example(prefix: string): string {
  switch (prefix) {
    case 'openai-compatible':
      return 'openai-compatible:http://127.0.0.1:11434/v1#llama3.1:8b';
    case 'llama-cpp':
      return 'llama-cpp:models/qwen.gguf';
    case 'baseline':
      return 'baseline:lexical';
    case 'chain':
      return 'chain:openai:fast,anthropic:fast';
    default:
      return `${prefix}:fast`;
  }
}

/** A model id or alias: printable, no separators of this grammar. */
function checkModelId(spec: string, at: number, model: string, inChain: boolean): string {
  if (model.length === 0) throw new ModelSpecError(spec, at, 'missing model id or alias (default, fast, smart)');
  for (let i = 0; i < model.length; i++) {
    const ch = model[i];
    if (ch === ',' && !inChain) {
      throw new ModelSpecError(spec, at + i, "',' separates chain members; write chain:openai:fast,anthropic:fast for failover");
    }
    if (ch === '|') throw new ModelSpecError(spec, at + i, "'|' is not a separator here; write chain:openai:fast,anthropic:fast for failover");
    if (ch === '#' || ch === '?') throw new ModelSpecError(spec, at + i, `'${ch}' is not allowed in a model id`);
  }
  return model;
}

function parseCompatible(spec: string, at: number, body: string, own: string, inChain: boolean): CompatibleProviderSpec {
  const hash = body.indexOf('#');
  if (hash < 0) {
    throw new ModelSpecError(spec, at + body.length, "expected '#<model>' after the base URL, e.g. openai-compatible:http://127.0.0.1:11434/v1#llama3.1:8b");
  }
  const rawUrl = body.slice(0, hash);
  if (rawUrl.length === 0) throw new ModelSpecError(spec, at, 'missing base URL');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ModelSpecError(spec, at, `'${rawUrl}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelSpecError(spec, at, `the base URL must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ModelSpecError(spec, at + Math.max(0, rawUrl.indexOf('@')), 'credentials do not belong in a spec; set OPENAI_COMPATIBLE_API_KEY instead');
  }
  const model = checkModelId(spec, at + hash + 1, body.slice(hash + 1), inChain);
  return { kind: 'hosted', provider: 'openai-compatible', baseUrl: rawUrl.replace(/\/+$/, ''), model, spec: own };
}

function parseLlama(spec: string, at: number, body: string, own: string): LlamaCppSpec {
  const question = body.indexOf('?');
  const path = question < 0 ? body : body.slice(0, question);
  if (path.length === 0) throw new ModelSpecError(spec, at, 'missing path to a .gguf file');
  if (!path.toLowerCase().endsWith('.gguf')) throw new ModelSpecError(spec, at + path.length, "the model file must end in '.gguf'");
  const result: LlamaCppSpec = { kind: 'llama-cpp', path, spec: own };
  if (question < 0) return result;
  const seen = new Set<string>();
  let offset = at + question + 1;
  const query = body.slice(question + 1);
  if (query.length === 0) throw new ModelSpecError(spec, offset, "empty query after '?'; options are grammar=0|1 and seed=N");
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (seen.has(name)) throw new ModelSpecError(spec, offset, `option '${name}' is given twice`);
    seen.add(name);
    if (name === 'grammar') {
      if (value === '1' || value === 'true') result.grammar = true;
      else if (value === '0' || value === 'false') result.grammar = false;
      else throw new ModelSpecError(spec, offset + name.length + 1, 'grammar takes 0 or 1');
    } else if (name === 'seed') {
      if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_SEED) {
        throw new ModelSpecError(spec, offset + name.length + 1, `seed takes an integer from 0 to ${MAX_SEED}`);
      }
      result.seed = Number(value);
    } else {
      throw new ModelSpecError(spec, offset, `unknown option '${name}'; options are grammar=0|1 and seed=N`);
    }
    offset += pair.length + 1;
  }
  return result;
}
