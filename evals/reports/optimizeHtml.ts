/**
 * The optimizer's HTML report: one standalone page with the verdict first,
 * then the split, the held-out comparison, every candidate with its train
 * score per model and catalog-token cost, and the patch. Same rules as the
 * evaluation report: no script, nothing fetched, every string escaped.
 */
import type { CandidateReport, HeldoutModel, ModelScore, OptimizeReport } from '../optimize';
import { escapeHtml as h } from './escape';
import { formatP, formatRate } from './format';
import { HTML_REPORT_CSP, HTML_REPORT_STYLE } from './html';
import { writeReportFile } from './sink';
import { rateBars } from './svg';

const EXTRA_STYLE = '.desc{max-width:560px}.split td{max-width:640px}.warn{background:var(--flaky)}td.ok,td.bad,td.warn{font-weight:600}';

function td(text: string, numeric = false): string {
  return numeric ? `<td class="n">${h(text)}</td>` : `<td>${h(text)}</td>`;
}

function table(head: readonly string[], rows: readonly string[], cls = ''): string {
  return `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const score = (s: ModelScore | undefined) => (s === undefined ? 'n/a' : `${formatRate(s.accuracy)} (${s.correct}/${s.answered}${s.errors > 0 ? `, ${s.errors} errors` : ''})`);

function candidateRow(report: OptimizeReport, c: CandidateReport): string {
  const forward = report.rounds.some((r) => r.best === c.id && r.advanced);
  const state = c.status === 'evaluated' ? (forward ? 'went forward' : 'evaluated') : `dropped: ${c.reason ?? ''}`;
  const delta = c.catalog_tokens === undefined ? '' : `${c.catalog_tokens} (${c.catalog_tokens - report.original.catalog_tokens >= 0 ? '+' : ''}${c.catalog_tokens - report.original.catalog_tokens})`;
  return (
    `<tr>${td(c.id)}${td(String(c.round), true)}<td class="desc">${h(c.description)}<div class="muted">${h(c.message ?? c.rationale)}</div></td>` +
    report.models.map((m) => td(c.train ? score(c.train.find((s) => s.model === m.spec)) : '', true)).join('') +
    `${td(c.mean_train === undefined ? '' : formatRate(c.mean_train), true)}${td(delta, true)}${td(String(c.line_tokens), true)}${td(state)}</tr>`
  );
}

/** Where the winner fell short of the original on a model, whether or not beyond the margin. */
function drops(x: HeldoutModel): string[] {
  const lost = x.comparison.test.bOnly;
  return [...x.answers.drops, ...(lost > 0 ? [`${lost} case${lost === 1 ? '' : 's'} lost`] : [])];
}

/** How one model came out, with the class of its cell: never green while it lost anything. */
function judged(x: HeldoutModel, margin: number): { text: string; cls: string } {
  if (x.worse) return { text: `worse: ${[...(x.comparison.test.bOnly > x.comparison.test.aOnly ? ['more cases lost than won'] : []), ...x.answers.harm].join('; ')}`, cls: 'bad' };
  const lost = drops(x);
  if (lost.length > 0) return { text: `${x.better ? 'better by case, but ' : ''}lower per answer within the ${margin} margin: ${lost.join(', ')}`, cls: 'warn' };
  return x.better ? { text: 'better (significant)', cls: 'ok' } : { text: 'no significant difference', cls: '' };
}

/** The page, as a string. */
export function optimizeHtml(report: OptimizeReport): string {
  const proven = report.verdict === 'proven_gain';
  // A proven gain is green only when no model lost anything at all; a drop within the margin shows amber, named.
  const dropped = (report.heldout ?? []).map((x) => ({ model: x.model, lost: drops(x) })).filter((x) => x.lost.length > 0);
  const parts: string[] = [];
  parts.push(`<h1>Description optimizer: ${h(report.skill)}</h1>`);
  parts.push(`<p><span class="verdict ${proven ? (dropped.length > 0 ? 'warn' : 'ok') : 'none'}">${proven ? 'proven gain' : 'no proven gain'}</span> ${h(report.reason)}</p>`);
  if (proven && dropped.length > 0) {
    parts.push(`<div class="warning">${h(`Lower on some answers, within the ${report.harm_margin} harm margin: ${dropped.map((x) => `${x.model} (${x.lost.join(', ')})`).join('; ')}.`)}</div>`);
  }
  parts.push(
    `<p class="muted">${h(`${report.file} · models ${report.models.map((m) => `${m.spec}${m.isBaseline ? ' (baseline)' : ''}`).join(', ')} · proposer ${report.proposer.spec}${report.proposer.isBaseline ? ' (mechanical suggestions, not a language model)' : ''} · ${report.repeats} repeat${report.repeats === 1 ? '' : 's'} · alpha ${report.alpha} · harm margin ${report.harm_margin} · seed ${report.seed}`)}</p>`,
  );
  for (const w of report.warnings) parts.push(`<div class="warning">${h(w)}</div>`);
  if (report.winner) {
    parts.push('<h2>Proposed description</h2>');
    parts.push(`<p class="desc"><strong>${h(report.winner.description)}</strong></p><p class="muted">Was: ${h(report.original.description)}</p>`);
    parts.push(`<h3>JSON Patch</h3><pre>${h(JSON.stringify(report.winner.patch, null, 2))}</pre>`);
  }
  if (report.heldout && report.best) {
    parts.push(
      `<h2>Held-out comparison</h2><p>${h(
        `${report.best.candidate} against the original on the ${report.split.heldout.length} held-out cases, case by case (McNemar, one pair per case: each side's majority over its answered repeats) ` +
          `and answer by answer (each case's share of right answers and, on should-not cases, of false activations; signed-rank test of the per-case differences). ` +
          `A model is worse when it lost more cases than it won, when its false activations rise or its right answers fall by more than ${report.harm_margin}, or when the signed-rank test finds its answers worse (p < ${report.alpha}).`,
      )}</p>`,
    );
    parts.push(rateBars('Held-out accuracy', report.heldout.map((x) => ({ label: x.model, values: [{ name: report.best!.candidate, value: x.winner.accuracy }, { name: 'original', value: x.original.accuracy }] }))));
    parts.push(
      table(
        ['model', report.best.candidate, 'original', 'won', 'lost', 'paired cases', 'left out', 'McNemar p', 'right answers', 'false activations', 'signed-rank p (worse)', 'judged'],
        report.heldout.map((x) => {
          const t = x.comparison.test;
          const a = x.answers;
          const left = x.comparison.cases.length - x.comparison.pairs;
          const j = judged(x, report.harm_margin);
          const pair = (w: number | null, o: number | null) => `${formatRate(w)} vs ${formatRate(o)}`;
          return (
            `<tr>${td(x.model)}${td(score(x.winner), true)}${td(score(x.original), true)}${td(String(t.aOnly), true)}${td(String(t.bOnly), true)}${td(String(x.comparison.pairs), true)}${td(String(left), true)}${td(formatP(t.pValue), true)}` +
            `${td(pair(a.accuracy_winner, a.accuracy_original), true)}${td(pair(a.false_activation.winner, a.false_activation.original), true)}${td(formatP(a.test.p_worse), true)}<td${j.cls ? ` class="${j.cls}"` : ''}>${h(j.text)}</td></tr>`
          );
        }),
      ),
    );
  }
  parts.push('<h2>Candidates</h2><p>Train accuracy per model (right of answered cells; errors are counted apart, never as misses), catalog tokens of the whole activation catalog with each description (budget ' + h(String(report.catalog.budget)) + '), and tokens of the skill\'s own catalog line.</p>');
  const head = ['id', 'round', 'description', ...report.models.map((m) => m.spec), 'mean', 'catalog tokens', 'line tokens', 'status'];
  const originalRow =
    `<tr>${td('original')}${td('0', true)}<td class="desc">${h(report.original.description)}</td>` +
    report.models.map((m) => td(score(report.original.train.find((s) => s.model === m.spec)), true)).join('') +
    `${td(formatRate(report.original.mean_train), true)}${td(String(report.original.catalog_tokens), true)}${td(String(report.original.line_tokens), true)}${td('original')}</tr>`;
  parts.push(table(head, [originalRow, ...report.candidates.map((c) => candidateRow(report, c))]));
  const notes = report.rounds.flatMap((r) => r.notes.map((n) => `round ${r.round}: ${n}`));
  if (notes.length > 0) parts.push(`<ul>${notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`);
  parts.push(`<h2>Split</h2><p>${h(`Seed ${report.seed}, ${Math.round(report.split.holdout * 100)}% of each kind held out. The proposer never saw a held-out case. Competing skills: ${report.catalog.competitors.join(', ') || 'none'} (${report.catalog.source}).`)}</p>`);
  parts.push(
    table(
      ['set', 'expect', 'request', 'source'],
      [...report.split.train.map((c) => ['train', c] as const), ...report.split.heldout.map((c) => ['held out', c] as const)].map(([set, c]) => `<tr>${td(set)}${td(c.expect)}${td(c.request)}${td(c.source)}</tr>`),
      'split',
    ),
  );
  parts.push(`<p class="muted">${h(`${report.format} · runs ${report.runs.map((r) => r.config_hash).join(', ')}`)}</p>`);
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CSP}">` +
    '<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${h(`Skillbench optimizer ${report.skill}`)}</title><style>${HTML_REPORT_STYLE}${EXTRA_STYLE}</style></head><body>\n${parts.join('\n')}\n</body></html>\n`
  );
}

/** Writes the page to `path` atomically; returns its size in bytes. */
export function writeOptimizeHtml(path: string, report: OptimizeReport): Promise<number> {
  return writeReportFile(path, (sink) => sink.write(optimizeHtml(report)));
}
