/**
 * `skillbench catalog` as a user runs it, in process, on a real local registry:
 * a 17-skill catalog over both runtime limits, its split written as bindings
 * files that each pass on their own, and the routing matrix of a real eval run
 * recounted from the run's cells.jsonl.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliOptions } from '../../helpers/cli';
import { writeCatalogFixture } from '../../helpers/catalogFixture';
import type { CatalogReport } from '../../../evals/catalogHealth';
import type { CaseInfo, CellRecord, RunHeader } from '../../../evals/types';
import { DEFAULT_SELECTOR_LIMITS } from '../../../core/selector/limits';

let work: string;
let skills: string[];
const STORE = 'local:registry';

const options = (): CliOptions => ({ cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
const cli = (args: string[]) => runCli(args, options());
const report = (stdout: string) => JSON.parse(stdout) as CatalogReport & { written?: string[] };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-catalog-'));
  skills = await writeCatalogFixture(join(work, 'ws'));
  const sync = await cli(['sync', '--from', 'ws', '--to', STORE]);
  expect(sync.code, sync.stderr).toBe(0);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('skillbench catalog', { timeout: 120_000 }, () => {
  it('names every limit a 17-skill catalog breaks, with each skill’s share of the catalog tokens', async () => {
    const run = await cli(['catalog', 'docs', '--from', STORE, '--json']);
    expect(run.code, run.stderr).toBe(1);
    const r = report(run.stdout);
    expect(r.health.skills.map((s) => s.skill)).toEqual(skills);
    expect(r.health.broken.map((b) => b.kind)).toEqual(['auto_candidates', 'catalog_tokens']);
    expect(r.health.auto_candidates).toBe(17);
    expect(r.health.catalog_tokens).toBeGreaterThan(DEFAULT_SELECTOR_LIMITS.catalogTokenBudget);
    expect(r.health.selector_asked).toBe(false);
    expect(r.health.skills.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 10);
    for (const s of r.health.skills) expect(s.manifest!.bytes).toBeGreaterThan(0);

    const text = await cli(['catalog', 'docs', '--from', STORE]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('2 limits broken:');
    expect(text.stderr).toContain(`auto candidates 17 > ${DEFAULT_SELECTOR_LIMITS.maxAutoCandidates} (maxAutoCandidates, TRUVAG3_SKILL_MAX_AUTO_CANDIDATES)`);
    expect(text.stderr).toMatch(/activation catalog tokens \d+ > 2000 \(catalogTokenBudget, TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET\)/);
    expect(text.stderr).toContain('the selector is never asked');
  });

  it('proposes a split whose parts each fit, and writes it as bindings files that pass on their own', async () => {
    const run = await cli(['catalog', 'docs', '--from', STORE, '--write', 'agents', '--json']);
    expect(run.code, run.stderr).toBe(1);
    const r = report(run.stdout);
    expect(r.split!.needed).toBe(true);
    expect(r.split!.parts.length).toBe(2);
    expect(r.split!.parts.flatMap((p) => p.skills).sort()).toEqual(skills);
    const files = (await readdir(join(work, 'agents'))).sort();
    expect(files).toEqual(['docs-1.json', 'docs-2.json']);
    const seen: string[] = [];
    for (const file of files) {
      const part = await cli(['catalog', join('agents', file), '--from', STORE, '--json']);
      expect(part.code, part.stderr).toBe(0);
      const p = report(part.stdout);
      expect(p.health.broken).toEqual([]);
      expect(p.health.selector_asked).toBe(true);
      seen.push(...p.health.skills.map((s) => s.skill));
    }
    expect(seen.sort()).toEqual(skills);

    // Written files are never overwritten.
    const again = await cli(['catalog', 'docs', '--from', STORE, '--write', 'agents']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('exists');
    expect(JSON.parse(await readFile(join(work, 'agents', 'docs-1.json'), 'utf8'))).toHaveLength(r.split!.parts[0]!.bindings.length);
  });

  it('shows where the requests of an eval run over the catalog went, matching a recount of its cells', async () => {
    const part = JSON.parse(await readFile(join(work, 'agents', 'docs-1.json'), 'utf8')) as { namespace: string; name: string }[];
    const ids = part.map((b) => `${b.namespace}/${b.name}`);
    const evalRun = await cli(['eval', ...ids, '--from', STORE, '--bindings', join('agents', 'docs-1.json'), '--model', 'baseline:lexical', '--out', 'run']);
    expect(evalRun.code, evalRun.stderr).toBe(0);

    const run = await cli(['catalog', join('agents', 'docs-1.json'), '--from', STORE, '--run', 'run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const m = report(run.stdout).routing!;
    expect(m.skills).toEqual([...ids].sort());

    // The recount: read the header and every cell, and count each question directly.
    const header = JSON.parse(await readFile(join(work, 'run', 'header.json'), 'utf8')) as RunHeader;
    const cells = (await readFile(join(work, 'run', 'cells.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as CellRecord);
    const caseOf = new Map<string, CaseInfo>(header.cases.map((c) => [c.id, c]));
    const answered = cells.filter((c) => c.outcome !== 'error');
    expect(m.cells).toBe(answered.length);
    let adjacentCases = 0;
    for (const row of m.rows) {
      const asks = answered.filter((c) => caseOf.get(c.case)!.skill === row.skill && caseOf.get(c.case)!.expect === 'activate');
      expect(row.requests).toBe(asks.length);
      expect(row.none).toBe(asks.filter((c) => c.activated.length === 0).length);
      for (const other of m.skills) {
        expect(row.went_to[other] ?? 0, `${row.skill} -> ${other}`).toBe(asks.filter((c) => c.activated.includes(other)).length);
        expect(row.stolen_by[other] ?? 0).toBe(asks.filter((c) => !c.activated.includes(row.skill) && c.activated.includes(other)).length);
      }
      const adjacent = answered.filter((c) => caseOf.get(c.case)!.skill === row.skill && caseOf.get(c.case)!.source === 'adjacent');
      expect(row.adjacent).toEqual({ cells: adjacent.length, activated: adjacent.filter((c) => c.activated.includes(row.skill)).length });
      adjacentCases += adjacent.length;
    }
    // In a catalog run every skill's should-activate examples also ran as should-not cases of the others.
    expect(adjacentCases).toBeGreaterThan(0);
    for (const p of m.pairs) {
      expect(p.fired_together).toBe(answered.filter((c) => c.activated.includes(p.a) && c.activated.includes(p.b)).length);
    }
    const stolen = m.pairs.map((p) => p.a_to_b + p.b_to_a);
    expect(stolen).toEqual([...stolen].sort((a, b) => b - a));

    // Switched off, the same run has only the skills' own cases.
    const own = await cli(['eval', ...ids, '--from', STORE, '--bindings', join('agents', 'docs-1.json'), '--model', 'baseline:lexical', '--out', 'run-own', '--no-adjacent-negatives', '--json']);
    expect(own.code, own.stderr).toBe(0);
    const ownHeader = (JSON.parse(own.stdout) as { run: RunHeader }).run;
    expect(ownHeader.cases.some((c) => c.source === 'adjacent')).toBe(false);
    expect(ownHeader.cases.length).toBe(header.cases.filter((c) => c.source !== 'adjacent').length);
  });

  it('reports a namespace with no skill and a folder with no run as not found', async () => {
    expect((await cli(['catalog', 'nothing-here', '--from', STORE])).code).toBe(5);
    const noRun = await cli(['catalog', 'docs', '--from', STORE, '--run', 'ws']);
    expect(noRun.code).toBe(5);
    expect(noRun.stderr).toContain('holds no eval run');
  });
});
