/**
 * Splitting an agent catalog that is over a runtime limit into agent catalogs
 * that each fit, keeping confused skills together.
 *
 * Why together: two skills that take each other's requests are exactly the
 * pair whose activation examples must keep discriminating them. Split apart,
 * each agent would route the other's requests to its own skill with nothing
 * to tell them apart, and the confusion would be hidden instead of measured.
 *
 * The method is greedy and deterministic: pairs are merged into groups by
 * falling confusion as long as a group still fits on its own; groups are then
 * packed, largest first, into as few parts as first-fit finds, balanced over
 * that many parts when they can be. A part fits when its rendered activation
 * catalog (the selector's own rendering) is within `catalogTokenBudget`, its
 * auto candidates within `maxAutoCandidates` and its bindings within
 * `maxBindings`. Bindings that are not `auto` (always, explicit) cost no
 * catalog tokens and go into every part, so each agent keeps them.
 *
 * Isomorphic: no `node:` imports.
 */
import { compareIds } from '../selector/bindings';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../selector/limits';
import { activationEntry, renderCatalog } from '../selector/render';
import type { PinnedCandidate, SkillBinding } from '../selector/types';
import { autoCandidates } from './health';

/** How strongly two skills are confused (for example requests stolen either way plus requests both took). */
export interface SkillAffinity {
  a: string;
  b: string;
  weight: number;
}

/** One proposed agent catalog. */
export interface SplitPart {
  /** The auto skills of this part, in identity order. */
  skills: string[];
  /** The part's binding list: the shared bindings and its auto skills, in the original list's order. */
  bindings: SkillBinding[];
  catalog_tokens: number;
  auto_candidates: number;
}

/** A proposal of {@link proposeSplit}. */
export interface SplitProposal {
  /** False when the catalog fits as it is (then `parts` is the catalog itself). */
  needed: boolean;
  parts: SplitPart[];
  /** Non-auto bindings, repeated in every part. */
  shared: string[];
  /** Skills no part can hold (one alone is over a limit, or the binding was not pinned), with why. */
  unplaced: { skill: string; reason: string }[];
  /** Confused pairs kept in one part, most confused first. */
  kept: SkillAffinity[];
  /** Confused pairs the split had to separate, most confused first. */
  separated: SkillAffinity[];
}

/** Input of {@link proposeSplit}. */
export interface SplitInput {
  bindings: readonly SkillBinding[];
  /** The pinned candidates of those bindings. */
  candidates: readonly PinnedCandidate[];
  /** Pair weights; pairs absent or of weight 0 are not confused. */
  affinity?: readonly SkillAffinity[];
  limits?: SelectorLimits;
}

const idOf = (b: Pick<SkillBinding, 'namespace' | 'name'>) => `${b.namespace}/${b.name}`;

/** Confused pairs, normalized (a < b, weights of repeated pairs added), most confused first. */
function normalizePairs(affinity: readonly SkillAffinity[], known: ReadonlySet<string>): SkillAffinity[] {
  const sum = new Map<string, SkillAffinity>();
  for (const p of affinity) {
    if (p.a === p.b || !known.has(p.a) || !known.has(p.b) || !(p.weight > 0)) continue;
    const [a, b] = compareIds(p.a, p.b) < 0 ? [p.a, p.b] : [p.b, p.a];
    const key = `${a}\n${b}`;
    const prior = sum.get(key);
    sum.set(key, { a, b, weight: (prior?.weight ?? 0) + p.weight });
  }
  return [...sum.values()].sort((x, y) => y.weight - x.weight || compareIds(x.a, y.a) || compareIds(x.b, y.b));
}

/** Proposes agent catalogs that each fit the runtime limits; see the module comment for the method. */
export function proposeSplit(input: SplitInput): SplitProposal {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const pinned = new Map(input.candidates.map((c) => [c.id, c]));
  const shared = input.bindings.filter((b) => b.activation !== 'auto' && pinned.has(idOf(b)));
  const unplaced: SplitProposal['unplaced'] = input.bindings
    .filter((b) => !pinned.has(idOf(b)))
    .map((b) => ({ skill: idOf(b), reason: 'the binding could not be pinned, so its size is unknown' }));
  const auto = autoCandidates(input.candidates);
  const byId = new Map(auto.map((c) => [c.id, c]));

  const tokensOf = (ids: Iterable<string>) =>
    renderCatalog(
      [...ids]
        .sort(compareIds)
        .map((id) => activationEntry(byId.get(id)!)),
    ).tokens;
  const fits = (ids: readonly string[]) =>
    ids.length <= limits.maxAutoCandidates && ids.length + shared.length <= limits.maxBindings && tokensOf(ids) <= limits.catalogTokenBudget;
  const part = (ids: readonly string[]): SplitPart => {
    const set = new Set(ids);
    return {
      skills: [...ids].sort(compareIds),
      bindings: input.bindings.filter((b) => set.has(idOf(b)) || shared.includes(b)).map((b) => ({ ...b })),
      catalog_tokens: tokensOf(ids),
      auto_candidates: ids.length,
    };
  };

  const all = auto.map((c) => c.id);
  const pairs = normalizePairs(input.affinity ?? [], new Set(all));
  const judge = (parts: SplitPart[]) => {
    const home = new Map(parts.flatMap((p, i) => p.skills.map((s) => [s, i] as const)));
    return {
      kept: pairs.filter((p) => home.has(p.a) && home.get(p.a) === home.get(p.b)),
      separated: pairs.filter((p) => home.has(p.a) && home.has(p.b) && home.get(p.a) !== home.get(p.b)),
    };
  };
  if (fits(all)) {
    const parts = [part(all)];
    return { needed: false, parts, shared: shared.map(idOf), unplaced, ...judge(parts) };
  }

  const placeable: string[] = [];
  for (const id of all) {
    if (fits([id])) placeable.push(id);
    else unplaced.push({ skill: id, reason: `alone it is over a limit (${tokensOf([id])} catalog tokens of ${limits.catalogTokenBudget})` });
  }

  // Merge the most confused pairs first, while the merged group still fits on its own.
  const group = new Map<string, string[]>(placeable.map((id) => [id, [id]]));
  for (const p of pairs) {
    const ga = group.get(p.a);
    const gb = group.get(p.b);
    if (!ga || !gb || ga === gb) continue;
    const merged = [...ga, ...gb];
    if (!fits(merged)) continue;
    for (const id of merged) group.set(id, merged);
  }
  const groups = [...new Set(group.values())]
    .map((ids) => ({ ids, tokens: tokensOf(ids) }))
    .sort((x, y) => y.tokens - x.tokens || y.ids.length - x.ids.length || compareIds([...x.ids].sort(compareIds)[0]!, [...y.ids].sort(compareIds)[0]!));

  // First fit decreasing gives the number of parts ...
  const firstFit: string[][] = [];
  for (const g of groups) {
    const bin = firstFit.find((b) => fits([...b, ...g.ids]));
    if (bin) bin.push(...g.ids);
    else firstFit.push([...g.ids]);
  }
  // ... and the same groups spread over that many parts, each into the lightest part that holds it, keep the parts even.
  const balanced: string[][] = firstFit.map(() => []);
  let ok = true;
  for (const g of groups) {
    const order = balanced.map((b, i) => ({ i, tokens: tokensOf(b) })).sort((x, y) => x.tokens - y.tokens || x.i - y.i);
    const target = order.find(({ i }) => fits([...balanced[i]!, ...g.ids]));
    if (!target) {
      ok = false;
      break;
    }
    balanced[target.i]!.push(...g.ids);
  }
  const chosen = ok ? balanced : firstFit;
  const parts = chosen
    .filter((ids) => ids.length > 0)
    .map(part)
    .sort((x, y) => compareIds(x.skills[0]!, y.skills[0]!));
  return { needed: true, parts, shared: shared.map(idOf), unplaced, ...judge(parts) };
}
