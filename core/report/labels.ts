/**
 * Short model labels that still tell models apart, for chart axes, matrix
 * columns and table cells where a full spec (`openai-compatible:http://…/v1#alpha`)
 * would be cut to the same few characters for every model. Shared by the
 * reports and the workbench so a model reads the same everywhere. Pure and
 * isomorphic.
 */

/** The host (and a path other than `/v1`) of an `openai-compatible:` spec's base URL, when it parses. */
function endpointOf(spec: string): string | undefined {
  if (!spec.startsWith('openai-compatible:')) return undefined;
  const rest = spec.slice('openai-compatible:'.length);
  const hash = rest.lastIndexOf('#');
  try {
    const url = new URL(hash >= 0 ? rest.slice(0, hash) : rest);
    const path = url.pathname.replace(/\/+$/, '');
    return `${url.host}${path === '' || path === '/v1' ? '' : path}`;
  } catch {
    return undefined;
  }
}

/**
 * Short, distinguishing labels, one per spec: the model part after the
 * provider (`openai-compatible:http://…/v1#alpha` → `#alpha`, `openai:gpt-x`
 * → `gpt-x`, a GGUF path → its file name); when two would read the same, the
 * endpoint's host joins in (`127.0.0.1:4001#alpha`), and when that still
 * does not tell them apart, the full spec.
 */
export function shortLabels(specs: readonly string[]): string[] {
  const short = specs.map((spec) => {
    const hash = spec.lastIndexOf('#');
    if (hash >= 0 && hash < spec.length - 1) return spec.slice(hash);
    if (spec.startsWith('chain:')) return spec;
    const colon = spec.indexOf(':');
    const rest = colon >= 0 ? spec.slice(colon + 1) : spec;
    if (spec.startsWith('llama-cpp:')) return rest.split(/[\\/]/).pop()?.replace(/\?.*$/, '') || rest;
    return spec.startsWith('baseline:') ? spec : rest;
  });
  const duplicated = (labels: string[], i: number) => labels.indexOf(labels[i]!) !== labels.lastIndexOf(labels[i]!);
  const withHost = short.map((label, i) => {
    if (!duplicated(short, i)) return label;
    const endpoint = endpointOf(specs[i]!);
    return endpoint !== undefined && label.startsWith('#') ? `${endpoint}${label}` : specs[i]!;
  });
  return withHost.map((label, i) => (duplicated(withHost, i) ? specs[i]! : label));
}

/** Cuts `text` to `max` characters in the middle (`127.0.0…4001#alpha`), keeping the end that tells labels apart. */
export function middleTruncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  const tail = Math.ceil((max - 1) / 2);
  const head = max - 1 - tail;
  return `${points.slice(0, head).join('')}…${points.slice(points.length - tail).join('')}`;
}
