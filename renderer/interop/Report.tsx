/**
 * The conversion report, as `skillbench import` prints it: per skill, where
 * the package goes, whether it is valid, and every change the conversion made,
 * grouped as forced changes, files and keys left out, and what the author
 * still has to write. The same objects the CLI's `--json` carries.
 */
import type { Conversion, ImportedSkill, ImportFailure } from '../../core/interop/types';
import { SafeText } from '../shell/SafeText';

const CHANGE_LABELS: Record<Conversion['change'], string> = {
  shortened: 'Shortened',
  split: 'Split',
  escaped: 'Escaped',
  redacted: 'Redacted',
  left_out: 'Left out',
  renamed: 'Renamed',
  derived: 'Derived',
  added: 'Added',
  needed: 'Needed',
};

/** Forced changes first (what the author must check), then what was left out, then what was filled in. */
const ORDER: Conversion['change'][] = ['needed', 'shortened', 'split', 'escaped', 'redacted', 'renamed', 'left_out', 'added', 'derived'];

const KIND: Record<Conversion['change'], 'warn' | 'err' | 'neutral'> = {
  needed: 'warn',
  shortened: 'warn',
  split: 'neutral',
  escaped: 'warn',
  redacted: 'err',
  renamed: 'warn',
  left_out: 'neutral',
  added: 'neutral',
  derived: 'neutral',
};

/** One conversion line, with its files folded when there are many. */
export function ConversionLine({ conversion }: { conversion: Conversion }) {
  const paths = conversion.paths ?? [];
  return (
    <li className="interop-conversion" data-change={conversion.change} data-field={conversion.field}>
      <span className={`badge ${KIND[conversion.change]}`}>{CHANGE_LABELS[conversion.change]}</span>
      <span className="interop-field mono">{conversion.field}</span>
      <span className="interop-reason">
        <SafeText text={conversion.reason} />
        {paths.length > 0 && paths.length <= 3 && <span className="muted mono"> ({paths.join(', ')})</span>}
        {paths.length > 3 && (
          <details className="interop-paths">
            <summary>{paths.length} files</summary>
            <ul className="mono">
              {paths.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </details>
        )}
      </span>
    </li>
  );
}

/** A list of conversions in the report's order. */
export function ConversionList({ conversions, testId }: { conversions: readonly Conversion[]; testId: string }) {
  const sorted = [...conversions].sort((a, b) => ORDER.indexOf(a.change) - ORDER.indexOf(b.change));
  return (
    <ul className="interop-conversions" data-testid={testId}>
      {sorted.map((c, i) => (
        <ConversionLine key={`${c.field}-${c.change}-${i}`} conversion={c} />
      ))}
    </ul>
  );
}

function statusText(skill: ImportedSkill, dryRun: boolean): string {
  if (skill.status === 'exists') return 'a different package file is there';
  if (skill.status === 'unchanged') return 'already there, unchanged';
  if (dryRun) return skill.status === 'replaced' ? 'will be replaced' : 'will be written';
  return skill.status === 'replaced' ? 'replaced' : 'written';
}

/** One skill of an import report. */
export function SkillReport({ skill, dryRun }: { skill: ImportedSkill; dryRun: boolean }) {
  const forced = skill.conversions.filter((c) => c.change !== 'derived' && c.change !== 'added');
  const filled = skill.conversions.filter((c) => c.change === 'derived' || c.change === 'added');
  return (
    <section className="interop-skill" data-testid={`interop-skill-${skill.skill}`} data-status={skill.status} data-valid={skill.valid} aria-label={`Import of ${skill.skill}`}>
      <header className="interop-skill-head">
        <strong className="isolate">{skill.skill}</strong>
        <span className={`badge ${skill.valid ? 'ok' : 'err'}`}>{skill.valid ? 'Valid' : `${skill.errors.length} error${skill.errors.length === 1 ? '' : 's'}`}</span>
        {skill.warnings.length > 0 && <span className="badge warn">{skill.warnings.length} warning{skill.warnings.length === 1 ? '' : 's'}</span>}
        <span className={`badge ${skill.status === 'exists' ? 'err' : 'neutral'}`}>{statusText(skill, dryRun)}</span>
      </header>
      <p className="muted interop-where">
        <span className="mono isolate">{skill.file}</span> · {skill.resources} resource{skill.resources === 1 ? '' : 's'} · {skill.bytes.toLocaleString()} bytes · from <span className="mono isolate">{skill.source}</span>
      </p>
      <ConversionList conversions={forced} testId={`interop-conversions-${skill.skill}`} />
      {skill.errors.length > 0 && (
        <ul className="interop-findings" data-testid={`interop-errors-${skill.skill}`}>
          {skill.errors.map((f, i) => (
            <li key={i}>
              <span className="badge err">{f.code}</span> <SafeText text={f.message} />
            </li>
          ))}
        </ul>
      )}
      {filled.length > 0 && (
        <details className="interop-filled">
          <summary>How the package was filled in ({filled.length})</summary>
          <ConversionList conversions={filled} testId={`interop-filled-${skill.skill}`} />
        </details>
      )}
    </section>
  );
}

/** Folders that could not be converted at all. */
export function Failures({ failed }: { failed: readonly ImportFailure[] }) {
  if (failed.length === 0) return null;
  return (
    <ul className="inline-error interop-failures" role="alert" data-testid="interop-failures">
      {failed.map((f, i) => (
        <li key={i}>
          <span className="mono isolate">{f.source}</span>
          {f.location && <span className="muted mono"> {f.location}</span>}: <SafeText text={f.message} />
        </li>
      ))}
    </ul>
  );
}
