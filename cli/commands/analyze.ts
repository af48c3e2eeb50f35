/**
 * `skillbench analyze FILE --model SPEC`: the guide's authoring analysis
 * (section 5.3) of one package file, offline from any store. Deterministic
 * validation first (an invalid package gets its findings and no model call),
 * then advice and checked JSON Patch proposals; with `--write-patch F` the
 * kept proposals are composed into one patch file. The package file is never
 * changed.
 */
import { resolve } from 'node:path';
import { analyzePackage, composeProposals, patchFitsSource, type ComposedPatch } from '../../core/advisor/index';
import { closeSharedDispatcher } from '../../core/models/index';
import { DEFAULT_AUTHORING_LIMITS, parseJsonDocument, decodeUtf8, validatePackage } from '../../core/package/index';
import type { SkillId } from '../../core/package/types';
import type { AuthoringAnalysis } from '../../core/store/httpWire';
import { identityFromPath, parseSkillId } from '../../core/workspace/identity';
import { readFileBounded } from '../../core/workspace/read';
import { writeReportFile } from '../../evals/reports/sink';
import { openAdvisor, type OpenAdvisor } from '../advisor';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';
import { formatFinding, reportFailure } from '../store';

const usage = `Usage: skillbench analyze FILE --model SPEC [options]

Asks an AI authoring advisor (guide section 5.3) to review one package file.
The file is validated first; an invalid package gets its findings and no
model call. The advisor sees the normalized metadata, instructions, tool
hints, activation examples, the validation findings and a resource index
without bodies; never resource bodies or change_reason. It answers advice and
JSON Patch proposals; each proposal is applied to a copy of the package and
validated again, and dropped with its reason when it does not apply or breaks
validation. Nothing is published and FILE is never changed.

  --model SPEC              the advisor's model (openai:smart, anthropic:smart,
                            openai-compatible:URL#MODEL, chain:..., llama-cpp:...)
  --reasoning-effort E      reasoning-effort intent: low (default), medium, high, none
  --guidance-file F         additional guidance for the advisor (at most 4,096 bytes
                            and 512 estimated tokens)
  --max-output-tokens N     output ceiling of one advisor call (default 1024)
  --timeout MS              per-attempt model timeout (default 120000)
  --id NS/NAME              identity to analyze under (default: from .../<ns>/<name>.json)
  --write-patch F           write the kept proposals, composed, as one RFC 6902
                            JSON Patch document to F (against the normalized package)
  --json                    print {file, skill, validation, analysis, patch} on stdout

Exit codes: 0 advice given, 1 invalid package, 2 usage, 6 model unavailable
or its answer unusable.`;

/** What `--write-patch` wrote. */
interface PatchReport {
  file: string;
  proposals: string[];
  skipped: ComposedPatch['skipped'];
  /** False when FILE is not in normalized form and the patch may not mean the same there. */
  fits_source: boolean;
}

function printAnalysis(io: CliIo, skill: string, analysis: AuthoringAnalysis): void {
  const a = analysis.advisor;
  const who = a ? `${a.model ?? 'advisor'}${a.provider ? ` (${a.provider})` : ''}, prompt ${a.prompt ? `${a.prompt.id} v${a.prompt.version}` : 'custom'}${a.usage ? `, ${a.usage.input_tokens} in / ${a.usage.output_tokens} out tokens` : ''}` : 'a custom advisor';
  say(io, `${skill}: analyzed by ${who}`);
  for (const w of a?.warnings ?? []) say(io, `  note: ${w}`);
  say(io, '');
  say(io, `Summary: ${analysis.summary}`);
  if (analysis.suggestions.length > 0) {
    say(io, '');
    say(io, 'Suggestions:');
    for (const s of analysis.suggestions) say(io, `  - ${s.code ? `[${s.code}] ` : ''}${s.path ? `${s.path}: ` : ''}${s.message}`);
  }
  say(io, '');
  say(io, `Proposals: ${analysis.proposals.length} kept, ${analysis.dropped.length} dropped`);
  for (const p of analysis.proposals) {
    say(io, `  ${p.id}  ${p.title}`);
    say(io, `      ${p.rationale}`);
    for (const line of p.changes) say(io, `      ${line}`);
    if (p.warnings_resolved.length > 0) say(io, `      resolves: ${p.warnings_resolved.map((w) => w.code).join(', ')}`);
    if (p.warnings_added.length > 0) say(io, `      new warnings: ${p.warnings_added.map((w) => `${w.code} at ${w.path}`).join(', ')}`);
    say(io, `      patch: ${JSON.stringify(p.patch)}`);
  }
  for (const d of analysis.dropped) say(io, `  dropped ${d.id}  ${d.title}: ${d.reason}: ${d.message}`);
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    model: { type: 'string' },
    'reasoning-effort': { type: 'string' },
    'guidance-file': { type: 'string' },
    'max-output-tokens': { type: 'string' },
    timeout: { type: 'string' },
    id: { type: 'string' },
    'write-patch': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('give exactly one package FILE');
  if (values.model === undefined) throw new UsageError('give the advisor model with --model SPEC (for example --model openai:smart)');
  if (values['write-patch'] !== undefined && values['write-patch'].trim() === '') throw new UsageError('--write-patch needs a file name');
  const file = positionals[0]!;
  const json = values.json === true;
  let id: SkillId;
  if (values.id !== undefined) {
    const parsed = parseSkillId(values.id);
    if (!parsed) throw new UsageError(`--id must be <namespace>/<name> with slug names, got '${values.id}'`);
    id = parsed;
  } else {
    const fromPath = identityFromPath(resolve(io.cwd, file));
    if (fromPath.problem) throw new UsageError(`${file}: ${fromPath.problem} (or give --id NS/NAME)`);
    id = fromPath.id;
  }
  const skill = `${id.namespace}/${id.name}`;

  let opened: OpenAdvisor | undefined;
  try {
    const bytes = await readFileBounded(resolve(io.cwd, file), DEFAULT_AUTHORING_LIMITS.maxPackageBytes, file);
    const check = validatePackage(bytes, { id });
    if (!check.valid) {
      for (const f of [...check.errors, ...check.warnings]) say(io, formatFinding(file, f));
      say(io, `skillbench analyze: ${file} is not a valid package; the advisor was not called`);
      if (json) printJsonDocument(io, 'analyze', { file, skill, validation: { valid: false, errors: check.errors, warnings: check.warnings, metrics: check.metrics }, analysis: null, patch: null });
      return EXIT.invalid;
    }
    opened = await openAdvisor(
      {
        model: values.model,
        ...(values['reasoning-effort'] !== undefined && { reasoningEffort: values['reasoning-effort'] }),
        ...(values['guidance-file'] !== undefined && { guidanceFile: values['guidance-file'] }),
        ...(values['max-output-tokens'] !== undefined && { maxOutputTokens: values['max-output-tokens'] }),
        ...(values.timeout !== undefined && { timeout: values.timeout }),
      },
      io,
      '',
    );
    const response = await analyzePackage({ id, check, advisor: opened.advisor, signal: new AbortController().signal });
    const analysis = response.analysis!;
    printAnalysis(io, skill, analysis);

    let patch: PatchReport | null = null;
    const target = values['write-patch'];
    if (target !== undefined) {
      const composed = composeProposals(response.normalized!, analysis.proposals, { id });
      const decoded = decodeUtf8(bytes);
      const source = decoded.ok ? parseJsonDocument(decoded.text) : undefined;
      const fits = source !== undefined && source.ok && patchFitsSource(source.value, composed.patch, composed.result, { id });
      await writeReportFile(resolve(io.cwd, target), (sink) => sink.write(`${JSON.stringify(composed.patch, null, 2)}\n`));
      patch = { file: target, proposals: composed.applied, skipped: composed.skipped, fits_source: fits };
      say(io, '');
      say(io, `Patch written to ${target}: ${composed.applied.length === 0 ? 'no proposal (an empty patch)' : composed.applied.join(', ')}`);
      for (const s of composed.skipped) say(io, `  left out ${s.id}: ${s.message}`);
      if (composed.applied.length > 0 && !fits) {
        say(io, `  note: the patch addresses the normalized package; ${file} is not in normalized form (for example unsorted tags or omitted optional fields), so apply it to the normalized package or by hand`);
      }
    }
    if (json) printJsonDocument(io, 'analyze', { file, skill, validation: response.validation, analysis, patch });
    return EXIT.ok;
  } catch (error) {
    return reportFailure(io, 'analyze', error, { json, file });
  } finally {
    await opened?.close();
    await closeSharedDispatcher();
  }
}

/** The `analyze` command. */
export const command: Command = { summary: 'AI authoring advice and checked JSON Patch proposals for a package file', usage, run };
