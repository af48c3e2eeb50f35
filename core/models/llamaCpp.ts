/**
 * In-process GGUF model through node-llama-cpp (spec `llama-cpp:PATH.gguf`).
 *
 * The prompt is the same plain chat every provider gets, rendered with the
 * model's own chat template; no response format is imposed unless asked
 * (a JSON-schema grammar via the `grammar` option or `request.jsonSchema`).
 *
 * Resources: the native runtime is loaded once per process (CPU only, the
 * prebuilt binary, never a download or a build); each model file once per
 * process, shared by every client of that path and disposed when the last one
 * closes. Each client owns one context with one sequence; its calls run one at
 * a time through a FIFO queue, and every call starts from an empty sequence so
 * the same request and seed give the same answer.
 *
 * node-llama-cpp is an optional peer dependency (its prebuilt binaries are
 * hundreds of megabytes, and the desktop installers leave it out): it is
 * imported on the first `llama-cpp:` model only, and its absence is a model
 * error naming the package and the command that installs it, never a failure
 * at import time.
 *
 * Node-only (native addon, files). Loaded lazily by `openModel`.
 */
import { open as openFile } from 'node:fs/promises';
import { basename, resolve as resolvePath } from 'node:path';
import type {
  ChatHistoryItem,
  ChatWrapper,
  GbnfJsonSchema,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  Token,
  TokenBias,
} from 'node-llama-cpp';
import type * as NodeLlamaCppModule from 'node-llama-cpp';
import { ModelError } from './errors';
import type { ChatMessage, FinishReason, GenerateRequest, GenerateResult, ModelClient, SelectionTask } from './types';

/** Options of {@link openLlamaCppModel}. */
export interface LlamaCppOptions {
  /**
   * Grammar-constrained decoding for every call (default off). Requests that
   * carry a `jsonSchema` are always constrained by it. Without one, the
   * grammar comes from the selector task (its answer shape, listing offered
   * candidates only, each at most once: see {@link grammarForTask}); without
   * a task, any JSON value.
   */
  grammar?: boolean;
  /** Seed for requests that carry none (default 0, so local runs repeat exactly). */
  seed?: number;
  /** CPU threads of this client's context (default 1). */
  threads?: number;
  /**
   * Context size in tokens (prompt plus answer). Default: the model's trained
   * context, capped at 8192. llama.cpp may round it up to a multiple of 256.
   */
  contextSize?: number;
  /**
   * Forbids every token that is not printable ASCII, tab or newline (control
   * tokens and stray UTF-8 bytes included), so an untrained or tiny model
   * cannot emit garbage bytes. End-of-generation tokens stay allowed.
   */
  asciiOnly?: boolean;
}

const PROVIDER = 'llama-cpp';
const DEFAULT_SEED = 0;
const DEFAULT_THREADS = 1;
const MAX_DEFAULT_CONTEXT = 8192;
const GRAMMAR_CACHE_LIMIT = 32;

/** The node-llama-cpp module. */
export type NodeLlamaCpp = typeof NodeLlamaCppModule;

/**
 * The node-llama-cpp release Skillbench is built and tested against (the exact
 * version package.json names as its optional peer and dev dependency), named in
 * the install hint.
 */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/** Imports node-llama-cpp; {@link loadNodeLlamaCpp} takes another to exercise a missing or broken install. */
export type NodeLlamaCppImporter = () => Promise<NodeLlamaCpp>;

const importNodeLlamaCpp: NodeLlamaCppImporter = () => import('node-llama-cpp');

/**
 * True when `error` says the package `name` itself cannot be resolved (Node's
 * ESM "Cannot find package 'name'" or CommonJS "Cannot find module 'name'"),
 * not one of its own dependencies or files.
 */
function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return new RegExp(`^Cannot find (?:package|module) '${name}'`).test(message);
}

/**
 * Imports node-llama-cpp, the optional dependency `llama-cpp:` models run on.
 *
 * @param importer - how to import it (default: `import('node-llama-cpp')`).
 * @throws ModelError `server` (code `model_unavailable`, exit 6) naming the
 *   package and `npm install node-llama-cpp@<version>` when it is not
 *   installed; `server` with the loader's reason when it is installed but does
 *   not load (a missing file or dependency of its own).
 */
export async function loadNodeLlamaCpp(importer: NodeLlamaCppImporter = importNodeLlamaCpp): Promise<NodeLlamaCpp> {
  try {
    return await importer();
  } catch (error) {
    if (isMissingPackage(error, 'node-llama-cpp')) {
      throw new ModelError(
        'server',
        `${PROVIDER}: the optional package node-llama-cpp is not installed, so llama-cpp: models cannot run here; ` +
          `install it with \`npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}\` ` +
          "(or serve the model with llama.cpp's llama-server and use openai-compatible:http://127.0.0.1:8080/v1#MODEL)",
        { provider: PROVIDER, cause: error },
      );
    }
    throw new ModelError('server', `${PROVIDER}: node-llama-cpp is installed but does not load: ${messageOf(error)}`, { provider: PROVIDER, cause: error });
  }
}

interface Runtime {
  lib: NodeLlamaCpp;
  llama: Llama;
  /** The last error llama.cpp logged: the only detail of some native load failures. */
  nativeError: { last: string | undefined };
}

let runtimePromise: Promise<Runtime> | undefined;

/** The native runtime, once per process. A failed start is not cached, so a later call may retry. */
function loadRuntime(): Promise<Runtime> {
  runtimePromise ??= (async () => {
    // Read by node-llama-cpp when its module loads: never fetch binaries at run time.
    process.env['NODE_LLAMA_CPP_SKIP_DOWNLOAD'] ??= 'true';
    const lib = await loadNodeLlamaCpp();
    const nativeError: Runtime['nativeError'] = { last: undefined };
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
      // Core never prints; native errors are kept to explain a failed load.
      logger: (level, message) => {
        if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.fatal) nativeError.last = message.trim();
      },
    });
    return { lib, llama, nativeError };
  })();
  runtimePromise.catch(() => {
    runtimePromise = undefined;
  });
  return runtimePromise;
}

/** One loaded model file, shared by every client of its path. */
interface SharedModel {
  key: string;
  name: string;
  runtime: Runtime;
  model: LlamaModel;
  chatWrapper: ChatWrapper;
  refs: number;
  asciiBias?: TokenBias;
}

const sharedModels = new Map<string, Promise<SharedModel>>();
const grammarCache = new Map<string, Promise<LlamaGrammar>>();

function failure(kind: ModelError['kind'], message: string, model: string, cause?: unknown, code?: string): ModelError {
  return new ModelError(kind, `${PROVIDER} (${model}): ${message}`, { provider: PROVIDER, model, cause, ...(code !== undefined && { code }) });
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** Fails early, with the path in the message, on what llama.cpp would report badly or not at all. */
async function checkModelFile(path: string, name: string): Promise<void> {
  let handle;
  try {
    handle = await openFile(path, 'r');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === 'ENOENT' ? 'model file not found' : code === 'EACCES' ? 'model file is not readable' : code === 'EISDIR' ? 'model path is a directory, not a .gguf file' : `cannot open the model file (${String(code)})`;
    // A missing file is `not_found` (exit 5); the kind still stops a chain at once.
    throw failure('malformed_input', `${reason}: ${path}`, name, error, code === 'ENOENT' ? 'not_found' : undefined);
  }
  try {
    const magic = new Uint8Array(4);
    const { bytesRead } = await handle.read(magic, 0, 4, 0);
    if (bytesRead < 4 || new TextDecoder().decode(magic) !== 'GGUF') {
      throw failure('malformed_input', `not a GGUF model file (no GGUF magic at the start): ${path}`, name);
    }
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw failure('malformed_input', `cannot read the model file: ${path}`, name, error);
  } finally {
    await handle.close();
  }
}

async function acquireModel(path: string): Promise<SharedModel> {
  const key = resolvePath(path);
  let entry = sharedModels.get(key);
  if (entry === undefined) {
    entry = loadSharedModel(path, key);
    sharedModels.set(key, entry);
    entry.catch(() => {
      if (sharedModels.get(key) === entry) sharedModels.delete(key);
    });
  }
  const shared = await entry;
  shared.refs += 1;
  return shared;
}

async function releaseModel(shared: SharedModel): Promise<void> {
  shared.refs -= 1;
  if (shared.refs > 0) return;
  // Forget it first: an open racing with this dispose then loads a fresh copy.
  sharedModels.delete(shared.key);
  await shared.model.dispose();
}

async function loadSharedModel(path: string, key: string): Promise<SharedModel> {
  const name = basename(path);
  await checkModelFile(key, name);
  let runtime: Runtime;
  try {
    runtime = await loadRuntime();
  } catch (error) {
    // A missing or broken node-llama-cpp is the same for every model: its message names no model file.
    if (error instanceof ModelError) throw error;
    throw failure('server', `the llama.cpp runtime could not start: ${messageOf(error)}`, name, error);
  }
  runtime.nativeError.last = undefined;
  let model: LlamaModel;
  try {
    model = await runtime.llama.loadModel({ modelPath: key, gpuLayers: 0 });
  } catch (error) {
    const native = runtime.nativeError.last === undefined ? '' : ` (${runtime.nativeError.last})`;
    throw failure('server', `llama.cpp could not load ${path}: ${messageOf(error)}${native}`, name, error);
  }
  // The model's own template (a known wrapper such as ChatML when the Jinja
  // template matches one, else the Jinja template itself); a model with none
  // falls back to a generic wrapper.
  const chatWrapper = runtime.lib.resolveChatWrapper(model, { warningLogs: false }) ?? new runtime.lib.GeneralChatWrapper();
  return { key, name, runtime, model, chatWrapper, refs: 0 };
}

function vocabularySize(model: LlamaModel): number {
  const tokens = model.fileInfo.metadata.tokenizer?.ggml?.tokens;
  if (Array.isArray(tokens)) return tokens.length;
  const embedding = model.fileInfo.tensorInfo?.find((t) => t.name === 'token_embd.weight');
  const rows = embedding?.dimensions[1];
  if (rows !== undefined) return Number(rows);
  throw new Error('the model declares no vocabulary size');
}

function isAllowedAscii(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x20 && c <= 0x7e) || c === 0x0a || c === 0x09)) return false;
  }
  return true;
}

/**
 * Bias of -Infinity on every token whose text is not printable ASCII (tab and
 * newline allowed: a JSON grammar may require a newline, and forbidding a token
 * the grammar requires breaks sampling). Built once per model.
 */
function asciiBias(shared: SharedModel): TokenBias {
  if (shared.asciiBias !== undefined) return shared.asciiBias;
  const { model } = shared;
  const bias = new shared.runtime.lib.TokenBias(model.tokenizer);
  const size = vocabularySize(model);
  for (let id = 0; id < size; id++) {
    const token = id as Token;
    if (model.isEogToken(token)) continue;
    if (!isAllowedAscii(model.detokenize([token], false))) bias.set(token, 'never');
  }
  shared.asciiBias = bias;
  return bias;
}

/** What a grammar is built from: a request's JSON schema, GBNF text, or any JSON value. */
type GrammarSource = { schema: Record<string, unknown> } | { gbnf: string } | { anyJson: true };

/** The grammar of `grammar: true` calls without a schema: the task's answer shape, else any JSON. */
function taskGrammar(request: GenerateRequest): GrammarSource {
  const gbnf = request.task === undefined ? undefined : grammarForTask(request.task);
  return gbnf === undefined ? { anyJson: true } : { gbnf };
}

/** Grammars are compiled once per process and source (bounded, oldest evicted first). */
async function grammarFor(runtime: Runtime, source: GrammarSource, name: string): Promise<LlamaGrammar> {
  const key = JSON.stringify(source);
  let entry = grammarCache.get(key);
  if (entry === undefined) {
    entry =
      'schema' in source
        ? runtime.llama.createGrammarForJsonSchema<GbnfJsonSchema>(source.schema as unknown as GbnfJsonSchema)
        : 'gbnf' in source
          ? runtime.llama.createGrammar({ grammar: source.gbnf })
          : runtime.llama.getGrammarFor('json');
    if (grammarCache.size >= GRAMMAR_CACHE_LIMIT) {
      const oldest = grammarCache.keys().next().value;
      if (oldest !== undefined) grammarCache.delete(oldest);
    }
    grammarCache.set(key, entry);
    entry.catch(() => grammarCache.delete(key));
  }
  try {
    return await entry;
  } catch (error) {
    const what = 'schema' in source ? 'the JSON schema cannot be turned into a grammar' : 'the answer grammar is invalid';
    throw failure('malformed_input', `${what}: ${messageOf(error)}`, name, error);
  }
}

/** Runs tasks one at a time in arrival order; a caller aborted while waiting leaves without running. */
class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(task: () => Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
    const previous = this.tail;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    // The next caller waits for the previous task too, even if this one leaves early.
    this.tail = previous.then(() => mine);
    try {
      await untilOrAbort(previous, signal, onAbort);
      return await task();
    } finally {
      done();
    }
  }

  /** Resolves once every task queued so far has finished. */
  drain(): Promise<void> {
    return this.tail;
  }
}

function untilOrAbort(promise: Promise<void>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<void>((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

function abortedError(signal: AbortSignal | undefined, name: string): ModelError {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return failure('timeout', 'no answer before the call timed out', name, reason);
  }
  return failure('cancelled', 'the call was cancelled', name, reason);
}

/** A GBNF string literal matching exactly `text`. */
function gbnfLiteral(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/**
 * A GBNF grammar for the answers of a selector task: the shape its
 * `renderAnswer` produces (one object holding one array), where the array
 * lists what `renderAnswer` renders for single options, each option at most
 * once and in offered order. A JSON schema cannot say "no duplicates" in a
 * form llama.cpp grammars enforce, and the selector rejects a repeated
 * identity, so the list is built as an ordered subset instead.
 * Undefined when the answers do not have that shape.
 */
export function grammarForTask(task: SelectionTask): string | undefined {
  if (task.options.length === 0) return undefined;
  const parse = (ids: string[]): unknown => {
    try {
      return JSON.parse(task.renderAnswer(ids));
    } catch {
      return undefined;
    }
  };
  const empty = parse([]);
  if (typeof empty !== 'object' || empty === null || Array.isArray(empty)) return undefined;
  const keys = Object.keys(empty);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined) return undefined;
  const emptyList: unknown = (empty as Record<string, unknown>)[key];
  if (!Array.isArray(emptyList) || emptyList.length !== 0) return undefined;
  const items: string[] = [];
  for (const option of task.options) {
    const answer = parse([option.id]);
    const list: unknown = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)[key] : undefined;
    if (!Array.isArray(list) || list.length !== 1) return undefined;
    const item = JSON.stringify(list[0]);
    // Two options rendering the same item could not be told apart in the answer.
    if (items.includes(item)) return undefined;
    items.push(item);
  }
  const n = items.length;
  const rules = [
    `root ::= "{" ws ${gbnfLiteral(JSON.stringify(key))} ws ":" ws "[" ws from-0? ws "]" ws "}"`,
    'ws ::= [ ]?',
  ];
  items.forEach((item, i) => {
    // from-i: a non-empty ordered subset of the items i..n-1.
    rules.push(`from-${i} ::= item-${i}${i + 1 < n ? ` | from-${i + 1}` : ''}`);
    rules.push(`item-${i} ::= ${gbnfLiteral(item)}${i + 1 < n ? ` (ws "," ws from-${i + 1})?` : ''}`);
  });
  return rules.join('\n');
}

function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((message): ChatHistoryItem => {
    switch (message.role) {
      case 'system':
        return { type: 'system', text: message.content };
      case 'user':
        return { type: 'user', text: message.content };
      case 'assistant':
        return { type: 'model', response: [message.content] };
    }
  });
  // An empty model turn opens the answer; a trailing assistant message is a finished turn, as with hosted chat APIs.
  history.push({ type: 'model', response: [] });
  return history;
}

function checkRequest(request: GenerateRequest, name: string): void {
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw failure('malformed_input', 'the request has no messages', name);
  }
  request.messages.forEach((message, index) => {
    if (!['system', 'user', 'assistant'].includes(message.role) || typeof message.content !== 'string') {
      throw failure('malformed_input', `message ${index} needs a role of system, user or assistant and a string content`, name);
    }
  });
  if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens < 1) {
    throw failure('malformed_input', `maxOutputTokens must be a positive integer, got ${String(request.maxOutputTokens)}`, name);
  }
  if (!Number.isFinite(request.temperature) || request.temperature < 0) {
    throw failure('malformed_input', `temperature must be a number >= 0, got ${String(request.temperature)}`, name);
  }
  if (request.seed !== undefined && (!Number.isInteger(request.seed) || request.seed < 0)) {
    throw failure('malformed_input', `seed must be a non-negative integer, got ${String(request.seed)}`, name);
  }
}

/**
 * Opens a GGUF model file for in-process inference. Loads the model (once per
 * path per process) and creates this client's context before resolving, so a
 * missing or broken file fails here, with its path in the message.
 *
 * @param path - the `.gguf` file (the part after `llama-cpp:` in a spec).
 * @throws ModelError `malformed_input` when the file is missing, unreadable or
 *   not GGUF; `server` when llama.cpp cannot load it or allocate the context.
 */
export async function openLlamaCppModel(path: string, options: LlamaCppOptions = {}): Promise<ModelClient> {
  const spec = `${PROVIDER}:${path}`;
  const name = basename(path);
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1)) {
    throw failure('malformed_input', `threads must be a positive integer, got ${String(options.threads)}`, name);
  }
  if (options.contextSize !== undefined && (!Number.isInteger(options.contextSize) || options.contextSize < 16)) {
    throw failure('malformed_input', `contextSize must be an integer >= 16, got ${String(options.contextSize)}`, name);
  }
  const shared = await acquireModel(path);
  let context: LlamaContext;
  let sequence: LlamaContextSequence;
  let chat: LlamaChat;
  try {
    const trained = shared.model.trainContextSize;
    context = await shared.model.createContext({
      contextSize: options.contextSize ?? Math.min(trained, MAX_DEFAULT_CONTEXT),
      sequences: 1,
      threads: options.threads ?? DEFAULT_THREADS,
    });
    sequence = context.getSequence();
    chat = new shared.runtime.lib.LlamaChat({ contextSequence: sequence, chatWrapper: shared.chatWrapper });
  } catch (error) {
    await releaseModel(shared);
    throw failure('server', `cannot create a context for ${path}: ${messageOf(error)}`, name, error);
  }
  if (options.asciiOnly === true) asciiBias(shared);

  const queue = new SerialQueue();
  let closed = false;

  async function run(request: GenerateRequest, started: number): Promise<GenerateResult> {
    const warnings: string[] = [];
    const history = toChatHistory(request.messages);
    const rendered = shared.chatWrapper.generateContextState({ chatHistory: history });
    const inputTokens = rendered.contextText.tokenize(shared.model.tokenizer).length;
    const room = context.contextSize - inputTokens;
    if (room < 1) {
      throw failure(
        'malformed_input',
        `the prompt is ${inputTokens} tokens but the context holds ${context.contextSize}; open the model with a larger contextSize`,
        name,
      );
    }
    // Without this cap llama.cpp would shift the context and silently drop the start of the prompt.
    const maxTokens = Math.min(request.maxOutputTokens, room);
    if (maxTokens < request.maxOutputTokens) {
      warnings.push(`maxOutputTokens lowered from ${request.maxOutputTokens} to ${maxTokens} to fit the ${context.contextSize}-token context`);
    }
    const grammar =
      request.jsonSchema !== undefined
        ? await grammarFor(shared.runtime, { schema: request.jsonSchema }, name)
        : options.grammar === true
          ? await grammarFor(shared.runtime, taskGrammar(request), name)
          : undefined;

    await sequence.clearHistory();
    const before = sequence.tokenMeter.getState();
    const response = await chat.generateResponse(history, {
      maxTokens,
      temperature: request.temperature,
      seed: request.seed ?? options.seed ?? DEFAULT_SEED,
      ...(grammar !== undefined && { grammar }),
      ...(options.asciiOnly === true && { tokenBias: asciiBias(shared) }),
      ...(request.signal !== undefined && { signal: request.signal }),
    });
    const used = sequence.tokenMeter.diff(before);
    const latencyMs = performance.now() - started;
    const stop = response.metadata.stopReason;
    const finishReason: FinishReason =
      stop === 'maxTokens' ? 'length' : stop === 'eogToken' || stop === 'stopGenerationTrigger' || stop === 'customStopTrigger' ? 'stop' : 'other';
    return {
      text: response.response,
      usage: { inputTokens, outputTokens: used.usedOutputTokens },
      model: name,
      provider: PROVIDER,
      latencyMs,
      costUsd: 0,
      attempts: [{ provider: PROVIDER, model: name, ok: true, latencyMs }],
      ...(warnings.length > 0 && { warnings }),
      finishReason,
    };
  }

  return {
    spec,
    isBaseline: false,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const started = performance.now();
      // A call after close() is a bug of the caller, not a bad request.
      if (closed) throw failure('malformed_input', 'this model client is closed', name, undefined, 'internal');
      checkRequest(request, name);
      const { signal } = request;
      try {
        return await queue.run(() => run(request, started), signal, () => abortedError(signal, name));
      } catch (error) {
        if (signal?.aborted === true) throw abortedError(signal, name);
        if (error instanceof ModelError) throw error;
        throw failure('server', `inference failed: ${messageOf(error)}`, name, error);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await queue.drain();
      chat.dispose();
      await context.dispose();
      await releaseModel(shared);
    },
  };
}
