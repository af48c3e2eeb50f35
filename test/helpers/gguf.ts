/**
 * Writes a tiny random-weight llama model as a GGUF v3 file, so the in-process
 * llama.cpp adapter can be tested against real inference without shipping or
 * downloading a model. The weights are noise from a seeded PRNG: the model
 * answers gibberish, but it loads, tokenizes, applies its chat template and
 * decodes exactly like a real llama-architecture model.
 *
 * Layout written (all little-endian): magic `GGUF`, version 3, tensor count
 * (u64), KV count (u64), the metadata KVs, the tensor infos (name, dims, ggml
 * type, offset into the data blob), zero padding up to the alignment, then the
 * tensor data, each tensor starting on an aligned offset.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** GGUF metadata value types (the `gguf_type` enum of ggml). */
const GgufType = {
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

/** ggml tensor element types used here. */
const GgmlType = { f32: 0, f16: 1 } as const;

/** llama.cpp token types (`llama_token_type`). */
export const TokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

const ALIGNMENT = 32;
const MAGIC = 'GGUF';
const VERSION = 3;

/** The SentencePiece word-boundary marker llama.cpp substitutes for a space. */
const SPM_SPACE = '\u2581';

/** A ChatML chat template in Jinja, the format the test model declares. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** Options of {@link buildTinyLlamaGguf}; every field has a small default. */
export interface TinyLlamaOptions {
  /** PRNG seed of the weights (default 1). Same seed, same bytes. */
  seed?: number;
  /** Hidden size (default 64). Must be a multiple of `headCount`. */
  embeddingLength?: number;
  /** Transformer blocks (default 2). */
  blockCount?: number;
  /** Attention heads (default 4). */
  headCount?: number;
  /** Key/value heads (default 4; fewer gives grouped-query attention). */
  headCountKv?: number;
  /** Feed-forward size (default 128). */
  feedForwardLength?: number;
  /** Trained context length declared in the metadata (default 512). */
  contextLength?: number;
  /** Tensor element type (default `f32`). */
  tensorType?: 'f32' | 'f16';
  /** Weights are uniform in [-weightScale, weightScale] (default 0.08). */
  weightScale?: number;
  /** `general.name` (default `skillbench-tiny-random`). */
  name?: string;
}

/** The vocabulary of the tiny model, with the ids of its special tokens. */
export interface TinyVocabulary {
  tokens: string[];
  scores: number[];
  tokenTypes: number[];
  unkId: number;
  bosId: number;
  eosId: number;
  imStartId: number;
  imEndId: number;
  /** Id of the byte token `<0x00>`; byte `b` is `firstByteId + b`. */
  firstByteId: number;
}

/** A built model: the file bytes plus what a test may want to check against. */
export interface TinyLlamaGguf {
  bytes: Uint8Array;
  vocabulary: TinyVocabulary;
  /** The metadata written, keyed as in the file (arrays omitted). */
  metadata: Record<string, string | number | boolean>;
  /** Tensor names and their ggml dimensions (innermost first), in file order. */
  tensors: { name: string; dims: number[] }[];
}

/**
 * The byte-level SentencePiece vocabulary: `<unk>`, `<s>`, `</s>`, the 256 byte
 * tokens, one token per printable ASCII character (space as `▁`), then the
 * ChatML control tokens. Any text tokenizes: what no character token covers
 * falls back to bytes.
 */
export function tinyVocabulary(): TinyVocabulary {
  const tokens: string[] = [];
  const scores: number[] = [];
  const tokenTypes: number[] = [];
  const add = (text: string, type: number, score = 0): number => {
    tokens.push(text);
    scores.push(score);
    tokenTypes.push(type);
    return tokens.length - 1;
  };
  const unkId = add('<unk>', TokenType.unknown);
  const bosId = add('<s>', TokenType.control);
  const eosId = add('</s>', TokenType.control);
  const firstByteId = tokens.length;
  for (let b = 0; b < 256; b++) {
    add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.byte);
  }
  for (let c = 0x20; c <= 0x7e; c++) {
    // Negative log-probability-like scores, as SentencePiece writes them.
    add(c === 0x20 ? SPM_SPACE : String.fromCharCode(c), TokenType.normal, -(c - 0x20) / 100);
  }
  const imStartId = add('<|im_start|>', TokenType.control);
  const imEndId = add('<|im_end|>', TokenType.control);
  return { tokens, scores, tokenTypes, unkId, bosId, eosId, imStartId, imEndId, firstByteId };
}

/** Deterministic 32-bit PRNG (mulberry32): reproducible weights with no dependency. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** IEEE 754 half precision of a float (round to nearest even), for F16 tensors. */
function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0] ?? 0;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    if (rest > midpoint || (rest === midpoint && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++;
  // A carry out of the mantissa bumps the exponent (up to infinity), as it should.
  return sign | half;
}

/** Growable little-endian byte buffer. */
class ByteWriter {
  private buffer = new Uint8Array(1 << 16);
  private view = new DataView(this.buffer.buffer);
  length = 0;
  private readonly encoder = new TextEncoder();

  private reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.reserve(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
  }
  u16(v: number): void {
    this.reserve(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
  }
  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  i32(v: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }
  u64(v: number): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }
  f32(v: number): void {
    this.reserve(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
  /** GGUF string: u64 byte length, then UTF-8 bytes, no terminator. */
  str(s: string): void {
    const bytes = this.encoder.encode(s);
    this.u64(bytes.length);
    this.raw(bytes);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    this.reserve(pad);
    this.buffer.fill(0, this.length, this.length + pad);
    this.length += pad;
  }
  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

type Kv =
  | { key: string; type: 'u32'; value: number }
  | { key: string; type: 'f32'; value: number }
  | { key: string; type: 'bool'; value: boolean }
  | { key: string; type: 'string'; value: string }
  | { key: string; type: 'string[]'; value: string[] }
  | { key: string; type: 'f32[]'; value: number[] }
  | { key: string; type: 'i32[]'; value: number[] };

function writeKv(w: ByteWriter, kv: Kv): void {
  w.str(kv.key);
  switch (kv.type) {
    case 'u32':
      w.u32(GgufType.uint32);
      w.u32(kv.value);
      return;
    case 'f32':
      w.u32(GgufType.float32);
      w.f32(kv.value);
      return;
    case 'bool':
      w.u32(GgufType.bool);
      w.u8(kv.value ? 1 : 0);
      return;
    case 'string':
      w.u32(GgufType.string);
      w.str(kv.value);
      return;
    case 'string[]':
      w.u32(GgufType.array);
      w.u32(GgufType.string);
      w.u64(kv.value.length);
      for (const s of kv.value) w.str(s);
      return;
    case 'f32[]':
      w.u32(GgufType.array);
      w.u32(GgufType.float32);
      w.u64(kv.value.length);
      for (const v of kv.value) w.f32(v);
      return;
    case 'i32[]':
      w.u32(GgufType.array);
      w.u32(GgufType.int32);
      w.u64(kv.value.length);
      for (const v of kv.value) w.i32(v);
      return;
  }
}

interface TensorSpec {
  name: string;
  /** ggml order: innermost (row length) first. */
  dims: number[];
  /** `norm` tensors are ones (RMS-norm gains); the rest are PRNG noise. */
  kind: 'norm' | 'random';
}

/**
 * Builds the GGUF bytes of a tiny random-weight llama model with the ChatML
 * template. Pure and deterministic: the same options give the same bytes.
 */
export function buildTinyLlamaGguf(options: TinyLlamaOptions = {}): TinyLlamaGguf {
  const nEmbd = options.embeddingLength ?? 64;
  const nLayer = options.blockCount ?? 2;
  const nHead = options.headCount ?? 4;
  const nHeadKv = options.headCountKv ?? 4;
  const nFf = options.feedForwardLength ?? 128;
  const nCtx = options.contextLength ?? 512;
  const tensorType = options.tensorType ?? 'f32';
  const scale = options.weightScale ?? 0.08;
  if (nEmbd % nHead !== 0) throw new Error(`embeddingLength ${nEmbd} is not a multiple of headCount ${nHead}`);
  if (nHead % nHeadKv !== 0) throw new Error(`headCount ${nHead} is not a multiple of headCountKv ${nHeadKv}`);
  const headDim = nEmbd / nHead;
  const vocabulary = tinyVocabulary();
  const nVocab = vocabulary.tokens.length;

  const scalars: Kv[] = [
    { key: 'general.architecture', type: 'string', value: 'llama' },
    { key: 'general.name', type: 'string', value: options.name ?? 'skillbench-tiny-random' },
    { key: 'general.alignment', type: 'u32', value: ALIGNMENT },
    // llama_ftype: 0 = all F32, 1 = mostly F16.
    { key: 'general.file_type', type: 'u32', value: tensorType === 'f32' ? 0 : 1 },
    { key: 'llama.context_length', type: 'u32', value: nCtx },
    { key: 'llama.embedding_length', type: 'u32', value: nEmbd },
    { key: 'llama.block_count', type: 'u32', value: nLayer },
    { key: 'llama.feed_forward_length', type: 'u32', value: nFf },
    { key: 'llama.attention.head_count', type: 'u32', value: nHead },
    { key: 'llama.attention.head_count_kv', type: 'u32', value: nHeadKv },
    { key: 'llama.attention.layer_norm_rms_epsilon', type: 'f32', value: 1e-5 },
    // llama.cpp requires the rotary dimension to equal the head size for llama.
    { key: 'llama.rope.dimension_count', type: 'u32', value: headDim },
    { key: 'llama.rope.freq_base', type: 'f32', value: 10000 },
    { key: 'llama.vocab_size', type: 'u32', value: nVocab },
    { key: 'tokenizer.ggml.model', type: 'string', value: 'llama' },
    { key: 'tokenizer.ggml.bos_token_id', type: 'u32', value: vocabulary.bosId },
    { key: 'tokenizer.ggml.eos_token_id', type: 'u32', value: vocabulary.eosId },
    { key: 'tokenizer.ggml.unknown_token_id', type: 'u32', value: vocabulary.unkId },
    { key: 'tokenizer.ggml.eot_token_id', type: 'u32', value: vocabulary.imEndId },
    { key: 'tokenizer.ggml.add_bos_token', type: 'bool', value: true },
    { key: 'tokenizer.ggml.add_eos_token', type: 'bool', value: false },
    // ChatML models do not prefix the first word with a space.
    { key: 'tokenizer.ggml.add_space_prefix', type: 'bool', value: false },
    { key: 'tokenizer.chat_template', type: 'string', value: CHATML_TEMPLATE },
  ];
  const arrays: Kv[] = [
    { key: 'tokenizer.ggml.tokens', type: 'string[]', value: vocabulary.tokens },
    { key: 'tokenizer.ggml.scores', type: 'f32[]', value: vocabulary.scores },
    { key: 'tokenizer.ggml.token_type', type: 'i32[]', value: vocabulary.tokenTypes },
  ];
  const kvs = [...scalars, ...arrays];

  const tensors: TensorSpec[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], kind: 'random' },
    { name: 'output_norm.weight', dims: [nEmbd], kind: 'norm' },
    { name: 'output.weight', dims: [nEmbd, nVocab], kind: 'random' },
  ];
  for (let i = 0; i < nLayer; i++) {
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, dims: [nEmbd], kind: 'norm' },
      { name: `blk.${i}.attn_q.weight`, dims: [nEmbd, headDim * nHead], kind: 'random' },
      { name: `blk.${i}.attn_k.weight`, dims: [nEmbd, headDim * nHeadKv], kind: 'random' },
      { name: `blk.${i}.attn_v.weight`, dims: [nEmbd, headDim * nHeadKv], kind: 'random' },
      { name: `blk.${i}.attn_output.weight`, dims: [headDim * nHead, nEmbd], kind: 'random' },
      { name: `blk.${i}.ffn_norm.weight`, dims: [nEmbd], kind: 'norm' },
      { name: `blk.${i}.ffn_gate.weight`, dims: [nEmbd, nFf], kind: 'random' },
      { name: `blk.${i}.ffn_up.weight`, dims: [nEmbd, nFf], kind: 'random' },
      { name: `blk.${i}.ffn_down.weight`, dims: [nFf, nEmbd], kind: 'random' },
    );
  }

  const w = new ByteWriter();
  w.raw(new TextEncoder().encode(MAGIC));
  w.u32(VERSION);
  w.u64(tensors.length);
  w.u64(kvs.length);
  for (const kv of kvs) writeKv(w, kv);

  // Norm gains stay F32 in real conversions too: ggml wants 1-D tensors in F32.
  const typeOf = (t: TensorSpec): number => (t.kind === 'norm' || tensorType === 'f32' ? GgmlType.f32 : GgmlType.f16);
  const sizeOf = (t: TensorSpec): number => t.dims.reduce((a, b) => a * b, 1) * (typeOf(t) === GgmlType.f32 ? 4 : 2);
  const padded = (n: number): number => Math.ceil(n / ALIGNMENT) * ALIGNMENT;
  let offset = 0;
  for (const t of tensors) {
    w.str(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(typeOf(t));
    w.u64(offset);
    offset += padded(sizeOf(t));
  }
  w.padTo(ALIGNMENT);

  const random = mulberry32(options.seed ?? 1);
  for (const t of tensors) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    const f16 = typeOf(t) === GgmlType.f16;
    for (let i = 0; i < count; i++) {
      const value = t.kind === 'norm' ? 1 : (random() * 2 - 1) * scale;
      if (f16) w.u16(toHalf(value));
      else w.f32(value);
    }
    w.padTo(ALIGNMENT);
  }

  const metadata: Record<string, string | number | boolean> = {};
  for (const kv of scalars) metadata[kv.key] = kv.value as string | number | boolean;
  return {
    bytes: w.bytes(),
    vocabulary,
    metadata,
    tensors: tensors.map((t) => ({ name: t.name, dims: t.dims })),
  };
}

/** A model written to disk by {@link writeTinyLlamaGguf}. */
export interface WrittenTinyLlama extends TinyLlamaGguf {
  path: string;
}

/**
 * Builds the tiny model and writes it to `path` (via a temp file and a rename,
 * so a reader never sees half a model). Tests write into their own temp dir;
 * the binary is never committed.
 */
export async function writeTinyLlamaGguf(path: string, options: TinyLlamaOptions = {}): Promise<WrittenTinyLlama> {
  const built = buildTinyLlamaGguf(options);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, built.bytes);
  await rename(temp, path);
  return { ...built, path };
}
