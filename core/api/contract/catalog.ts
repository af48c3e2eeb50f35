/**
 * Catalog scans and catalog health.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { CatalogHealth } from '../../catalog/health';
import type { SplitProposal } from '../../catalog/split';
import type { SelectorLimits } from '../../selector/limits';
import type { SkillMetadata } from '../../store/types';
import { connectionNameSchema, workspacePathSchema } from './common';
import { method, runRef, slug } from './internal';

/** Columns the catalog can be sorted by. */
export type CatalogSortKey = 'name' | 'namespace' | 'display_name' | 'version' | 'updated_at';

/**
 * One page of a catalog scan. A scan walks the store's catalog once, in the
 * requested order; `scanned` counts the entries examined so far (all pages),
 * `total` the entries the store holds when it can tell (null otherwise). While
 * `cursor` is not null the scan is incomplete: an empty result then means
 * "nothing in what has been scanned so far", not "nothing at all".
 */
export interface CatalogPage {
  items: SkillMetadata[];
  /** Pass to the next `catalog.page`; null when the scan is complete. */
  cursor: string | null;
  scanned: number;
  total: number | null;
  /** Entries matching the query and filter so far (all pages). */
  matched: number;
  /** When the store was read for this scan (ISO-8601). */
  read_at: string;
}

/** One skill's row of a {@link CatalogRoutingView}: where its should-activate requests went in an eval run. */
export interface CatalogRoutingRow {
  skill: string;
  /** Answered should-activate cells of this skill. */
  requests: number;
  /** Error cells of those requests (left out of every count). */
  errors: number;
  /** Cells in which each skill (the row's own included) was active. */
  went_to: Record<string, number>;
  /** Cells that activated nothing. */
  none: number;
  /** Cells in which this skill stayed inactive while another fired, by that other skill. */
  stolen_by: Record<string, number>;
  /** This skill's adjacent negatives (other skills' should-activate examples), apart: answered cells, and those in which it fired. */
  adjacent: { cells: number; activated: number };
}

/** A pair of skills and how they confuse each other. */
export interface CatalogRoutingPair {
  a: string;
  b: string;
  /** a's should-activate requests taken by b (a inactive, b active). */
  a_to_b: number;
  /** b's should-activate requests taken by a. */
  b_to_a: number;
  /** Answered cells (of any case) in which both were active. */
  fired_together: number;
}

/**
 * The skill x skill routing matrix of an eval run over a catalog (what
 * `skillbench catalog --run` prints), counted by evals/catalogRouting.ts.
 */
export interface CatalogRoutingView {
  /** Rows and columns, in identity order. */
  skills: string[];
  rows: CatalogRoutingRow[];
  /** Pairs with any confusion: most stolen (both ways) first, then most often together. */
  pairs: CatalogRoutingPair[];
  /** The models and variants counted. */
  models: string[];
  variants: string[];
  /** Answered cells counted (of any case). */
  cells: number;
}

/** The result of `catalog.health`: the report `skillbench catalog --json` prints, one figure source for both. */
export interface CatalogHealthReport {
  /** The bindings file as given, or the namespace. */
  catalog: string;
  /** Where the skills were read, secret-free. */
  source: string;
  limits: Pick<SelectorLimits, 'maxBindings' | 'maxAutoCandidates' | 'catalogTokenBudget'>;
  health: CatalogHealth;
  /** The run id, when one was read. */
  run?: string;
  routing?: CatalogRoutingView;
  /** Present when a runtime limit is broken (or `split` was asked). */
  split?: SplitProposal;
  warnings: string[];
}

const catalogFilter = z.strictObject({ namespace: slug('a namespace').optional(), domain: slug('a domain').optional(), tag: slug('a tag').optional() });

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const catalogMethods = {
  /**
   * One page of a catalog scan. Start with `cursor` null (a fresh read of the
   * store); pass the returned cursor for the next page with the same query.
   */
  'catalog.page': method<CatalogPage>()(
    z.strictObject({
      connection: connectionNameSchema,
      cursor: z.string().max(512).nullable().default(null),
      limit: z.number().int().min(1).max(2000).default(500),
      /** Case-insensitive words matched against name, namespace, display name, domains and tags. */
      query: z.string().max(200).default(''),
      filter: catalogFilter.default({}),
      sort: z.strictObject({ by: z.enum(['name', 'namespace', 'display_name', 'version', 'updated_at']), direction: z.enum(['asc', 'desc']).default('asc') }).default({ by: 'namespace', direction: 'asc' }),
    }),
  ),

  /**
   * The health of an agent's whole catalog (`skillbench catalog`): every
   * budget against its limit, each skill's share of the activation catalog,
   * the broken limits, a split into catalogs that fit when a runtime limit is
   * broken, and, with `run`, where that run's requests went. The catalog is a
   * namespace of the connection (every published skill, bound auto) or a
   * bindings file of the open workspace.
   */
  'catalog.health': method<CatalogHealthReport>()(
    z
      .strictObject({
        connection: connectionNameSchema,
        namespace: slug('a namespace').optional(),
        bindings: workspacePathSchema.optional(),
        run: runRef.shape.run.optional(),
        split: z.boolean().default(false),
      })
      .refine((p) => (p.namespace === undefined) !== (p.bindings === undefined), { message: 'give a namespace or a bindings file, not both', path: ['namespace'] }),
  ),
} as const;
