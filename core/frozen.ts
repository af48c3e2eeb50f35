/** Objects found frozen all the way down: they stay so (nothing in them can be replaced or unfrozen). */
const deeplyFrozen = new WeakSet<object>();

/**
 * Whether a value can never change: a primitive, or an object frozen all the
 * way down. The selector and the cells writer reuse what they built from such a
 * value (an evaluation's frozen catalog serves every cell the same objects); a
 * frozen shell around a mutable array is not enough, since the memo would then
 * outlive a change.
 *
 * A yes is remembered (see {@link deeplyFrozen}), so the walk runs once per
 * object, not once per selector call. A no is not: the mutable part may be
 * frozen later.
 */
export function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (deeplyFrozen.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  for (const v of Object.values(value)) if (!isDeeplyFrozen(v)) return false;
  deeplyFrozen.add(value);
  return true;
}

/** Freezes a plain value deeply (in place) and returns it: served objects are shared between callers and must not change. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
