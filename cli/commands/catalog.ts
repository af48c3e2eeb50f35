/**
 * `skillbench catalog`: the health of an agent's whole catalog (a bindings
 * file or a namespace): every budget against its limit, each skill's share of
 * the activation catalog, where an eval run's requests went, and a split into
 * agent catalogs that fit when it is over a limit.
 */
import { mkdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { describeBudget } from '../../core/catalog/health';
import { WorkbenchError } from '../../core/errors';
import { writeFileAtomic } from '../../core/fs/atomic';
import { isSlug } from '../../core/package/rules';
import { formatBindings } from '../../core/catalog/bindingsFile';
import { catalogReport, type CatalogReport } from '../../evals/catalogHealth';
import { readBindingsFile } from '../../evals/plan';
import { asUsage, parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { checkOutputDir } from '../outputPath';
import { connectionLabel, withStore } from '../store';

const usage = `Usage: skillbench catalog BINDINGS_OR_NS [--from CONN] [--run DIR] [--model SPEC]
                        [--variant LABEL] [--split] [--write DIR] [--json]

The health of an agent's catalog: BINDINGS_OR_NS is a TRUVAG3_SKILL_BINDINGS_JSON
file, or a namespace (every published skill of it, bound auto). Shows every
budget against its runtime limit (bindings, auto candidates, activation catalog
tokens) and each manifest against the authoring limits, each skill's share of
the activation catalog, and every limit broken.

  --from CONN      store holding the skills (default: the local registry)
  --run DIR        an eval run over this catalog (its folder, with cells.jsonl):
                   adds the skill x skill matrix of where each skill's
                   should-activate requests went, which skills fire together,
                   and the pairs that take each other's requests, first
  --model SPEC     count only this model's cells of the run
  --variant LABEL  count only this variant's cells (draft, published, ...)
  --split          propose agent catalogs that each fit (also shown whenever a
                   runtime limit is broken), keeping the most confused pairs together
  --write DIR      write the proposed catalogs as bindings files DIR/<name>-<n>.json
                   (implies --split; an existing file is not overwritten)
  --json           print the report as JSON on stdout

Exit codes: 0 every budget within its limit, 1 a limit is broken (the
proposal is still shown and written), 2 usage, 4 a file to write exists,
5 namespace, bindings file or run not found, 6 store unavailable.`;

/** Whether `value` names an existing file (a bindings file) rather than a namespace. */
async function isFile(value: string, cwd: string): Promise<boolean> {
  try {
    return (await stat(resolve(cwd, value))).isFile();
  } catch {
    return false;
  }
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    run: { type: 'string' },
    model: { type: 'string' },
    variant: { type: 'string' },
    split: { type: 'boolean' },
    write: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give a bindings file or a namespace' : `unexpected argument '${positionals[1]}'`);
  const target = positionals[0]!;
  const json = values.json === true;
  if ((values.model !== undefined || values.variant !== undefined) && values.run === undefined) throw new UsageError('--model and --variant choose cells of --run DIR');
  const writeDir = values.write !== undefined ? await checkOutputDir('--write', values.write, io.cwd) : undefined;
  const file = !isSlug(target) || (await isFile(target, io.cwd));
  // The list is read without its size limit: a list over maxBindings is measured and named like any other broken limit.
  const bindings = file ? await asUsage(readBindingsFile(target, { cwd: io.cwd, maxBindings: Number.MAX_SAFE_INTEGER })) : undefined;
  const name = file ? basename(target).replace(/\.json$/i, '') : target;
  const runDir = values.run !== undefined ? resolve(io.cwd, values.run) : undefined;

  return withStore(io, values.from, { command: 'catalog', json }, async (store) => {
    const report = await catalogReport({
      registry: store,
      ...(bindings ? { bindings, label: target } : { namespace: target }),
      source: connectionLabel(values.from, io),
      ...(runDir !== undefined && { run: { dir: runDir, shown: values.run!, filter: { ...(values.model !== undefined && { model: values.model }), ...(values.variant !== undefined && { variant: values.variant }) } } }),
      split: values.split === true || writeDir !== undefined,
    });
    const written: string[] = [];
    if (writeDir !== undefined && report.split) {
      const parts = report.split.parts;
      const files = parts.map((_, i) => join(writeDir, `${name}-${i + 1}.json`));
      for (const f of files) {
        if (await isFile(f, io.cwd)) throw new WorkbenchError('conflict', `--write: ${f} exists; choose another folder or remove it`);
      }
      await mkdir(writeDir, { recursive: true });
      for (let i = 0; i < parts.length; i++) {
        await writeFileAtomic(files[i]!, formatBindings(parts[i]!.bindings));
        written.push(files[i]!);
      }
    }
    if (json) printJsonDocument(io, 'catalog-health', { ...report, ...(writeDir !== undefined && { written }) });
    else printReport(io, report, written);
    return report.health.broken.length > 0 ? EXIT.invalid : EXIT.ok;
  });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(rows: string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `  ${r.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}

function printReport(io: CliIo, report: CatalogReport, written: readonly string[]): void {
  const h = report.health;
  say(io, `catalog ${report.catalog} (${h.skills.length} binding${h.skills.length === 1 ? '' : 's'} in ${report.source})`);
  say(io, '');
  const runtime = h.budgets.filter((b) => b.skill === undefined);
  for (const line of table([['budget', 'value', 'limit', ''], ...runtime.map((b) => [b.label, String(b.value), String(b.max), b.over ? `OVER (${b.limit})` : 'ok'])], new Set([1, 2]))) say(io, line);
  say(io, '');
  const manifests = new Map(h.budgets.filter((b) => b.skill !== undefined).map((b) => [`${b.skill}|${b.kind}`, b]));
  const rows = h.skills.map((s) => {
    const bytes = manifests.get(`${s.skill}|manifest_bytes`);
    const tokens = manifests.get(`${s.skill}|manifest_tokens`);
    return [
      s.skill,
      s.activation,
      s.status === 'pinned' ? `v${s.version}` : s.status,
      s.activation === 'auto' && s.status === 'pinned' ? String(s.catalog_tokens) : '-',
      s.activation === 'auto' && s.status === 'pinned' ? pct(s.share) : '-',
      bytes ? `${bytes.value}${bytes.over ? '!' : ''}` : '-',
      tokens ? `${tokens.value}${tokens.over ? '!' : ''}` : '-',
    ];
  });
  const authoring = h.budgets.find((b) => b.kind === 'manifest_bytes');
  const tokenLimit = h.budgets.find((b) => b.kind === 'manifest_tokens');
  const header = ['skill', 'activation', 'version', 'catalog tokens', 'share', `manifest bytes${authoring ? ` (<= ${authoring.max})` : ''}`, `manifest tokens${tokenLimit ? ` (<= ${tokenLimit.max})` : ''}`];
  for (const line of table([header, ...rows], new Set([3, 4, 5, 6]))) say(io, line);
  say(io, '');
  if (h.broken.length === 0) say(io, 'every budget is within its limit');
  else {
    say(io, `${h.broken.length} limit${h.broken.length === 1 ? '' : 's'} broken:`);
    for (const b of h.broken) say(io, `  - ${describeBudget(b)}`);
    if (!h.selector_asked) say(io, '  the runtime skips automatic activation for this catalog: the selector is never asked');
  }
  for (const w of report.warnings) say(io, `warning: ${w}`);
  const m = report.routing;
  if (m) {
    say(io, '');
    say(io, `routing in run ${report.run!} (${m.cells} answered cells; models ${m.models.join(', ') || 'none'}; variants ${m.variants.join(', ') || 'none'})`);
    const index = new Map(m.skills.map((s, i) => [s, i + 1]));
    const head = ['', 'skill', 'requests', ...m.skills.map((_, i) => String(i + 1)), 'none', 'adjacent taken'];
    const body = m.rows.map((r) => [
      String(index.get(r.skill)),
      r.skill,
      String(r.requests),
      ...m.skills.map((s) => (r.went_to[s] ? String(r.went_to[s]) : '.')),
      String(r.none),
      r.adjacent.cells > 0 ? `${r.adjacent.activated}/${r.adjacent.cells}` : '-',
    ]);
    say(io, '  where each skill\'s should-activate requests went (row: the skill asked for; column: the skill that fired):');
    for (const line of table([head, ...body], new Set([0, 2, ...m.skills.map((_, i) => i + 3), m.skills.length + 3]))) say(io, line);
    if (m.pairs.length === 0) say(io, '  no two skills took each other\'s requests or fired together');
    else {
      say(io, "  pairs that take each other's requests (stolen: one's should-activate requests on which it stayed inactive while the other fired), most stolen first:");
      const rows = m.pairs.map((p) => [`${index.get(p.a)} ${p.a}`, `${index.get(p.b)} ${p.b}`, String(p.a_to_b + p.b_to_a), `${p.a_to_b}/${p.b_to_a}`, String(p.fired_together)]);
      for (const line of table([['skill a', 'skill b', 'stolen', 'a->b/b->a', 'together'], ...rows], new Set([2, 3, 4]))) say(io, `  ${line}`);
    }
  }
  const split = report.split;
  if (split) {
    say(io, '');
    if (!split.needed) say(io, 'no split needed: the catalog fits as it is');
    else {
      say(io, `proposed split into ${split.parts.length} agent catalog${split.parts.length === 1 ? '' : 's'} that each fit:`);
      split.parts.forEach((p, i) => {
        say(io, `  ${i + 1}. ${p.auto_candidates} auto candidates (<= ${report.limits.maxAutoCandidates}), ${p.catalog_tokens} catalog tokens (<= ${report.limits.catalogTokenBudget}): ${p.skills.join(', ')}`);
      });
      if (split.shared.length > 0) say(io, `  in every part: ${split.shared.join(', ')}`);
      if (split.kept.length > 0) say(io, `  confused pairs kept together: ${split.kept.map((p) => `${p.a} + ${p.b}`).join('; ')}`);
      if (split.separated.length > 0) say(io, `  confused pairs separated (no part holds both): ${split.separated.map((p) => `${p.a} + ${p.b}`).join('; ')}`);
    }
    for (const u of split.unplaced) say(io, `  not placed: ${u.skill}: ${u.reason}`);
    for (const f of written) say(io, `wrote ${f}`);
  }
}

/** The `catalog` command. */
export const command: Command = { summary: 'Catalog health: budgets against limits, where requests go, and a split that fits', usage, run };
