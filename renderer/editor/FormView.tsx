/**
 * The package editor's form view: the fields of the package the JSON view
 * holds, read from the same text on every render and written back through
 * `onSet` as the smallest text edit (see `formEdits.ts`), so the two views
 * never disagree and neither loses the other's edits. Each validation finding
 * is shown beside the field its JSON Pointer points into. When the text does
 * not parse, the form says where and sends the author back to the JSON view;
 * it never writes over text it cannot read. Package text is rendered as
 * React text only (inputs, `SafeText`), so it stays inert.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { joinPointer } from '../../core/package/parse';
import { BOUNDARIES, type Finding, type SkillId } from '../../core/package/types';
import { hasControls, SafeText } from '../shell/SafeText';
import { assignFindings, readFormDocument, valueAt } from './formEdits';
import type { PackageMeter } from './meters';

export interface FormViewProps {
  skill: SkillId;
  text: string;
  findings: Finding[];
  meters: PackageMeter[];
  /** Sets the value at a JSON Pointer (the editor turns it into one text edit). */
  onSet(pointer: string, value: unknown): void;
  /** Goes to the JSON view, at a line when one is known. */
  onShowJson(line?: number, column?: number): void;
  /** Undo / redo in the one text's history. */
  onHistory(direction: 'undo' | 'redo'): void;
  readOnly?: boolean;
}

const RESOURCE_TEMPLATE = {
  name: 'new-resource',
  description: '',
  load_when: '',
  applies_to: [],
  required_when_selected: false,
  content_type: 'text/markdown',
  content: '',
};

/** The test id of the field at `pointer`: `/resources/0/name` → `form-field-resources-0-name`. */
export function fieldTestId(pointer: string): string {
  return `form-field${pointer.replace(/[^A-Za-z0-9_]+/g, '-')}`;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/**
 * A text box applies the direction controls in its value (an override makes
 * `gnp.exe` read `exe.png`); below such a value the form shows it again with
 * every control as a visible code point, so what the box shows cannot mislead.
 */
function Controls({ text }: { text: string }) {
  if (!hasControls(text)) return null;
  return (
    <p className="form-controls" data-testid="form-controls">
      Holds hidden direction or invisible characters; as stored: <SafeText text={text} />
    </p>
  );
}

function FieldProblems({ findings }: { findings: Finding[] | undefined }) {
  if (!findings || findings.length === 0) return null;
  return (
    <ul className="form-problems">
      {findings.map((f, i) => (
        <li key={`${f.code}:${f.path}:${i}`} className={f.severity === 'error' ? 'err' : 'warn'} data-testid="form-problem" data-pointer={f.path} data-code={f.code}>
          <span aria-label={f.severity}>{f.severity === 'error' ? '✖' : '⚠'}</span> <SafeText text={f.message} />
        </li>
      ))}
    </ul>
  );
}

export function FormView({ skill, text, findings, meters, onSet, onShowJson, onHistory, readOnly = false }: FormViewProps) {
  const doc = useMemo(() => readFormDocument(text), [text]);

  if (!doc.ok) {
    return (
      <div className="editor-form" data-testid="editor-form">
        <div className="form-unreadable" role="alert" data-testid="form-unreadable">
          <strong>The form cannot show this package</strong>
          <p>
            The JSON {doc.line !== undefined ? `at line ${doc.line}, column ${doc.column ?? 1}` : ''} does not read: <SafeText text={doc.message} />. The form changes nothing until the JSON is fixed.
          </p>
          <button type="button" className="btn small primary" onClick={() => onShowJson(doc.line, doc.column)} data-testid="form-show-json">
            Fix it in the JSON view
          </button>
        </div>
      </div>
    );
  }
  return <Fields value={doc.value} skill={skill} findings={findings} meters={meters} onSet={onSet} onHistory={onHistory} readOnly={readOnly} />;
}

function Fields({ value, skill, findings, meters, onSet, onHistory, readOnly = false }: Omit<FormViewProps, 'text' | 'onShowJson'> & { value: Record<string, unknown> }) {
  const resources = Array.isArray(value['resources']) ? (value['resources'] as unknown[]) : undefined;
  const examples = valueAt(value, '/activation_examples');
  const pointers = useMemo(() => {
    const list = ['', '/display_name', '/description', '/domains', '/tags', '/planning_instructions', '/response_instructions', '/tool_hints', '/change_reason', '/resources', '/activation_examples'];
    for (const key of ['planning_instructions', 'response_instructions', 'tool_hints']) {
      const items = value[key];
      if (Array.isArray(items)) items.forEach((_, i) => list.push(joinPointer(`/${key}`, i)));
    }
    for (const kind of ['should_activate', 'should_not_activate']) {
      const list2 = valueAt(value, `/activation_examples/${kind}`);
      list.push(`/activation_examples/${kind}`);
      if (Array.isArray(list2)) list2.forEach((_, i) => list.push(`/activation_examples/${kind}/${i}`));
    }
    resources?.forEach((_, i) => {
      list.push(`/resources/${i}`);
      for (const f of Object.keys(RESOURCE_TEMPLATE)) list.push(`/resources/${i}/${f}`);
    });
    return list;
  }, [value, resources]);
  const placed = useMemo(() => assignFindings(findings, pointers), [findings, pointers]);
  const at = (pointer: string) => placed.get(pointer);
  const description = meters.find((m) => m.id === 'description');

  const field = (pointer: string, label: string, control: ReactNode, extra?: ReactNode) => (
    <div className={`form-field ${at(pointer)?.some((f) => f.severity === 'error') ? 'has-error' : ''}`} data-testid={fieldTestId(pointer)} data-pointer={pointer}>
      <div className="form-label-row">
        <label className="form-label" htmlFor={`form-input${pointer}`}>
          {label}
        </label>
        {extra}
      </div>
      {control}
      <FieldProblems findings={at(pointer)} />
    </div>
  );

  const textInput = (pointer: string, multiline: boolean, rows = 3) => {
    const current = valueAt(value, pointer);
    if (current !== undefined && typeof current !== 'string') return <p className="muted form-wrong-type">Not text in the JSON: edit it in the JSON view.</p>;
    const common = {
      id: `form-input${pointer}`,
      className: 'input',
      value: current ?? '',
      readOnly,
      spellCheck: multiline,
      'aria-invalid': at(pointer)?.some((f) => f.severity === 'error') ? true : undefined,
      'data-testid': `form-input${pointer.replace(/[^A-Za-z0-9_]+/g, '-')}`,
      'data-pointer': pointer,
    };
    return (
      <>
        {multiline ? <textarea {...common} rows={rows} onChange={(e) => onSet(pointer, e.target.value)} /> : <input {...common} type="text" onChange={(e) => onSet(pointer, e.target.value)} />}
        <Controls text={current ?? ''} />
      </>
    );
  };

  return (
    <div
      className="editor-form"
      data-testid="editor-form"
      onKeyDown={(e) => {
        const mod = e.ctrlKey || e.metaKey;
        if (!mod || e.altKey) return;
        const key = e.key.toLowerCase();
        if (key === 'z' || key === 'y') {
          e.preventDefault();
          onHistory(key === 'y' || e.shiftKey ? 'redo' : 'undo');
        }
      }}
    >
      <FieldProblems findings={at('')} />
      <section className="form-section" aria-label="Identity">
        <div className="form-identity" data-testid="form-identity">
          <span>
            <span className="muted">Namespace</span> <code className="isolate">{skill.namespace}</code>
          </span>
          <span>
            <span className="muted">Name</span> <code className="isolate">{skill.name}</code>
          </span>
          <span className="muted">The identity is the skill's address; it is not part of the package text.</span>
        </div>
        {field('/display_name', 'Display name', textInput('/display_name', false))}
        {field(
          '/description',
          'Description',
          textInput('/description', true, 4),
          description && (
            <span className={`form-meter ${description.level}`} title={description.title} data-testid="form-description-meter" data-level={description.level}>
              {description.used === null ? '—' : description.used.toLocaleString('en')} / {description.limit.toLocaleString('en')} chars
              <span className={`meter ${description.level === 'ok' ? '' : description.level}`} aria-hidden="true">
                <span style={{ width: `${description.used === null ? 0 : Math.min(100, (description.used / description.limit) * 100)}%` }} />
              </span>
            </span>
          ),
        )}
        {field('/domains', 'Domains', <Chips pointer="/domains" value={value['domains']} onSet={onSet} readOnly={readOnly} label="domain" />)}
        {field('/tags', 'Tags', <Chips pointer="/tags" value={value['tags']} onSet={onSet} readOnly={readOnly} label="tag" />)}
      </section>

      <section className="form-section" aria-label="Instructions">
        <h3 className="form-heading">Instructions</h3>
        {(
          [
            ['/planning_instructions', 'Planning instructions', 'instruction'],
            ['/response_instructions', 'Response instructions', 'instruction'],
            ['/tool_hints', 'Tool hints', 'hint'],
          ] as const
        ).map(([pointer, label, noun]) => (
          <div key={pointer}>
            {field(pointer, label, <Rows pointer={pointer} value={valueAt(value, pointer)} onSet={onSet} readOnly={readOnly} noun={noun} multiline at={at} />)}
          </div>
        ))}
      </section>

      <section className="form-section" aria-label="Resources">
        <h3 className="form-heading">Resources</h3>
        {field(
          '/resources',
          `Resources (${resources?.length ?? 0})`,
          resources === undefined && value['resources'] !== undefined ? (
            <p className="muted form-wrong-type">Not a list in the JSON: edit it in the JSON view.</p>
          ) : (
            <div className="form-resources">
              {(resources ?? []).map((resource, i) => {
                const base = `/resources/${i}`;
                const r = resource !== null && typeof resource === 'object' && !Array.isArray(resource) ? (resource as Record<string, unknown>) : undefined;
                return (
                  <fieldset key={i} className="form-resource" data-testid={`form-resource-${i}`}>
                    <legend>
                      <SafeText text={typeof r?.['name'] === 'string' ? r['name'] : `Resource ${i + 1}`} />
                    </legend>
                    <FieldProblems findings={at(base)} />
                    {r === undefined ? (
                      <p className="muted form-wrong-type">Not an object in the JSON: edit it in the JSON view.</p>
                    ) : (
                      <>
                        <div className="editor-form-grid">
                          {field(`${base}/name`, 'Name', textInput(`${base}/name`, false))}
                          {field(
                            `${base}/content_type`,
                            'Content type',
                            <select
                              id={`form-input${base}/content_type`}
                              className="input"
                              disabled={readOnly}
                              value={typeof r['content_type'] === 'string' ? r['content_type'] : ''}
                              onChange={(e) => onSet(`${base}/content_type`, e.target.value)}
                              data-testid={`form-input-resources-${i}-content_type`}
                            >
                              {typeof r['content_type'] === 'string' && !['text/markdown', 'text/plain'].includes(r['content_type']) && <option value={r['content_type']}>{r['content_type']}</option>}
                              <option value="text/markdown">text/markdown</option>
                              <option value="text/plain">text/plain</option>
                            </select>,
                          )}
                        </div>
                        {field(`${base}/description`, 'Description', textInput(`${base}/description`, false))}
                        {field(`${base}/load_when`, 'Load when', textInput(`${base}/load_when`, false))}
                        {field(
                          `${base}/applies_to`,
                          'Applies to (none checked: every boundary)',
                          <div className="form-checks">
                            {BOUNDARIES.map((b) => {
                              const list = strings(r['applies_to']) ?? [];
                              return (
                                <label key={b}>
                                  <input
                                    type="checkbox"
                                    disabled={readOnly}
                                    checked={list.includes(b)}
                                    onChange={(e) => onSet(`${base}/applies_to`, e.target.checked ? BOUNDARIES.filter((x) => x === b || list.includes(x)) : list.filter((x) => x !== b))}
                                    data-testid={`form-input-resources-${i}-applies_to-${b}`}
                                  />{' '}
                                  {b}
                                </label>
                              );
                            })}
                            <label>
                              <input
                                type="checkbox"
                                disabled={readOnly}
                                checked={r['required_when_selected'] === true}
                                onChange={(e) => onSet(`${base}/required_when_selected`, e.target.checked)}
                                data-testid={`form-input-resources-${i}-required_when_selected`}
                              />{' '}
                              required when selected
                            </label>
                          </div>,
                        )}
                        {field(`${base}/content`, 'Content', textInput(`${base}/content`, true, 6))}
                        <FieldProblems findings={at(`${base}/required_when_selected`)} />
                        <button
                          type="button"
                          className="btn small"
                          disabled={readOnly}
                          onClick={() => onSet('/resources', (resources ?? []).filter((_, j) => j !== i))}
                          data-testid={`form-resource-remove-${i}`}
                        >
                          Remove resource
                        </button>
                      </>
                    )}
                  </fieldset>
                );
              })}
              <button type="button" className="btn small" disabled={readOnly} onClick={() => onSet('/resources', [...(resources ?? []), RESOURCE_TEMPLATE])} data-testid="form-resource-add">
                + Add resource
              </button>
            </div>
          ),
        )}
      </section>

      <section className="form-section" aria-label="Activation examples">
        <h3 className="form-heading">Activation examples</h3>
        <FieldProblems findings={at('/activation_examples')} />
        {examples !== undefined && (examples === null || typeof examples !== 'object' || Array.isArray(examples)) ? (
          <p className="muted form-wrong-type">Not an object in the JSON: edit it in the JSON view.</p>
        ) : (
          <div className="form-rows">
            {(
              [
                ['should_activate', 'Should activate'],
                ['should_not_activate', 'Should not activate'],
              ] as const
            ).map(([kind, label]) => {
              const pointer = `/activation_examples/${kind}`;
              return (
                <div key={kind}>{field(pointer, label, <Rows pointer={pointer} value={valueAt(value, pointer)} onSet={onSet} readOnly={readOnly} noun="example" multiline={false} at={at} />)}</div>
              );
            })}
          </div>
        )}
      </section>

      <section className="form-section" aria-label="Change reason">
        {field('/change_reason', 'Change reason (recorded with the next publish)', textInput('/change_reason', false))}
      </section>
    </div>
  );
}

/** A list of strings as chips, with an input that adds one on Enter. */
function Chips({ pointer, value, onSet, readOnly, label }: { pointer: string; value: unknown; onSet: FormViewProps['onSet']; readOnly: boolean; label: string }) {
  const [draft, setDraft] = useState('');
  const list = strings(value);
  const rowsRef = useRef<HTMLDivElement>(null);
  const focusAfterAdd = useRef<number | undefined>(undefined);
  const count = list?.length ?? 0;
  useEffect(() => {
    const index = focusAfterAdd.current;
    if (index === undefined || count <= index) return;
    focusAfterAdd.current = undefined;
    rowsRef.current?.querySelector<HTMLElement>(`[data-pointer="${CSS.escape(`${pointer}/${index}`)}"]`)?.focus();
  }, [count, pointer]);
  if (value !== undefined && list === undefined) return <p className="muted form-wrong-type">Not a list of text in the JSON: edit it in the JSON view.</p>;
  const items = list ?? [];
  const id = pointer.replace(/[^A-Za-z0-9_]+/g, '-');
  const add = () => {
    const entry = draft.trim();
    if (!entry) return;
    onSet(pointer, [...items, entry]);
    setDraft('');
  };
  return (
    <div className="form-chips" data-testid={`form-chips${id}`}>
      {items.map((item, i) => (
        <span key={`${i}:${item}`} className="form-chip" data-testid={`form-chip${id}`}>
          <SafeText text={item} />
          <button type="button" className="form-chip-remove" disabled={readOnly} aria-label={`Remove ${label} ${item}`} onClick={() => onSet(pointer, items.filter((_, j) => j !== i))} data-testid={`form-chip-remove${id}-${i}`}>
            ×
          </button>
        </span>
      ))}
      <input
        id={`form-input${pointer}`}
        className="input form-chip-input"
        value={draft}
        readOnly={readOnly}
        placeholder={`Add a ${label}…`}
        aria-label={`Add a ${label}`}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ',') {
            e.preventDefault();
            add();
          } else if (e.key === 'Backspace' && draft === '' && items.length > 0 && !readOnly) {
            onSet(pointer, items.slice(0, -1));
          }
        }}
        onBlur={add}
        data-testid={`form-chip-input${id}`}
      />
    </div>
  );
}

/** A list of strings as editable rows with add and remove. */
function Rows({
  pointer,
  value,
  onSet,
  readOnly,
  noun,
  multiline,
  at,
}: {
  pointer: string;
  value: unknown;
  onSet: FormViewProps['onSet'];
  readOnly: boolean;
  noun: string;
  multiline: boolean;
  at(pointer: string): Finding[] | undefined;
}) {
  const list = strings(value);
  const rowsRef = useRef<HTMLDivElement>(null);
  const focusAfterAdd = useRef<number | undefined>(undefined);
  const count = list?.length ?? 0;
  useEffect(() => {
    const index = focusAfterAdd.current;
    if (index === undefined || count <= index) return;
    focusAfterAdd.current = undefined;
    rowsRef.current?.querySelector<HTMLElement>(`[data-pointer="${CSS.escape(`${pointer}/${index}`)}"]`)?.focus();
  }, [count, pointer]);
  if (value !== undefined && list === undefined) return <p className="muted form-wrong-type">Not a list of text in the JSON: edit it in the JSON view.</p>;
  const items = list ?? [];
  const id = pointer.replace(/[^A-Za-z0-9_]+/g, '-');
  return (
    <div className="form-rows" data-testid={`form-rows${id}`} ref={rowsRef}>
      {items.map((item, i) => {
        const row = `${pointer}/${i}`;
        const problems = at(row);
        const common = {
          className: 'input',
          value: item,
          readOnly,
          'aria-label': `${noun} ${i + 1}`,
          'aria-invalid': problems?.some((f) => f.severity === 'error') ? true : undefined,
          'data-testid': `form-row${id}-${i}`,
          'data-pointer': row,
        };
        return (
          <div key={i} className="form-row">
            <div className="form-row-line">
              {multiline ? <textarea {...common} rows={2} onChange={(e) => onSet(row, e.target.value)} /> : <input {...common} type="text" onChange={(e) => onSet(row, e.target.value)} />}
              <button type="button" className="icon-btn" disabled={readOnly} aria-label={`Remove ${noun} ${i + 1}`} title={`Remove ${noun}`} onClick={() => onSet(pointer, items.filter((_, j) => j !== i))} data-testid={`form-row-remove${id}-${i}`}>
                ×
              </button>
            </div>
            <Controls text={item} />
            <FieldProblems findings={problems} />
          </div>
        );
      })}
      <button
        type="button"
        className="btn small form-row-add"
        disabled={readOnly}
        onClick={() => {
          // The keyboard goes to the new field, so typing fills it (and Space never adds another blank row).
          focusAfterAdd.current = items.length;
          onSet(pointer, [...items, '']);
        }}
        data-testid={`form-row-add${id}`}
      >
        + Add {noun}
      </button>
    </div>
  );
}
