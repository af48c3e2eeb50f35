/**
 * Evaluation setup: what to evaluate (the published revision, a draft, or
 * both side by side), which activation models (baselines, any provider spec,
 * failover chains) and which resource model (one for all, or each its own:
 * guide 9.4 pins the two selectors' models apart), the catalog the selector sees (by default every skill of the
 * skill's namespace), repeats and concurrency. Before anything runs it shows
 * the host's plan: cells, estimated calls and cost from the price table, and
 * each catalog's tokens against the 2,000-token budget with the runtime's
 * consequence when over it.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { DraftView, EvalPlanView, WorkbenchParams } from '../api/client';
import { describeCaseOrigins } from '../../core/report/cases';
import { formatCount, formatUsd } from '../../core/report/format';
import { useCommands } from '../shell/commands';
import { keymapEntry } from '../keymap';
import { keysOf } from '../shell/keymap';
import { currentPlatform, formatChord } from '../shell/keys';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import { paramsOf, useTabsStore } from '../shell/useTabsStore';
import type { TabViewProps } from '../shell/views';
import { evalsClient } from './useEvalsStore';
import { describeProjectDefaults, useProjectDefaults } from './projectDefaults';
import { savedConnection } from '../connections/queries';
import { openRunTab, SETUP_KIND } from './tabs';

type Target = 'published' | 'draft' | 'both';

const BASELINES = ['baseline:lexical', 'baseline:embedding'];


function runKey(): string {
  const chord = keysOf(keymapEntry('evals.run'), currentPlatform())[0];
  return chord ? formatChord(chord, currentPlatform()) : '';
}

export function EvalSetup({ tab }: TabViewProps) {
  // Two setup tabs are mounted at once: their labels must each name their own field.
  const uid = useId();
  const root = useRef<HTMLDivElement>(null);
  const params = paramsOf(tab, SETUP_KIND);
  const [connection, setConnection] = useState(params.connection ?? 'default');
  const [skills, setSkills] = useState<string[]>([]);
  const [skill, setSkill] = useState(params.skill ?? '');
  const [drafts, setDrafts] = useState<DraftView[] | string>([]);
  const [target, setTarget] = useState<Target>('published');
  const [models, setModels] = useState<string[]>(['baseline:lexical']);
  /** The one resource-selection model of every activation model; '' leaves each model its own. */
  const [resourceModel, setResourceModel] = useState('');
  const [specInput, setSpecInput] = useState('');
  const [specError, setSpecError] = useState<string | null>(null);
  const [bindingsText, setBindingsText] = useState('');
  const [customBindings, setCustomBindings] = useState(false);
  const [repeats, setRepeats] = useState(1);
  const [concurrency, setConcurrency] = useState(4);
  const [plan, setPlan] = useState<EvalPlanView | null>(null);
  const [planError, setPlanError] = useState<string | null>(null);
  const [planning, setPlanning] = useState(false);
  const [starting, setStarting] = useState(false);
  /** The gates and timeout of the workspace's project file: the run's verdict judges them, as `skillbench eval` does. */
  const [projectGates, setProjectGates] = useState<WorkbenchParams['evals.start']['gates']>(undefined);
  const [timeoutMs, setTimeoutMs] = useState<number | undefined>(undefined);

  // The workspace's skillbench.config.json gives the starting setup, applied once when it arrives;
  // what the tab was opened with (a connection) wins over the file.
  const project = useProjectDefaults();
  const applied = useRef(false);
  useEffect(() => {
    if (applied.current || !project?.config) return;
    applied.current = true;
    const { config } = project;
    if (config.models) setModels(config.models);
    if (config.limits?.repeats !== undefined) setRepeats(Math.min(100, config.limits.repeats));
    if (config.limits?.concurrency !== undefined) setConcurrency(Math.min(64, config.limits.concurrency));
    if (config.limits?.timeout_ms !== undefined) setTimeoutMs(Math.max(100, Math.min(600_000, config.limits.timeout_ms)));
    if (config.gates && Object.keys(config.gates).length > 0) setProjectGates(config.gates);
    // Only a saved connection can be evaluated here (a connection string is the CLI's).
    if (params.connection === undefined && config.connection && savedConnection(config.connection) !== undefined) setConnection(config.connection);
  }, [project, params.connection]);

  useEffect(() => {
    let live = true;
    evalsClient()['catalog.page']({ connection, limit: 2000 })
      .then((page) => {
        if (!live) return;
        const ids = page.items.map((m) => `${m.namespace}/${m.name}`);
        setSkills(ids);
        setSkill((s) => s || ids[0] || '');
      })
      .catch((error: unknown) => live && setPlanError(messageOf(error)));
    return () => {
      live = false;
    };
  }, [connection]);

  // Drafts come and go while the setup is open (an author saves one in the editor): re-read them on every change.
  const [draftsVersion, setDraftsVersion] = useState(0);
  useEffect(() => evalsClient().on('drafts.changed', () => setDraftsVersion((v) => v + 1)), []);
  useEffect(() => {
    let live = true;
    evalsClient()['drafts.list']()
      .then((r) => live && setDrafts(r.drafts))
      .catch((error: unknown) => live && setDrafts(messageOf(error)));
    return () => {
      live = false;
    };
  }, [draftsVersion]);

  const skillId = useMemo(() => {
    const [namespace, name] = skill.split('/');
    return namespace && name ? { namespace, name } : undefined;
  }, [skill]);
  const draft = typeof drafts === 'string' ? undefined : drafts.find((d) => skillId && d.origin.skill?.namespace === skillId.namespace && d.origin.skill?.name === skillId.name);
  const draftReason = typeof drafts === 'string' ? `drafts are not available: ${drafts}` : draft ? null : `no draft of ${skill || 'this skill'}: open it in the editor first`;

  const bindings = useMemo((): { value?: WorkbenchParams['evals.start']['bindings']; error?: string } => {
    if (!customBindings) return {};
    try {
      const parsed = JSON.parse(bindingsText) as unknown;
      if (!Array.isArray(parsed)) return { error: 'the bindings are a JSON array of {namespace, name, version, activation, required}' };
      return { value: parsed as WorkbenchParams['evals.start']['bindings'] };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }, [customBindings, bindingsText]);

  const request = useMemo((): WorkbenchParams['evals.start'] | undefined => {
    if (!skillId || models.length === 0 || bindings.error) return undefined;
    if (target !== 'published' && !draft) return undefined;
    const targets = target === 'published' ? [{ kind: 'published' as const, skill: skillId }] : [{ kind: 'draft' as const, draft: draft!.id }];
    return {
      targets,
      models,
      ...(resourceModel && { resource_model: resourceModel }),
      connection,
      compare_published: target === 'both',
      repeats,
      concurrency,
      ...(timeoutMs !== undefined && { timeout_ms: timeoutMs }),
      ...(projectGates && { gates: projectGates }),
      ...(bindings.value && { bindings: bindings.value }),
    };
  }, [skillId, models, resourceModel, bindings, target, draft, connection, repeats, concurrency, timeoutMs, projectGates]);

  useEffect(() => {
    if (!request) {
      setPlan(null);
      return;
    }
    let live = true;
    setPlanning(true);
    const timer = setTimeout(() => {
      evalsClient()['evals.plan'](request)
        .then((p) => {
          if (!live) return;
          setPlan(p);
          setPlanError(null);
        })
        .catch((error: unknown) => {
          if (!live) return;
          setPlan(null);
          setPlanError(messageOf(error));
        })
        .finally(() => live && setPlanning(false));
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [request]);

  const addSpec = async () => {
    const spec = specInput.trim();
    if (!spec) return;
    const check = await evalsClient()['models.check']({ spec });
    if (!check.ok) {
      setSpecError(check.error?.message ?? 'not a model spec');
      return;
    }
    setSpecError(null);
    // The check is a round trip: what was typed meanwhile (the next spec) stays in the field.
    setSpecInput((current) => (current.trim() === spec ? '' : current));
    setModels((m) => (m.includes(spec) ? m : [...m, spec]));
  };

  const cannotRun = !request ? 'Choose a skill, a target and at least one model' : planning ? 'Planning…' : !plan ? (planError ?? 'No plan yet') : !plan.ok ? 'The plan has problems' : starting ? 'Starting…' : true;
  const run = async () => {
    if (cannotRun !== true || !request) return;
    setStarting(true);
    try {
      const view = await evalsClient()['evals.start'](request);
      openRunTab(view.run, `${skill} · ${view.config_hash.slice(0, 8)}`);
    } catch (error) {
      useNotificationsStore.getState().push('error', messageOf(error));
    } finally {
      setStarting(false);
    }
  };
  useCommands(root, { 'evals.run': { enabled: () => cannotRun, run } });

  useEffect(() => {
    useTabsStore.getState().update(tab.id, { title: skill ? `Evaluate ${skill}` : 'New evaluation' });
  }, [skill, tab.id]);

  return (
    <div className="view eval-setup" ref={root} data-scope="evals" tabIndex={-1} data-autofocus data-testid="eval-setup">
      <div className="view-header">
        <h1>Evaluation setup</h1>
        <span className="muted">connection {connection}</span>
        <span className="spacer" />
        <button type="button" className="btn primary" data-testid="eval-run" disabled={cannotRun !== true} title={cannotRun === true ? `Run (${runKey()})` : cannotRun} onClick={() => void run()}>
          Run <kbd>{runKey()}</kbd>
        </button>
      </div>
      {project?.config && (
        <div className="eval-project-defaults" data-testid="eval-project-defaults">
          <span>
            Defaults from <span className="mono">{project.file}</span>: {describeProjectDefaults(project.config) || 'nothing set'}
          </span>
        </div>
      )}
      {project?.problem && (
        <div className="inline-error eval-project-defaults" data-testid="eval-project-defaults-problem" role="alert">
          {project.problem.message}. The built-in defaults apply until the file is fixed.
        </div>
      )}
      <div className="eval-setup-body">
        <section className="form-grid eval-form">
          <label htmlFor={`${uid}-skill`}>Skill</label>
          <select id={`${uid}-skill`} className="input" value={skill} onChange={(e) => setSkill(e.target.value)} data-testid="eval-skill">
            {skills.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>

          <span className="label">Target</span>
          <div className="segmented" role="radiogroup" aria-label="Target">
            {(['published', 'draft', 'both'] as const).map((t) => {
              const disabled = t !== 'published' && draftReason !== null;
              return (
                <label key={t} className="checkbox-row" title={disabled ? draftReason! : undefined}>
                  <input type="radio" name={`target-${tab.id}`} checked={target === t} disabled={disabled} onChange={() => setTarget(t)} data-testid={`eval-target-${t}`} />
                  {t === 'published' ? 'Published' : t === 'draft' ? 'Draft' : 'Draft vs published'}
                </label>
              );
            })}
          </div>
          {draftReason && target === 'published' && <span className="hint">{draftReason}</span>}

          <span className="label" title="The activation selector's models (guide 9.4): one column of the matrix each">
            Activation models
          </span>
          <div className="eval-models" data-testid="eval-models">
            {[...new Set([...BASELINES, ...models])].map((spec) => (
              <label key={spec} className="checkbox-row">
                <input type="checkbox" checked={models.includes(spec)} onChange={(e) => setModels((m) => (e.target.checked ? [...m, spec] : m.filter((x) => x !== spec)))} />
                <span className="mono ellipsis" title={spec}>
                  {spec}
                </span>
                {spec.startsWith('baseline:') && (
                  <span className="badge neutral" title="A deterministic baseline, not a language model">
                    baseline
                  </span>
                )}
              </label>
            ))}
            <div className="eval-add-model">
              <input
                className="input mono"
                placeholder="openai:fast, chain:groq:fast,openai:fast, openai-compatible:http://127.0.0.1:8080/v1#model"
                value={specInput}
                aria-label="Add a model spec"
                aria-invalid={specError ? true : undefined}
                data-testid="eval-model-spec"
                onChange={(e) => setSpecInput(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.metaKey && !e.ctrlKey) {
                    e.preventDefault();
                    e.stopPropagation();
                    void addSpec();
                  }
                }}
              />
              <button type="button" className="btn" onClick={() => void addSpec()} data-testid="eval-model-add">
                Add
              </button>
            </div>
            {specError && <span className="error-text">{specError}</span>}
          </div>

          <label htmlFor={`eval-resource-model-${tab.id}`}>Resource model</label>
          <div>
            <select id={`eval-resource-model-${tab.id}`} className="input eval-resource-model" value={resourceModel} onChange={(e) => setResourceModel(e.target.value)} data-testid="eval-resource-model">
              <option value="">Each activation model selects its own resources</option>
              {[...new Set([...BASELINES, ...models])].map((spec) => (
                <option key={spec} value={spec}>
                  {spec}
                </option>
              ))}
            </select>
            <span className="eval-field-hint">One model selects resources for every activation model above (guide 9.4 TRUVAG3_SKILL_RESOURCE_MODEL), or each selects its own.</span>
          </div>

          <span className="label">Catalog</span>
          <div>
            <label className="checkbox-row">
              <input type="checkbox" checked={customBindings} onChange={(e) => setCustomBindings(e.target.checked)} />
              Use an agent&apos;s binding list instead of every skill of {skillId?.namespace ?? 'the namespace'}
            </label>
            {customBindings && (
              <textarea className="input mono eval-bindings" rows={5} value={bindingsText} aria-invalid={bindings.error ? true : undefined} placeholder='[{"namespace":"travel","name":"weather-assessment","version":"published","activation":"auto","required":false}]' onChange={(e) => setBindingsText(e.target.value)} />
            )}
            {bindings.error && <span className="error-text">{bindings.error}</span>}
          </div>

          <label htmlFor={`${uid}-repeats`}>Repeats</label>
          <input id={`${uid}-repeats`} className="input narrow" type="number" min={1} max={100} value={repeats} onChange={(e) => setRepeats(Math.max(1, Math.min(100, Number(e.target.value) || 1)))} data-testid="eval-repeats" />
          <label htmlFor={`${uid}-concurrency`}>Concurrency</label>
          <input id={`${uid}-concurrency`} className="input narrow" type="number" min={1} max={64} value={concurrency} onChange={(e) => setConcurrency(Math.max(1, Math.min(64, Number(e.target.value) || 1)))} />
        </section>

        <section className="eval-plan" aria-live="polite" data-testid="eval-plan">
          <h2>Before running</h2>
          {planError && <div className="inline-error">{planError}</div>}
          {!plan && !planError && <p className="muted">{planning ? 'Planning…' : 'Choose a skill and a model.'}</p>}
          {plan && <PlanSummary plan={plan} resourceModel={resourceModel} />}
        </section>
      </div>
    </div>
  );
}

function PlanSummary({ plan, resourceModel }: { plan: EvalPlanView; resourceModel: string }) {
  // Calls of a shared resource model are the plan's calls that no activation model makes.
  const resourceCalls = plan.estimated_calls - plan.models.reduce((n, m) => n + m.estimated_calls, 0);
  if (!plan.ok) {
    return (
      <div className="inline-error" data-testid="eval-plan-problems">
        <div>
          {plan.problems.map((p, i) => (
            <div key={i}>
              <strong>{p.skill}</strong> {p.message}
              {p.findings.map((f, j) => (
                <div key={j} className="mono">
                  {f.path} {f.message}
                </div>
              ))}
            </div>
          ))}
        </div>
      </div>
    );
  }
  return (
    <div>
      <div className="eval-plan-totals">
        <div>
          <strong data-testid="plan-cells">{formatCount(plan.cells)}</strong> cells
        </div>
        <div>
          ≈<strong data-testid="plan-calls">{formatCount(plan.estimated_calls)}</strong> calls
        </div>
        <div>
          ≈<strong data-testid="plan-cost">{formatUsd(plan.estimated_cost_usd)}</strong>
          {plan.estimated_cost_usd === null && <span className="muted"> (a model&apos;s price is unknown)</span>}
        </div>
      </div>
      <table className="eval-table">
        <thead>
          <tr>
            <th>Model</th>
            <th className="n">Cells</th>
            <th className="n">Calls</th>
            <th className="n">Cost</th>
          </tr>
        </thead>
        <tbody>
          {plan.models.map((m) => (
            <tr key={m.spec}>
              <td className="mono">{m.spec}</td>
              <td className="n">{formatCount(m.cells)}</td>
              <td className="n">{formatCount(m.estimated_calls)}</td>
              <td className="n">{formatUsd(m.estimated_cost_usd)}</td>
            </tr>
          ))}
          {resourceModel && resourceCalls > 0 && (
            <tr data-testid="plan-resource-model">
              <td>
                <span className="mono">{resourceModel}</span> <span className="muted">(resources of every model)</span>
              </td>
              <td className="n">—</td>
              <td className="n">{formatCount(resourceCalls)}</td>
              <td className="n" />
            </tr>
          )}
        </tbody>
      </table>
      {plan.skills.map((s) =>
        s.variants.map((v) => {
          const over = v.catalog.consequence !== null;
          const share = Math.min(1, v.catalog.tokens / Math.max(1, v.catalog.budget));
          return (
            <div key={`${s.skill}|${v.label}`} className="eval-catalog" data-testid="plan-catalog">
              <div>
                Catalog of <strong>{s.skill}</strong> ({v.label}{v.version === 'draft' ? '' : ` v${v.version}`}): {v.catalog.entries.length} skills, {formatCount(s.cases)} cases{' '}
                <span className="muted" data-testid="plan-case-origins">
                  ({describeCaseOrigins({ examples: s.examples, extra: s.extra_cases, adjacent: s.adjacent_cases }, s.extras_file)})
                </span>
              </div>
              <div className="eval-meter-row">
                <span className={`meter wide${over ? ' over' : ''}`}>
                  <span style={{ width: `${share * 100}%` }} />
                </span>
                <span data-testid="plan-catalog-tokens">
                  {formatCount(v.catalog.tokens)} / {formatCount(v.catalog.budget)} tokens
                </span>
              </div>
              {over && <div className="inline-error">{v.catalog.consequence}</div>}
            </div>
          );
        }),
      )}
      {plan.warnings.map((w, i) => (
        <div key={i} className="eval-warning">
          {w.message}
        </div>
      ))}
      {plan.resumable && (
        <div className="eval-warning" data-testid="plan-resumable">
          An interrupted run of this configuration has {formatCount(plan.resumable.done)} of {formatCount(plan.resumable.total)} cells: Run resumes it and redoes none.
        </div>
      )}
      <div className="faint">config {plan.config_hash}</div>
    </div>
  );
}
