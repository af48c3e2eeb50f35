/**
 * `skillbench select`: what the runtime selector would activate, select and
 * project for one request, on one or more models (run concurrently).
 */
import { resolve } from 'node:path';
import { WorkbenchError } from '../../core/errors';
import { openModel } from '../../core/models/index';
import type { ModelClient } from '../../core/models/types';
import { BOUNDARIES, type Boundary } from '../../core/package/types';
import { formatBindingIssue, parseBindings } from '../../core/selector/bindings';
import { parseTemplate, type PromptTemplate } from '../../core/selector/prompts/template';
import { selectForRequest, type SelectionResult } from '../../core/selector/select';
import type { DomainCompatibilityMode, SkillBinding } from '../../core/selector/types';
import { openCatalog } from '../../core/workspace/catalog';
import { SIDE_FILE_MAX_BYTES, readTextBounded } from '../../core/workspace/read';
import { modelSpecs, parse } from '../args';
import { jsonArg, readLimitsArg } from '../selectorArgs';
import { EXIT, UsageError } from '../exit';
import { type CliIo, printJsonDocument, say } from '../io';
import type { Command } from '../main';

const usage = `Usage: skillbench select --request TEXT --catalog CONN_OR_DIR [options] [--json]

Simulates the runtime skill selector for one request: pins the bindings,
activates skills, selects resources for the boundary and projects them under
the token budgets. One result per activation model; models run concurrently.
As guide 9.4 pins them (TRUVAG3_SKILL_ACTIVATION_MODEL and
TRUVAG3_SKILL_RESOURCE_MODEL), the activation and resource selectors may use
different models; --model is the shorthand for both.

  --request TEXT             the user request
  --catalog CONN_OR_DIR      a store (local:DIR, redis://..., http(s)://.../api/v1/skills)
                             or a folder of packages (a workspace or <ns>/<name>.json)
  --bindings FILE_OR_JSON    TRUVAG3_SKILL_BINDINGS_JSON list (a file, or JSON text starting
                             with '['); default: every catalog skill as an auto binding
  --model SPEC               model of both selectors, repeatable: one result each
                             (default baseline:lexical)
  --activation-model SPEC    the activation selector's model, repeatable: one result each
                             (instead of --model)
  --resource-model SPEC      the resource selector's model for every result (default:
                             the result's activation model)
  --boundary B               planning (default), continuation or synthesis
  --trusted-activation ID    trusted explicit activation NS/NAME, repeatable
  --trusted-resource ID      trusted resource request NS/NAME#RESOURCE, repeatable
  --template FILE            prompt template (JSON or text) replacing the built-in one of its kind, repeatable
  --limits FILE_OR_JSON      selector limits (guide 9.10) as a JSON object, e.g. '{"maxActiveSkills":4}'
  --domain D                 agent domain for domain compatibility
  --domain-mode M            off, warn (default) or enforce
  --json                     print {results: [...]} on stdout`;

async function readBindings(value: string | undefined, io: CliIo, maxBindings: number): Promise<SkillBinding[] | undefined> {
  if (value === undefined) return undefined;
  const { text, source } = await jsonArg(value, '[', io, '--bindings');
  const result = parseBindings(text, { maxBindings });
  if (!result.ok) throw new UsageError(`invalid bindings:\n${result.issues.map((i) => `  ${source}: ${formatBindingIssue(i)}`).join('\n')}`);
  return result.bindings;
}

async function readTemplates(files: string[], io: CliIo): Promise<{ activation?: PromptTemplate; resource?: PromptTemplate }> {
  const templates: { activation?: PromptTemplate; resource?: PromptTemplate } = {};
  for (const file of files) {
    let text: string;
    try {
      text = await readTextBounded(resolve(io.cwd, file), SIDE_FILE_MAX_BYTES, file);
    } catch (error) {
      throw new UsageError(`--template: ${(error as Error).message}`);
    }
    const result = parseTemplate(text);
    if (!result.ok) {
      const lines = result.issues.map((i) => `  ${file}${i.line !== undefined ? `:${i.line}:${i.column ?? 1}` : ''}: ${i.path ? `${i.path}: ` : ''}${i.message}`);
      throw new UsageError(`invalid template:\n${lines.join('\n')}`);
    }
    if (templates[result.template.kind]) throw new UsageError(`--template: two ${result.template.kind} templates given`);
    templates[result.template.kind] = result.template;
  }
  return templates;
}

function summarize(io: CliIo, r: SelectionResult, baseline: boolean): void {
  const resource = r.trace.models?.resource;
  const pair = resource !== undefined && resource !== r.model ? ` (resources: ${resource})` : '';
  say(io, `${r.model}${baseline ? ' (baseline, not a language model)' : ''}${pair}: ${r.outcome === 'ok' ? 'ok' : `FAILED (${r.failure?.code})`}`);
  const pinned = r.trace.pinning.filter((p) => p.status === 'pinned').length;
  say(io, `  pinned     ${pinned} of ${r.trace.pinning.length}`);
  const sources = new Map(r.state.active.map((a) => [a.skill, a.source]));
  say(io, `  activated  ${r.activated.length === 0 ? '(none)' : r.activated.map((s) => `${s} (${sources.get(s)})`).join(', ')}`);
  say(io, `  resources  ${r.resources.length === 0 ? '(none)' : r.resources.map((x) => `${x.skill}#${x.name}`).join(', ')}`);
  const p = r.projection;
  if (p) say(io, `  projection ${p.boundary}: main ${p.totals.mainTokens} + resources ${p.totals.resourceTokens} = ${p.totals.totalTokens} tokens (budget ${p.budgets.total})`);
  for (const c of r.trace.calls) {
    say(io, `  ${c.kind.padEnd(10)} ${c.model} via ${c.provider || '?'}: ${c.attempts.length} attempt${c.attempts.length === 1 ? '' : 's'}, ${c.usage.inputTokens} in / ${c.usage.outputTokens} out tokens, ${Math.round(c.latencyMs)} ms`);
  }
  for (const d of r.diagnostics) say(io, `  ! ${d.code}${d.action ? ` [${d.action}]` : ''}: ${d.message}`);
}

/** True when a model was asked and every one of its calls failed as a model failure (not an answer problem). */
function modelUnavailable(r: SelectionResult): boolean {
  return r.trace.calls.length > 0 && r.trace.calls.every((c) => c.attempts.length > 0 && c.attempts.every((a) => a.outcome === 'failed' || a.outcome === 'timeout'));
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    request: { type: 'string' },
    catalog: { type: 'string' },
    bindings: { type: 'string' },
    model: { type: 'string', multiple: true },
    'activation-model': { type: 'string', multiple: true },
    'resource-model': { type: 'string' },
    boundary: { type: 'string' },
    'trusted-activation': { type: 'string', multiple: true },
    'trusted-resource': { type: 'string', multiple: true },
    template: { type: 'string', multiple: true },
    limits: { type: 'string' },
    domain: { type: 'string' },
    'domain-mode': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  if (values.request === undefined || values.request.trim() === '') throw new UsageError('--request is required');
  if (values.catalog === undefined) throw new UsageError('--catalog is required');
  const boundary = (values.boundary ?? 'planning') as Boundary;
  if (!BOUNDARIES.includes(boundary)) throw new UsageError(`--boundary must be one of ${BOUNDARIES.join(', ')}, got '${values.boundary}'`);
  const domainMode = values['domain-mode'] as DomainCompatibilityMode | undefined;
  if (domainMode !== undefined && !['off', 'warn', 'enforce'].includes(domainMode)) throw new UsageError(`--domain-mode must be off, warn or enforce, got '${domainMode}'`);
  for (const id of values['trusted-activation'] ?? []) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(id.trim())) throw new UsageError(`--trusted-activation expects NS/NAME, got '${id}'`);
  }
  for (const id of values['trusted-resource'] ?? []) {
    if (!/^[^/\s]+\/[^/#\s]+#[^#\s]+$/.test(id.trim())) throw new UsageError(`--trusted-resource expects NS/NAME#RESOURCE, got '${id}'`);
  }
  const limits = (await readLimitsArg(values.limits, io))?.limits;
  const bindings = await readBindings(values.bindings, io, limits?.maxBindings ?? 32);
  const templates = await readTemplates(values.template ?? [], io);
  const given = values['activation-model'];
  if (given !== undefined && values.model !== undefined) throw new UsageError('--model sets both selectors: give it or --activation-model, not both');
  const flag = given !== undefined ? '--activation-model' : '--model';
  const specs = modelSpecs(given ?? values.model ?? ['baseline:lexical'], flag);
  const resourceSpec = values['resource-model'] === undefined ? undefined : modelSpecs([values['resource-model']], '--resource-model')[0]!;
  const json = values.json === true;

  const models: ModelClient[] = [];
  let resourceModel: ModelClient | undefined;
  const catalog = await openCatalog(values.catalog, { cwd: io.cwd, env: io.env });
  try {
    for (const spec of specs) models.push(await openModel(spec, { env: io.env }));
    if (resourceSpec !== undefined) resourceModel = models.find((m) => m.spec === resourceSpec) ?? (await openModel(resourceSpec, { env: io.env }));
    for (const p of catalog.problems) say(io, `skillbench select: ${p.path}: ${p.message}${p.findings[0] ? ` (first: ${p.findings[0].code} at ${p.findings[0].path || '/'})` : ''}`);
    const results = await Promise.all(
      models.map((model) =>
        selectForRequest({
          request: values.request!,
          boundary,
          registry: catalog.registry,
          model,
          ...(resourceModel && { resourceModel }),
          ...(bindings && { bindings }),
          ...(limits && { limits }),
          ...(values['trusted-activation'] && { trustedActivations: values['trusted-activation'] }),
          ...(values['trusted-resource'] && { trustedResources: values['trusted-resource'] }),
          templates,
          ...(values.domain !== undefined && { domain: values.domain }),
          ...(domainMode && { domainMode }),
        }),
      ),
    );
    if (json) {
      printJsonDocument(io, 'select', {
        catalog: { description: catalog.label, problems: catalog.problems },
        results: results.map((r) => ({
          model: r.model,
          activation_model: r.trace.models?.activation ?? r.model,
          resource_model: r.trace.models?.resource ?? r.model,
          outcome: r.outcome,
          ...(r.failure && { failure: r.failure }),
          activated: r.activated,
          resources: r.resources,
          projection: r.projection,
          diagnostics: r.diagnostics,
          trace: r.trace,
        })),
      });
    } else {
      say(io, `catalog: ${catalog.label}; boundary: ${boundary}`);
      results.forEach((r, i) => summarize(io, r, models[i]!.isBaseline));
    }
    const unavailable = results.filter(modelUnavailable);
    if (unavailable.length > 0) {
      say(io, `skillbench select: model unavailable: ${unavailable.map((r) => r.model).join(', ')}`);
      return EXIT.unavailable;
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'invalid_request') throw new UsageError(error.message);
    throw error;
  } finally {
    await Promise.allSettled([...models, ...(resourceModel && !models.includes(resourceModel) ? [resourceModel] : [])].map((m) => m.close?.()));
    await catalog.close();
  }
}

/** The `select` command. */
export const command: Command = { summary: 'Simulate runtime skill activation, resource selection and projection', usage, run };
