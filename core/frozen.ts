/** Objects found frozen all the way down: they stay so (nothing in them can be replaced or unfrozen). */
const deeplyFrozen = new WeakSet<object>();

/**
 * Whether a value can never change: a primitive, or an object frozen all the
 * way down. The selector and the cells writer reuse what they built from such a
 * value (an evaluation's frozen catalog serves every cell the same objects); a
 * frozen shell around a mutable array is not enough, since the memo would then
 * outlive a change.
 *
 * A yes about an object that holds objects is remembered (see
 * {@link deeplyFrozen}), so the walk runs once per object, not once per
 * selector call. A no is not: the mutable part may be frozen later.
 */
export function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  // A frozen object never thaws, so the cheap test goes first: most values asked about are not frozen.
  if (!Object.isFrozen(value)) return false;
  if (deeplyFrozen.has(value)) return true;
  let nested = false;
  for (const v of Object.values(value)) {
    if (v === null || typeof v !== 'object') continue;
    if (!isDeeplyFrozen(v)) return false;
    nested = true;
  }
  // An object of primitives is checked again as fast as it is looked up, so only one holding
  // objects is remembered: a list of pinning records costs one entry, not one per record.
  if (nested) deeplyFrozen.add(value);
  return true;
}

/**
 * Freezes a plain value deeply (in place) and returns it: served objects are
 * shared between callers and must not change. A frozen shell is walked too (it
 * may hold a mutable part); only a value known frozen all the way down is not.
 *
 * A value that holds objects is remembered in {@link deeplyFrozen} before its
 * parts are walked, as {@link isDeeplyFrozen} remembers it: a cycle ends
 * there, and freezing a list of values frozen one by one (a catalog's entries)
 * does not walk each of them again.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || deeplyFrozen.has(value)) return value;
  Object.freeze(value);
  const parts = Object.values(value);
  if (parts.some((v) => v !== null && typeof v === 'object')) {
    deeplyFrozen.add(value);
    for (const v of parts) deepFreeze(v);
  }
  return value;
}

/** JSON texts of deeply frozen values: made (or given by their builder) once, reused by every writer. */
const jsonTexts = new WeakMap<object, string>();

/**
 * The JSON text a builder attached to a value it froze with {@link freezeWithJson}:
 * a property of the value itself, not an entry in {@link jsonTexts}, so a value
 * made once per selector call (a prompt's messages) costs no weak-map entry.
 * Not enumerable and a symbol, so JSON, copies and comparisons never see it.
 */
const OWN_JSON: unique symbol = Symbol('json text');

/**
 * `JSON.stringify(value)`, made once per deeply frozen object or array: many
 * records share such a value by reference (a variant's pinning table in every
 * cell of an evaluation), and a value that cannot change has one text.
 */
export function jsonOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return JSON.stringify(value);
  const own = (value as { [OWN_JSON]?: string })[OWN_JSON];
  if (own !== undefined) return own;
  let text = jsonTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (isDeeplyFrozen(value)) jsonTexts.set(value, text);
  }
  return text;
}

/**
 * Freezes a value its builder has just made, all the way down, with the JSON
 * text the builder made alongside it (from pieces it had already encoded), so
 * {@link jsonOf} need not make it again. The text must be exactly
 * `JSON.stringify(value)`. `value` must not be frozen yet (a frozen one cannot
 * take the text and is only frozen further); an undefined text only freezes.
 */
export function freezeWithJson<T extends object>(value: T, text: string | undefined): T {
  if (text !== undefined && !Object.isFrozen(value)) Object.defineProperty(value, OWN_JSON, { value: text });
  return deepFreeze(value);
}
