/**
 * Short labels of model specs for chart rows, matrix columns and headers.
 *
 * A spec such as `openai-compatible:http://127.0.0.1:8080/v1#gpt-x` is too
 * long for a column and, cut at its end, several specs read the same. Each
 * spec gets the shortest of these that no other spec of the set shares, each
 * fitted into `max` characters with an ellipsis in the middle (the start and
 * the end of a name are what tell names apart):
 *
 * 1. the model's own name: what follows `#`, the file name of a local model,
 *    the spec without its provider, or the whole spec of a baseline or chain;
 * 2. `provider:name`, when providers share a name (`openai:gpt-x` and
 *    `openai-compatible:gpt-x`);
 * 3. `name @part`, where `part` is where the specs of that name differ
 *    (`gpt-x @8080`, `gpt-x @8081` for two servers of one model);
 * 4. the whole spec;
 * 5. the third's label numbered (`…~2`), which always tells specs apart.
 *
 * The full spec belongs beside the label (a tooltip, a legend): a label
 * distinguishes, it does not identify.
 */

/** Longest label by default, in characters (code points). */
export const MODEL_LABEL_MAX = 24;

/** Shortest `max` accepted: room for a numbered label. */
const MIN_MAX = 8;

/** Characters at which a differing part of two specs is widened, so a label never shows half a port or host. */
const DELIMITERS = new Set([':', '/', '#', '@', '.', '?', '&', '=', ' ']);

function chars(text: string): string[] {
  return [...text];
}

/**
 * `text` in at most `max` characters: unchanged when it fits, else its start
 * and end around a `…`.
 */
export function fitMiddle(text: string, max: number): string {
  const c = chars(text);
  if (c.length <= max) return text;
  if (max <= 1) return '…'.slice(0, Math.max(0, max));
  const keep = max - 1;
  const tail = Math.floor(keep / 2);
  return `${c.slice(0, keep - tail).join('')}…${tail > 0 ? c.slice(c.length - tail).join('') : ''}`;
}

function provider(spec: string): string {
  const colon = spec.indexOf(':');
  return colon > 0 ? spec.slice(0, colon) : '';
}

/** Step 1: the model's own name. */
function ownName(spec: string): string {
  const hash = spec.lastIndexOf('#');
  if (hash >= 0 && hash < spec.length - 1) return spec.slice(hash + 1);
  if (spec.startsWith('chain:') || spec.startsWith('baseline:')) return spec;
  const p = provider(spec);
  const rest = p ? spec.slice(p.length + 1) : spec;
  if (p === 'llama-cpp') return rest.split(/[\\/]/).pop() || rest;
  return rest || spec;
}

/**
 * The part of `spec` where it differs from the others of `group` (all
 * distinct), widened to delimiters; empty when nothing but a common start and
 * end remains.
 */
function differingPart(spec: string, group: readonly string[]): string {
  const all = group.map(chars);
  const own = chars(spec);
  const shortest = Math.min(...all.map((c) => c.length));
  let prefix = 0;
  while (prefix < shortest && all.every((c) => c[prefix] === own[prefix])) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && all.every((c) => c[c.length - 1 - suffix] === own[own.length - 1 - suffix])) suffix++;
  let start = prefix;
  while (start > 0 && !DELIMITERS.has(own[start - 1]!)) start--;
  let end = own.length - suffix;
  while (end < own.length && !DELIMITERS.has(own[end]!)) end++;
  return own.slice(start, end).join('');
}

/**
 * Short, distinct labels of `specs`, in their order: distinct specs always get
 * distinct labels, equal specs equal ones, and no label is longer than `max`
 * characters (code points; at least 8).
 */
export function modelLabels(specs: readonly string[], max: number = MODEL_LABEL_MAX): string[] {
  const limit = Math.max(MIN_MAX, Math.floor(max));
  const unique = [...new Set(specs)];
  const level = new Map<string, number>(unique.map((s) => [s, 0]));
  const byName = new Map<string, string[]>();
  for (const s of unique) {
    const name = ownName(s);
    byName.set(name, [...(byName.get(name) ?? []), s]);
  }
  const labelAt = (spec: string, at: number): string => {
    const name = ownName(spec);
    if (at === 0) return fitMiddle(name, limit);
    if (at === 1) return fitMiddle(provider(spec) && name !== spec ? `${provider(spec)}:${name}` : name, limit);
    if (at === 2) {
      const group = byName.get(name) ?? [spec];
      const part = group.length > 1 ? differingPart(spec, group) : '';
      if (!part) return fitMiddle(spec, limit);
      // The name keeps at most half the room, so the differing part stays readable.
      const head = fitMiddle(name, Math.max(3, Math.floor(limit / 2) - 2));
      return fitMiddle(`${head} @${part}`, limit);
    }
    return fitMiddle(spec, limit);
  };
  const labels = new Map<string, string>();
  for (;;) {
    labels.clear();
    for (const s of unique) labels.set(s, labelAt(s, level.get(s)!));
    const owners = new Map<string, string[]>();
    for (const [s, l] of labels) owners.set(l, [...(owners.get(l) ?? []), s]);
    let moved = false;
    for (const group of owners.values()) {
      if (group.length < 2) continue;
      for (const s of group) {
        if (level.get(s)! < 3) {
          level.set(s, level.get(s)! + 1);
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  // Step 5: what the whole spec cannot tell apart within `max` gets a number no other label has.
  const owners = new Map<string, string[]>();
  for (const [s, l] of labels) owners.set(l, [...(owners.get(l) ?? []), s]);
  const taken = new Set<string>();
  for (const [l, group] of owners) if (group.length === 1) taken.add(l);
  let n = 0;
  for (const [l, group] of owners) {
    if (group.length === 1) continue;
    for (const s of group) {
      let label: string;
      do {
        n++;
        const suffix = `~${n}`;
        label = `${fitMiddle(l, limit - suffix.length)}${suffix}`;
      } while (taken.has(label));
      taken.add(label);
      labels.set(s, label);
    }
  }
  return specs.map((s) => labels.get(s)!);
}
