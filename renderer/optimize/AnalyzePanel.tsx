/**
 * "Analyze": the authoring advisor (guide 5.3) on the editor's draft through
 * `advisor.analyze`. Lists the advice and every proposal, each previewed as
 * the before/after of the fields it changes and applied to the draft only on
 * the author's click; dropped proposals are listed with their reason. An
 * invalid draft gets its findings and no model call. Nothing is published.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { AdvisorAnalysisView, AdvisorProposalView, ProviderDescription } from '../../core/api/contract';
import { workbenchClient } from '../api/client';
import type { EditorRef } from '../editor/actions';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { applyPatchToText, previewPatch } from './patching';
import { draftText, replaceDraftText } from './store';

const MODEL_KEY = 'skillbench.advisor.model';

function rememberedModel(): string {
  try {
    return localStorage.getItem(MODEL_KEY) ?? '';
  } catch {
    return '';
  }
}

function Proposal({ proposal, normalized, onApply, applied }: { proposal: AdvisorProposalView; normalized: unknown; onApply: () => void; applied: boolean }) {
  const fields = previewPatch(normalized, JSON.parse(proposal.text) as unknown, proposal.patch);
  return (
    <li className="authoring-proposal" data-testid={`analyze-proposal-${proposal.id}`}>
      <div className="authoring-proposal-head">
        <strong>
          {proposal.id} · <SafeText text={proposal.title} />
        </strong>
        <button type="button" className="btn small primary" onClick={onApply} disabled={applied} data-testid={`analyze-apply-${proposal.id}`}>
          {applied ? 'Applied' : 'Apply to draft'}
        </button>
      </div>
      <div className="muted">
        <SafeText text={proposal.rationale} />
      </div>
      {proposal.warnings_resolved.length > 0 && <div className="inline-ok">resolves {proposal.warnings_resolved.map((w) => w.code).join(', ')}</div>}
      {proposal.warnings_added.length > 0 && <div className="error-text">adds warnings: {proposal.warnings_added.map((w) => `${w.code} at ${w.path}`).join(', ')}</div>}
      {fields.map((f) => (
        <div key={f.pointer} className="authoring-diff" data-testid="analyze-diff">
          <span className="mono faint">{f.pointer}</span>
          <pre className="before">{f.before === undefined ? '(absent)' : <SafeText text={f.before} />}</pre>
          <pre className="after">{f.after === undefined ? '(removed)' : <SafeText text={f.after} />}</pre>
        </div>
      ))}
    </li>
  );
}

/** Providers that can run the advisor now: a hosted one with its key, a configured local model or endpoint; never a baseline (it does no structured tasks). */
export function analysers(providers: readonly ProviderDescription[]): ProviderDescription[] {
  return providers.filter(
    (p) => p.kind !== 'baseline' && (p.keyConfigured === true || (p.id === 'openai-compatible' && Boolean(p.baseUrl)) || (p.kind === 'local' && p.aliases.some((a) => a.model))),
  );
}

/** Why `spec` cannot analyse, or undefined when it may. */
function specProblem(spec: string, capable: readonly ProviderDescription[] | undefined): string | undefined {
  if (spec === '') return capable && capable.length === 0 ? noAnalyser : 'Name the advisor model';
  if (/^baseline:/i.test(spec)) return 'A baseline cannot analyse: it does no structured tasks. Name a hosted or local model.';
  return undefined;
}

const noAnalyser: string = 'No model that can analyse is configured: set a provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GROQ_API_KEY), an OpenAI-compatible endpoint or a local model, then restart.';

export function AnalyzePanel({ editor }: { editor: EditorRef }) {
  const providers = useQuery({ queryKey: ['models', 'providers'], queryFn: () => workbenchClient()['models.list']({}), staleTime: 60_000 });
  const capable = providers.data ? analysers(providers.data.providers) : undefined;
  const [model, setModel] = useState(rememberedModel);
  const [busy, setBusy] = useState(false);
  const [view, setView] = useState<AdvisorAnalysisView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [applied, setApplied] = useState<Set<string>>(new Set());
  const [note, setNote] = useState<string | undefined>();

  const analyze = async () => {
    const text = draftText(editor);
    if (text === undefined) return setError('The editor is not open any more.');
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    setApplied(new Set());
    try {
      localStorage.setItem(MODEL_KEY, model.trim());
    } catch {
      // Remembering the model is a convenience.
    }
    try {
      setView(await workbenchClient()['advisor.analyze']({ text, skill: editor.skill, model: model.trim() }));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const apply = (p: AdvisorProposalView) => {
    const text = draftText(editor);
    if (text === undefined) return setError('The editor is not open any more.');
    const patched = applyPatchToText(text, p.patch);
    if (!patched.ok) return setError(`${p.id} not applied: ${patched.message}`);
    if (!replaceDraftText(editor, patched.text)) return setError('The editor is not open any more.');
    setError(undefined);
    setApplied(new Set([...applied, p.id]));
    setNote(`Applied ${p.id} to the draft (not published; Ctrl+Z undoes it).`);
  };

  const blocked = specProblem(model.trim(), capable);
  const normalized = view?.normalized_text ? (JSON.parse(view.normalized_text) as unknown) : undefined;
  const analysis = view?.analysis;

  return (
    <div className="authoring analyze" data-testid="analyze-panel">
      <p className="muted">
        The advisor sees the metadata, instructions, tool hints, activation examples, validation results and a resource index — never resource bodies or the change reason. Each proposal is
        checked against the package before it is shown.
      </p>
      <p data-testid="analyze-models">
        {capable === undefined
          ? providers.error
            ? `Which models can analyse is unknown: ${messageOf(providers.error)}`
            : 'Looking for models that can analyse…'
          : capable.length === 0
            ? noAnalyser
            : `Models that can analyse here: ${capable.map((p) => `${p.label} (${p.specExample})`).join(', ')}. Baselines cannot.`}
      </p>
      <div className="form-grid">
        <label htmlFor="analyze-model">Advisor model</label>
        <input id="analyze-model" className="input" placeholder="openai:smart, anthropic:smart, openai-compatible:URL#MODEL" value={model} onChange={(e) => setModel(e.target.value)} data-testid="analyze-model" data-autofocus />
      </div>
      <div className="authoring-actions">
        <button
          type="button"
          className="btn primary"
          disabled={busy || blocked !== undefined}
          title={blocked}
          onClick={() => void analyze()}
          data-testid="analyze-run"
        >
          {busy ? 'Analyzing…' : 'Analyze'}
        </button>
        {blocked && (
          <span className="muted" data-testid="analyze-blocked">
            {blocked}
          </span>
        )}
      </div>
      {error && (
        <div className="inline-error" role="alert" data-testid="analyze-error">
          <SafeText text={error} />
        </div>
      )}
      {view && !analysis && (
        <div className="inline-error" data-testid="analyze-invalid">
          The draft is not valid, so the advisor was not called: {view.validation.errors.map((f) => `${f.path || '(document)'}: ${f.message}`).join('; ')}
        </div>
      )}
      {analysis && (
        <>
          <section data-testid="analyze-summary">
            <strong>Summary</strong> <SafeText text={analysis.summary} />
            {analysis.suggestions.length > 0 && (
              <ul className="authoring-suggestions">
                {analysis.suggestions.map((s, i) => (
                  <li key={i}>
                    {s.path && <span className="mono faint">{s.path} </span>}
                    <SafeText text={s.message} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <strong>
            Proposals: {analysis.proposals.length} kept, {analysis.dropped.length} dropped
          </strong>
          <ul className="authoring-proposals">
            {analysis.proposals.map((p) => (
              <Proposal key={p.id} proposal={p} normalized={normalized} applied={applied.has(p.id)} onApply={() => apply(p)} />
            ))}
          </ul>
          {analysis.dropped.length > 0 && (
            <ul className="authoring-dropped" data-testid="analyze-dropped">
              {analysis.dropped.map((d) => (
                <li key={d.id} className="muted">
                  {d.id} · <SafeText text={d.title} /> — dropped ({d.reason}): <SafeText text={d.message} />
                </li>
              ))}
            </ul>
          )}
          {note && (
            <div className="inline-ok" data-testid="analyze-applied">
              {note}
            </div>
          )}
        </>
      )}
    </div>
  );
}
