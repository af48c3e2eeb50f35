/**
 * Provider answers recorded from the providers' own published examples and SDK
 * test fixtures, kept byte for byte in `test/fixtures/providers/` with their
 * sources in `sources.json` beside them. The emulators answer with these
 * bodies, changing only the slots a test needs (the answer text, the model id,
 * token counts, an error message) at the place the recording has them, so a
 * change in how our client reads the wire shows up against real bodies.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../fixtures/providers/', import.meta.url));

/** A recorded body's file name in `test/fixtures/providers/`. */
export type RecordedName =
  | 'openai-responses.json'
  | 'openai-chat-completion.json'
  | 'groq-chat-completion.json'
  | 'anthropic-message.json'
  | 'openai-error-insufficient-quota.json'
  | 'openai-error-unsupported-parameter.json'
  | 'anthropic-error-overloaded.json'
  | 'anthropic-error-invalid-request.json';

/** The places in a body a test may fill. */
export type Slot = 'text' | 'model' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'message' | 'type' | 'code';

type JsonPath = Array<string | number>;

interface SourceEntry {
  describes: string;
  status: number;
  source: { repository: string; path: string; commit: string; at: string };
  slots: Partial<Record<Slot, JsonPath>>;
}

/** One recorded body with its provenance. */
export interface Recorded {
  name: RecordedName;
  /** What the body is (API, endpoint, case). */
  describes: string;
  /** The HTTP status it was recorded with. */
  status: number;
  /** `repository@commit:path`, for test names and messages. */
  cite: string;
  /** The body exactly as recorded. */
  raw: string;
  slots: Partial<Record<Slot, JsonPath>>;
}

let manifest: Record<string, SourceEntry> | undefined;
const cache = new Map<RecordedName, Recorded>();

/** A recorded body and its source. */
export function recorded(name: RecordedName): Recorded {
  const hit = cache.get(name);
  if (hit) return hit;
  manifest ??= (JSON.parse(readFileSync(`${DIR}sources.json`, 'utf8')) as { bodies: Record<string, SourceEntry> }).bodies;
  const entry = manifest[name];
  if (!entry) throw new Error(`${name} has no entry in test/fixtures/providers/sources.json`);
  const { repository, commit, path } = entry.source;
  const value: Recorded = {
    name,
    describes: entry.describes,
    status: entry.status,
    cite: `${repository}@${commit.slice(0, 12)}:${path}`,
    raw: readFileSync(`${DIR}${name}`, 'utf8'),
    slots: entry.slots,
  };
  cache.set(name, value);
  return value;
}

/**
 * The recorded body with `values` written into their slots. A slot the source
 * list does not name, or a path the recording does not have, is an error: the
 * emulators never add fields a provider did not send.
 */
export function fill(name: RecordedName, values: Partial<Record<Slot, string | number | null>>): unknown {
  const body = JSON.parse(recorded(name).raw) as unknown;
  const slots = recorded(name).slots;
  for (const [slot, value] of Object.entries(values) as Array<[Slot, string | number | null | undefined]>) {
    if (value === undefined) continue;
    const path = slots[slot];
    if (!path) throw new Error(`${name} has no '${slot}' slot in sources.json`);
    setAt(body, path, value, name);
  }
  return body;
}

/** The value at `slot` in the recorded body, as recorded. */
export function slotValue(name: RecordedName, slot: Slot): unknown {
  const path = recorded(name).slots[slot];
  if (!path) throw new Error(`${name} has no '${slot}' slot in sources.json`);
  let current: unknown = JSON.parse(recorded(name).raw);
  for (const key of path) current = (current as Record<string | number, unknown>)[key];
  return current;
}

function setAt(root: unknown, path: JsonPath, value: unknown, name: string): void {
  let current = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (typeof current !== 'object' || current === null || !(key in current)) {
      throw new Error(`${name} has nothing at ${path.slice(0, i + 1).join('.')}`);
    }
    if (i === path.length - 1) (current as Record<string | number, unknown>)[key] = value;
    else current = (current as Record<string | number, unknown>)[key];
  }
}
