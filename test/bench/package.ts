/**
 * Bench of package validation: a typical 10 KB package (target < 2 ms) and
 * maximum-size packages of 32 resources x 32 KiB (target: at most 4x the time
 * of JSON.parse on the same text), each against JSON.parse in the same run.
 * The large packages break several limits on purpose: they measure the worst
 * case, findings included.
 *
 * Two kinds of prose: the generator's own vocabulary, where one word in ten
 * carries non-ASCII (accented words, dashes, curly quotes: about 22
 * characters per KB, far more than English skill text usually has), and a
 * mostly-ASCII variant with about two such characters per KB. Both still hold
 * characters beyond Latin-1, so JavaScript keeps them as two-byte strings.
 */
import { compare, type BenchRow } from './harness';
import { parseJsonDocument, ScanCache, validatePackage } from '../../core/package/index';

/** Deterministic pseudo-random numbers (a linear congruential generator). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 0x100000000;
  };
}

const WORDS = (
  'the a an to of and or in on for with when before after check confirm report forecast weather destination route ' +
  'deployment rollout namespace cluster service request response result evidence incident alert metric latency error ' +
  'budget approval review owner change window risk customer summary step phase tool output record value threshold ' +
  'résumé naïve café déjà — “quoted” it’s data access token schedule retry timeout region replica cache version'
).split(' ');
const ASCII_WORDS = WORDS.filter((w) => /^[\x20-\x7e]*$/.test(w));
const OTHER_WORDS = WORDS.filter((w) => !ASCII_WORDS.includes(w));

/** Words as the generator picks them: its whole vocabulary, or mostly ASCII (one word in 100 from the rest). */
type Vocabulary = 'dense' | 'mostly-ascii';

/** Markdown prose of about `chars` characters: headings, bullets, code spans, links, key: value lines. */
function markdown(chars: number, next: () => number, vocabulary: Vocabulary = 'dense'): string {
  const pick =
    vocabulary === 'dense'
      ? (): string => WORDS[Math.floor(next() * WORDS.length)]!
      : (): string => (next() < 0.01 ? OTHER_WORDS[Math.floor(next() * OTHER_WORDS.length)]! : ASCII_WORDS[Math.floor(next() * ASCII_WORDS.length)]!);
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const roll = next();
    let line: string;
    const sentence = (n: number): string => Array.from({ length: n }, pick).join(' ');
    if (roll < 0.08) line = `## ${sentence(3)}`;
    else if (roll < 0.3) line = `- ${sentence(6 + Math.floor(next() * 8))}.`;
    else if (roll < 0.36) line = `${pick()}: ${sentence(4)} \`${pick()}_${pick()}\``;
    else if (roll < 0.4) line = `See [${pick()}](https://docs.example.com/${pick()}/${pick()}) for ${sentence(3)}.`;
    else if (roll < 0.42) line = '';
    else line = `${sentence(10 + Math.floor(next() * 14))}.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

function makePackage(resources: number, contentChars: number, seed: number, vocabulary: Vocabulary = 'dense'): string {
  const next = random(seed);
  return JSON.stringify(
    {
      display_name: 'Deployment Risk Review',
      description: 'Use when a request plans a production rollout, namespace-wide change or deletion and needs a risk review before execution.',
      domains: ['devops'],
      tags: ['deploy', 'risk', 'review'],
      planning_instructions: Array.from({ length: 8 }, () => markdown(160, next).replace(/\n/g, ' ')),
      response_instructions: Array.from({ length: 3 }, () => markdown(120, next).replace(/\n/g, ' ')),
      tool_hints: ['get_deployment', 'list_pods', 'query_prometheus'],
      resources: Array.from({ length: resources }, (_, i) => ({
        name: `runbook-${i + 1}`,
        description: `Runbook section ${i + 1} with the checks for one kind of change.`,
        load_when: `Load when the change touches area ${i + 1} of the production cluster.`,
        applies_to: ['planning', 'continuation'],
        required_when_selected: false,
        content_type: 'text/markdown',
        content: markdown(contentChars, next, vocabulary),
      })),
      activation_examples: {
        should_activate: ['Roll out version 2.3 of the payments service to production'],
        should_not_activate: ['What is the weather in Oslo?'],
      },
      change_reason: 'Benchmark package',
    },
    null,
    2,
  );
}

/** The bench rows of the `package` suite. */
export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const id = { namespace: 'devops', name: 'deployment-risk-review' };

  const typical = makePackage(4, 1700, 1);
  {
    const check = validatePackage(typical, { id });
    const { subjectMs, baselineMs } = await compare(() => validatePackage(typical, { id }), () => JSON.parse(typical), { rounds: 25, batch: 40 });
    rows.push({
      suite: 'package',
      name: `validate typical (${(typical.length / 1024).toFixed(1)} KB)`,
      medianMs: subjectMs,
      baselineName: 'JSON.parse',
      baselineMs,
      ratio: subjectMs / baselineMs,
      target: '< 2 ms',
      met: subjectMs < 2,
      note: `${check.errors.length} errors, ${check.warnings.length} warnings`,
    });
  }

  /** Characters beyond ASCII per KB of text, for the row notes. */
  const density = (text: string): string => `${((text.match(/[\u0080-\uffff]/g)?.length ?? 0) / (text.length / 1024)).toFixed(1)} non-ASCII/KB`;
  const maxRow = async (label: string, text: string): Promise<void> => {
    const check = validatePackage(text, { id });
    const { subjectMs, baselineMs } = await compare(() => validatePackage(text, { id }), () => JSON.parse(text), { rounds: 21, warmup: 5 });
    rows.push({
      suite: 'package',
      name: `validate max, ${label} (${(text.length / 1048576).toFixed(2)} MiB text)`,
      medianMs: subjectMs,
      baselineName: 'JSON.parse',
      baselineMs,
      ratio: subjectMs / baselineMs,
      target: 'ratio <= 4',
      met: subjectMs / baselineMs <= 4,
      note: `${density(text)}; ${check.errors.length} errors, ${check.warnings.length} warnings`,
    });
  };

  const max = makePackage(32, 32 * 1024, 2);
  const maxBytes = new TextEncoder().encode(max);
  await maxRow('dense non-ASCII', max);
  {
    const decoder = new TextDecoder();
    const { subjectMs, baselineMs } = await compare(() => validatePackage(maxBytes, { id }), () => JSON.parse(decoder.decode(maxBytes)), { rounds: 21, warmup: 5 });
    rows.push({
      suite: 'package',
      name: 'validate max, dense non-ASCII (UTF-8 bytes)',
      medianMs: subjectMs,
      baselineName: 'decode + JSON.parse',
      baselineMs,
      ratio: subjectMs / baselineMs,
      target: 'ratio <= 4',
      met: subjectMs / baselineMs <= 4,
    });
  }
  await maxRow('mostly ASCII', makePackage(32, 32 * 1024, 2, 'mostly-ascii'));
  {
    // The editor's case: the same package again after an edit to one resource, with a ScanCache.
    const edited = JSON.parse(max) as { resources: { content: string }[] };
    edited.resources[7]!.content = edited.resources[7]!.content.replace('the', 'a');
    const versions = [max, JSON.stringify(edited, null, 2)];
    const cache = new ScanCache();
    let turn = 0;
    const { subjectMs, baselineMs } = await compare(() => validatePackage(versions[turn++ % 2]!, { id, cache }), () => JSON.parse(max), { rounds: 21, warmup: 5 });
    rows.push({
      suite: 'package',
      name: 'validate max, dense non-ASCII, after a one-resource edit (ScanCache)',
      medianMs: subjectMs,
      baselineName: 'JSON.parse',
      baselineMs,
      ratio: subjectMs / baselineMs,
      target: 'informative',
    });
  }
  {
    const { subjectMs, baselineMs } = await compare(() => parseJsonDocument(max), () => JSON.parse(max), { rounds: 21, warmup: 5 });
    rows.push({
      suite: 'package',
      name: 'parseJsonDocument max',
      medianMs: subjectMs,
      baselineName: 'JSON.parse',
      baselineMs,
      ratio: subjectMs / baselineMs,
      target: 'informative',
    });
  }
  return rows;
}
