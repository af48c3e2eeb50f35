/**
 * Whether a value can never change: a primitive, or an object frozen all the
 * way down. The selector and the cells writer reuse what they built from such a
 * value (an evaluation's frozen catalog serves every cell the same objects); a
 * frozen shell around a mutable array is not enough, since the memo would then
 * outlive a change.
 */
export function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  for (const v of Object.values(value)) if (!isDeeplyFrozen(v)) return false;
  return true;
}
