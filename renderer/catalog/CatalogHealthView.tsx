/**
 * Catalog health: the report `skillbench catalog` prints, for a namespace of
 * the connection or a bindings file of the open workspace. Each runtime budget
 * is a meter against its limit (over it in the error colour, the limit and its
 * deployment variable named), every skill's share of the activation catalog
 * and manifest size, every broken limit in words, the split into agent
 * catalogs that fit when a runtime limit is broken, and, for an eval run, where
 * its requests went. The figures come from `catalog.health`, the same report
 * the CLI builds; nothing is recomputed here.
 */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { describeBudget, type Budget } from '../../core/catalog/health';
import { workbenchClient, type CatalogHealthReport } from '../api/client';
import { useConnection } from '../connections/queries';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { paramsOf, useTabsStore } from '../shell/useTabsStore';
import type { TabViewProps } from '../shell/views';
import { catalogQuery } from '../storeData/queries';
import { useEvalRuns } from '../evals/useEvalsStore';
import { CATALOG_HEALTH_KIND, type CatalogHealthParams } from './healthTab';
import './catalogHealth.css';

const count = (n: number) => n.toLocaleString('en');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const UNITS: Partial<Record<Budget['kind'], string>> = { catalog_tokens: 'tokens' };

/** One runtime budget as a meter against its limit. */
function BudgetMeter({ budget }: { budget: Budget }) {
  const fill = budget.max > 0 ? Math.min(budget.value / budget.max, 1) : 1;
  return (
    <div className={`health-meter${budget.over ? ' over' : ''}`} data-testid={`health-budget-${budget.kind}`} data-over={budget.over}>
      <div className="health-meter-label">
        <span className="health-meter-name">{budget.label}</span>
        <span className="health-meter-figure">
          {count(budget.value)} / {count(budget.max)} {UNITS[budget.kind] ?? ''}
        </span>
      </div>
      <div className="health-meter-track" role="meter" aria-label={budget.label} aria-valuemin={0} aria-valuemax={budget.max} aria-valuenow={budget.value} aria-valuetext={describeBudget(budget)}>
        <div className="health-meter-fill" style={{ width: `${(fill * 100).toFixed(1)}%` }} />
      </div>
      <div className="health-meter-note">
        {budget.over ? <strong>Over the limit by {count(budget.value - budget.max)}</strong> : <span className="muted">Within the limit ({count(budget.max - budget.value)} to spare)</span>}
        <div className="health-meter-limit mono">
          {budget.limit}
          {budget.variable && <> · {budget.variable}</>}
        </div>
      </div>
    </div>
  );
}

/** The skills table: activation, pinned version, catalog tokens and share, manifest size against the authoring limits. */
function SkillsTable({ report }: { report: CatalogHealthReport }) {
  const h = report.health;
  const manifests = new Map(h.budgets.filter((b) => b.skill !== undefined).map((b) => [`${b.skill}|${b.kind}`, b]));
  const bytesLimit = h.budgets.find((b) => b.kind === 'manifest_bytes');
  const tokensLimit = h.budgets.find((b) => b.kind === 'manifest_tokens');
  const top = Math.max(...h.skills.map((s) => s.share), 0);
  const cell = (b: Budget | undefined) => (b ? <td className={`n${b.over ? ' over' : ''}`} title={b.over ? describeBudget(b) : undefined}>{count(b.value)}{b.over ? ' (over)' : ''}</td> : <td className="n muted">–</td>);
  return (
    <table className="health-table" aria-label="Skills" data-testid="health-skills">
      <thead>
        <tr>
          <th>Skill</th>
          <th>Activation</th>
          <th>Version</th>
          <th className="n">Catalog tokens</th>
          <th className="share-head">Share of the catalog</th>
          <th className="n">Manifest bytes{bytesLimit ? ` (≤ ${count(bytesLimit.max)})` : ''}</th>
          <th className="n">Manifest tokens{tokensLimit ? ` (≤ ${count(tokensLimit.max)})` : ''}</th>
        </tr>
      </thead>
      <tbody>
        {h.skills.map((s) => {
          const listed = s.activation === 'auto' && s.status === 'pinned';
          return (
            <tr key={s.skill}>
              <td className="mono">
                <SafeText text={s.skill} />
              </td>
              <td>{s.activation}{s.required ? ', required' : ''}</td>
              <td className={s.status === 'pinned' ? '' : 'over'}>{s.status === 'pinned' ? `v${s.version}` : s.status.replace(/_/g, ' ')}</td>
              <td className="n">{listed ? count(s.catalog_tokens) : '–'}</td>
              <td className="share">
                {listed ? (
                  <span className="share-cell">
                    <span className="share-bar" aria-hidden="true">
                      <span style={{ width: `${top > 0 ? ((s.share / top) * 100).toFixed(1) : 0}%` }} />
                    </span>
                    <span className="share-figure">{pct(s.share)}</span>
                  </span>
                ) : (
                  <span className="muted">not in the catalog</span>
                )}
              </td>
              {cell(manifests.get(`${s.skill}|manifest_bytes`))}
              {cell(manifests.get(`${s.skill}|manifest_tokens`))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The proposed split: its parts with their skills and totals against the limits. */
function SplitSection({ report }: { report: CatalogHealthReport }) {
  const split = report.split;
  if (!split) return null;
  return (
    <section className="health-section" aria-label="Proposed split" data-testid="health-split">
      <h2>{split.needed ? `Proposed split into ${split.parts.length} agent catalog${split.parts.length === 1 ? '' : 's'} that each fit` : 'No split needed: the catalog fits as it is'}</h2>
      {split.needed && (
        <div className="health-parts">
          {split.parts.map((p, i) => (
            <div className="health-part" key={i} data-testid={`health-part-${i + 1}`}>
              <h3>Part {i + 1}</h3>
              <p className="muted">
                {count(p.auto_candidates)} auto candidates (≤ {count(report.limits.maxAutoCandidates)}) · {count(p.catalog_tokens)} catalog tokens (≤ {count(report.limits.catalogTokenBudget)})
              </p>
              <ul className="mono">
                {p.skills.map((s) => (
                  <li key={s}>
                    <SafeText text={s} />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
      {split.shared.length > 0 && <p>In every part: <SafeText text={split.shared.join(', ')} /></p>}
      {split.kept.length > 0 && <p>Confused pairs kept together: <SafeText text={split.kept.map((p) => `${p.a} + ${p.b}`).join('; ')} /></p>}
      {split.separated.length > 0 && <p className="health-warning">Confused pairs separated (no part holds both): <SafeText text={split.separated.map((p) => `${p.a} + ${p.b}`).join('; ')} /></p>}
      {split.unplaced.map((u) => (
        <p className="over" key={u.skill}>
          Not placed: <SafeText text={`${u.skill}: ${u.reason}`} />
        </p>
      ))}
      {split.needed && <p className="muted">Write these parts as bindings files with <code>skillbench catalog {report.catalog} --write DIR</code>.</p>}
    </section>
  );
}

/** Where the run's should-activate requests went: row the skill asked for, column the skill that fired. */
function RoutingSection({ report }: { report: CatalogHealthReport }) {
  const m = report.routing;
  if (!m) return null;
  const index = new Map(m.skills.map((s, i) => [s, i + 1]));
  return (
    <section className="health-section" aria-label="Routing" data-testid="health-routing">
      <h2>Where the requests of run {report.run} went</h2>
      <p className="muted">
        {count(m.cells)} answered cells · models {m.models.join(', ') || 'none'} · variants {m.variants.join(', ') || 'none'}. Row: the skill asked for; column: the skill that fired.
      </p>
      <div className="health-scroll">
        <table className="health-table routing">
          <thead>
            <tr>
              <th className="n">#</th>
              <th>Skill</th>
              <th className="n">Requests</th>
              {m.skills.map((s, i) => (
                <th className="n" key={s} title={s}>{i + 1}</th>
              ))}
              <th className="n">None</th>
              <th className="n">Adjacent taken</th>
            </tr>
          </thead>
          <tbody>
            {m.rows.map((r) => (
              <tr key={r.skill}>
                <td className="n">{index.get(r.skill)}</td>
                <td className="mono"><SafeText text={r.skill} /></td>
                <td className="n">{count(r.requests)}</td>
                {m.skills.map((s) => {
                  const n = r.went_to[s] ?? 0;
                  return (
                    <td key={s} className={`n${n > 0 && s !== r.skill ? ' over' : n > 0 ? ' hit' : ' muted'}`}>{n > 0 ? n : '·'}</td>
                  );
                })}
                <td className="n">{r.none}</td>
                <td className="n">{r.adjacent.cells > 0 ? `${r.adjacent.activated}/${r.adjacent.cells}` : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {m.pairs.length === 0 ? (
        <p className="muted">No two skills took each other’s requests or fired together.</p>
      ) : (
        <ul>
          {m.pairs.map((p) => (
            <li key={`${p.a}|${p.b}`}>
              <SafeText text={`${p.a} ↔ ${p.b}`} />: {p.a_to_b + p.b_to_a} stolen ({p.a_to_b}/{p.b_to_a}), {p.fired_together} together
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The Catalog health tab of one connection. */
export function CatalogHealthView({ tab }: TabViewProps) {
  const params = paramsOf(tab, CATALOG_HEALTH_KIND);
  const { connection } = params;
  const conn = useConnection(connection);
  const setParams = useTabsStore((s) => s.setParams);
  const catalog = useInfiniteQuery(catalogQuery(connection));
  const namespaces = useMemo(() => [...new Set((catalog.data?.pages ?? []).flatMap((p) => p.entries.map((e) => e.namespace)))].sort(), [catalog.data]);
  const runs = useEvalRuns();

  // Without a namespace or a bindings file yet, the catalog's first namespace is measured.
  useEffect(() => {
    if (params.namespace === undefined && params.bindings === undefined && namespaces.length > 0) setParams(tab.id, CATALOG_HEALTH_KIND, { ...params, namespace: namespaces[0] });
  }, [params, namespaces, tab.id, setParams]);

  const [source, setSource] = useState<'namespace' | 'bindings'>(params.bindings !== undefined ? 'bindings' : 'namespace');
  const [namespace, setNamespace] = useState(params.namespace ?? '');
  const [bindings, setBindings] = useState(params.bindings ?? '');
  const [run, setRun] = useState(params.run ?? '');
  useEffect(() => setNamespace((n) => (n === '' ? (params.namespace ?? '') : n)), [params.namespace]);

  const target = params.bindings !== undefined ? { bindings: params.bindings } : params.namespace !== undefined ? { namespace: params.namespace } : undefined;
  const report = useQuery({
    queryKey: ['catalogHealth', connection, target, params.run ?? null],
    queryFn: () => workbenchClient()['catalog.health']({ connection, ...target, ...(params.run !== undefined && { run: params.run }) }),
    enabled: target !== undefined,
    retry: false,
  });

  const check = (e: FormEvent) => {
    e.preventDefault();
    const next: CatalogHealthParams = { connection, ...(source === 'bindings' ? { bindings: bindings.trim() } : { namespace: namespace.trim() }), ...(run !== '' && { run }) };
    setParams(tab.id, CATALOG_HEALTH_KIND, next);
    if (JSON.stringify(next) === JSON.stringify(params)) void report.refetch();
  };

  const r = report.data;
  const runtime = r?.health.budgets.filter((b) => b.skill === undefined) ?? [];
  return (
    <div className="view catalog-health-view" data-testid={`catalog-health-${connection}`}>
      <div className="view-header">
        <h1>
          Catalog health <span className="muted">·</span> <SafeText text={conn?.label ?? connection} />
        </h1>
      </div>
      <form className="health-form" onSubmit={check} aria-label="Catalog to measure">
        <fieldset className="health-source" aria-label="Catalog">
          <label>
            <input type="radio" name={`health-source-${tab.id}`} checked={source === 'namespace'} onChange={() => setSource('namespace')} /> Namespace
          </label>
          <input className="input" aria-label="Namespace" list={`health-ns-${tab.id}`} value={namespace} disabled={source !== 'namespace'} onChange={(e) => setNamespace(e.target.value)} placeholder="docs" />
          <datalist id={`health-ns-${tab.id}`}>
            {namespaces.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <label>
            <input type="radio" name={`health-source-${tab.id}`} checked={source === 'bindings'} onChange={() => setSource('bindings')} /> Bindings file
          </label>
          <input className="input" aria-label="Bindings file" value={bindings} disabled={source !== 'bindings'} onChange={(e) => setBindings(e.target.value)} placeholder="agents/support.json" title="A bindings file of the open workspace" />
        </fieldset>
        <label className="health-run">
          Eval run{' '}
          <select className="input" aria-label="Eval run" value={run} onFocus={() => void runs.refetch()} onChange={(e) => setRun(e.target.value)}>
            <option value="">None</option>
            {(runs.data ?? []).map((x) => (
              <option key={x.run} value={x.run}>
                {x.run} ({x.status})
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary small">
          Check
        </button>
      </form>
      <div className="health-body" data-testid="health-body">
        {target === undefined && !catalog.isPending && <div className="empty-state">Choose a namespace or a bindings file to measure.</div>}
        {report.isFetching && <p className="muted" role="status">Measuring {params.bindings ?? params.namespace}…</p>}
        {report.isError && (
          <div className="inline-error" role="alert" data-testid="health-error">
            <strong>The catalog could not be measured.</strong> <span className="isolate">{messageOf(report.error)}</span>
          </div>
        )}
        {r && (
          <>
            <section className="health-section" aria-label="Budgets" data-testid="health-budgets">
              <h2>
                Runtime budgets of <SafeText text={r.catalog} /> <span className="muted">({count(r.health.skills.length)} bindings)</span>
              </h2>
              <div className="health-meters">
                {runtime.map((b) => (
                  <BudgetMeter key={b.kind} budget={b} />
                ))}
              </div>
              {r.health.broken.length === 0 ? (
                <p className="health-verdict ok" data-testid="health-verdict">Every budget is within its limit.</p>
              ) : (
                <div className="health-verdict over" role="alert" data-testid="health-verdict">
                  <strong>
                    {r.health.broken.length} limit{r.health.broken.length === 1 ? '' : 's'} broken
                  </strong>
                  <ul>
                    {r.health.broken.map((b) => (
                      <li key={`${b.kind}|${b.skill ?? ''}`}>
                        <SafeText text={describeBudget(b)} />
                      </li>
                    ))}
                  </ul>
                  {!r.health.selector_asked && <p>The runtime skips automatic activation for this catalog: the selector is never asked.</p>}
                </div>
              )}
              {r.warnings.map((w) => (
                <p className="health-warning" key={w}>
                  <SafeText text={w} />
                </p>
              ))}
            </section>
            <SplitSection report={r} />
            <section className="health-section" aria-label="Skills">
              <h2>Skills and their share of the activation catalog</h2>
              <div className="health-scroll">
                <SkillsTable report={r} />
              </div>
            </section>
            <RoutingSection report={r} />
          </>
        )}
      </div>
    </div>
  );
}
