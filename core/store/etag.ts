/**
 * Entity tags (RFC 9110 section 8.8.3) of a skill's published state: the ETag
 * every store answers, and the strong If-Match comparison of publish and delete.
 */
/** A parsed entity tag. */
export interface EntityTag {
  weak: boolean;
  /** The opaque tag without quotes. */
  tag: string;
}

/**
 * The strong, quoted ETag of a skill's published state. Version numbers are never
 * reused, so it changes with every published revision; deletions of older revisions
 * keep it (a repeated delete with the same ETag stays a no-op).
 */
export function etagFor(version: number, manifestHash: string): string {
  const hex = manifestHash.startsWith('sha256:') ? manifestHash.slice(7) : manifestHash;
  return `"v${version}-${hex.slice(0, 16)}"`;
}

const ETAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** Parses one entity tag (`"x"` or `W/"x"`); `undefined` when malformed. */
export function parseEtag(text: string): EntityTag | undefined {
  const m = ETAG.exec(text.trim());
  if (!m) return undefined;
  return { weak: m[1] !== undefined, tag: m[2] ?? '' };
}

/** Parses an If-Match list (`"a", W/"b"`); `undefined` when any member is malformed or the list is `*`. */
export function parseEtagList(text: string): EntityTag[] | undefined {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  if (parts.length === 0) return undefined;
  const tags: EntityTag[] = [];
  for (const part of parts) {
    const tag = parseEtag(part);
    if (!tag) return undefined;
    tags.push(tag);
  }
  return tags;
}

/**
 * True when an If-Match value matches the current ETag. Uses the strong comparison
 * RFC 9110 requires for If-Match: a weak tag (`W/"..."`) never matches, and `*` is
 * not accepted because the guide asks for the current ETag, never a wildcard.
 */
export function etagMatches(ifMatch: string, current: string): boolean {
  const wanted = parseEtag(current);
  const list = parseEtagList(ifMatch);
  if (!wanted || !list || wanted.weak) return false;
  return list.some((t) => !t.weak && t.tag === wanted.tag);
}
