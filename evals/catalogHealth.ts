/**
 * The catalog health report: the catalog measured against its limits
 * (core/catalog), where an eval run's requests went (evals/catalogRouting.ts),
 * and, when it is over a limit or asked for, a split that fits and keeps the
 * pairs the run found confused together.
 */
import { join } from 'node:path';
import type { CatalogHealthReport } from '../core/api/contract';
import { inspectCatalog, splitCatalog, type CatalogSelection } from '../core/catalog/inspect';
import { WorkbenchError } from '../core/errors';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../core/selector/limits';
import type { SkillRegistryReader } from '../core/store/types';
import { routingAffinity, RoutingTally, type RoutingFilter, type RoutingMatrix } from './catalogRouting';
import { readHeader, RUN_FILES, scanCells } from './runFiles';

/**
 * Everything `skillbench catalog` and the workbench's Catalog health view show:
 * the WorkbenchApi's `catalog.health` result, so the two cannot drift apart.
 */
export type CatalogReport = CatalogHealthReport;

/** Input of {@link catalogReport}. */
export type CatalogReportInput = CatalogSelection & {
  registry: SkillRegistryReader;
  source: string;
  /** An eval run over this catalog: its folder, the name to show, and which cells to count. */
  run?: { dir: string; shown: string; filter?: RoutingFilter };
  /** Propose a split even when the catalog fits. */
  split?: boolean;
  limits?: SelectorLimits;
};

/** Reads a run's cells into a routing matrix. Throws `not_found` when the folder holds no run. */
export async function readRouting(dir: string, shown: string, filter: RoutingFilter = {}): Promise<RoutingMatrix> {
  const header = await readHeader(dir);
  if (!header) throw new WorkbenchError('not_found', `${shown} holds no eval run (no ${RUN_FILES.header})`);
  const tally = new RoutingTally(header, filter);
  await scanCells(join(dir, RUN_FILES.cells), (cell) => {
    tally.add(cell);
  });
  return tally.result();
}

/** Builds the catalog health report (see {@link CatalogReport}). */
export async function catalogReport(input: CatalogReportInput): Promise<CatalogReport> {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const selection: CatalogSelection = 'namespace' in input ? { namespace: input.namespace } : { bindings: input.bindings, label: input.label };
  const inspected = await inspectCatalog(input.registry, selection, limits);
  const warnings = [...inspected.warnings];
  let routing: RoutingMatrix | undefined;
  if (input.run) {
    routing = await readRouting(input.run.dir, input.run.shown, input.run.filter);
    const bound = new Set(inspected.bindings.map((b) => `${b.namespace}/${b.name}`));
    const foreign = routing.skills.filter((s) => !bound.has(s));
    if (foreign.length > 0) warnings.push(`the run's catalog has skills this catalog does not bind (${foreign.join(', ')}): its matrix describes another catalog`);
    if (routing.variants.length > 1) warnings.push(`${input.run.shown} has the variants ${routing.variants.join(', ')}, counted together here; choose one with --variant`);
    if (routing.cells === 0) warnings.push(`no answered cell of ${input.run.shown} matches${input.run.filter?.model ? ` model ${input.run.filter.model}` : ''}${input.run.filter?.variant ? ` variant ${input.run.filter.variant}` : ''}`);
  }
  const runtimeBroken = inspected.health.broken.some((b) => b.skill === undefined);
  const split = input.split === true || runtimeBroken ? splitCatalog(inspected, routing ? routingAffinity(routing) : [], limits) : undefined;
  return {
    catalog: inspected.catalog,
    source: input.source,
    limits: { maxBindings: limits.maxBindings, maxAutoCandidates: limits.maxAutoCandidates, catalogTokenBudget: limits.catalogTokenBudget },
    health: inspected.health,
    ...(input.run && { run: input.run.shown }),
    ...(routing && { routing }),
    ...(split && { split }),
    warnings,
  };
}
