import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJunitReport } from '../../../../evals/reports/junit';
import { findAll, parseXmlStrict, textOf, XmlError, type XmlElement } from '../../../helpers/xml';
import { FLIGHTS, HOSTILE, hasForbiddenControl, MODEL_A, MODEL_B, WEATHER, fixtureCells, fixtureHeader, fixtureSummary, writeRun } from './fixture';

async function junitOf(cells = fixtureCells(), header = fixtureHeader()): Promise<{ root: XmlElement; bytes: Buffer; result: Awaited<ReturnType<typeof writeJunitReport>> }> {
  const run = await writeRun(cells);
  try {
    const path = join(run.dir, 'junit.xml');
    const result = await writeJunitReport(path, header, fixtureSummary(), run.cellsFile);
    const bytes = await readFile(path);
    return { root: parseXmlStrict(bytes), bytes, result };
  } finally {
    await run.cleanup();
  }
}

function caseOf(suite: XmlElement, caseId: string): XmlElement {
  const found = findAll(suite, 'testcase').filter((t) => t.attrs.name!.endsWith(`(${caseId})`));
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('the strict XML checker used by these tests', () => {
  it('rejects what a conforming parser must reject', () => {
    const bad = ['<a>&foo;</a>', '<a b="<"/>', '<a>\u0001</a>', '<a></b>', '<a>]]></a>', '<a b="1" b="2"/>', '<a b=1/>', '<a/><b/>', 'text<a/>', '<a>&#0;</a>', '<a>&amp</a>'];
    for (const doc of bad) expect(() => parseXmlStrict(doc), doc).toThrow(XmlError);
    expect(() => parseXmlStrict(new Uint8Array([0x3c, 0x61, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x61, 0x3e]))).toThrow(/UTF-8/);
    expect(textOf(parseXmlStrict('<?xml version="1.0" encoding="UTF-8"?><a x="&#10;">&lt;&#x1F600;<![CDATA[<b>]]></a>'))).toBe('<😀<b>');
  });
});

describe('writeJunitReport', () => {
  it('writes well-formed UTF-8 XML with one testcase per case and model, repeats folded', async () => {
    const { root, result } = await junitOf();
    expect(root.name).toBe('testsuites');
    // 4 cases × 2 models. Failures: A/c3 (1 of 3 correct), B/c1 (0 of 3). Error: A/c4 (2 errors, 1 correct).
    // Plus the gates suite: two gates, one failed.
    expect(root.attrs).toMatchObject({ tests: '10', failures: '3', errors: '1', skipped: '0' });
    expect(result).toMatchObject({ tests: 10, failures: 3, errors: 1, cells: 24, tornLines: 0 });
    const suites = findAll(root, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual([MODEL_A, `${MODEL_B} (baseline, not a language model)`, 'skillbench gates']);
    expect(suites.map((s) => [s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['4', '1', '1'],
      ['4', '1', '0'],
      ['2', '1', '0'],
    ]);
    expect(findAll(root, 'testcase')).toHaveLength(10);
    expect(findAll(root, 'failure')).toHaveLength(3);
    expect(findAll(root, 'error')).toHaveLength(1);
    // Latencies of model A's cells are 100..1200 ms: 7.8 s in all.
    expect(suites[0]!.attrs.time).toBe('7.800');
  });

  it('carries the run id, config hash and verdict as properties of every model suite', async () => {
    const { root } = await junitOf();
    const suites = findAll(root, 'testsuite');
    for (const suite of suites.slice(0, 2)) {
      const props = Object.fromEntries(findAll(suite, 'property').map((p) => [p.attrs.name, p.attrs.value]));
      expect(props).toMatchObject({ run_id: 'run-2030-01-01-abc', config_hash: 'sha256:0123456789abcdef', verdict: 'failed', verdict_message: 'failed: 1 of 2 gates failed' });
      expect(findAll(suite, 'property').filter((p) => p.attrs.name === 'warning').map((p) => p.attrs.value)).toHaveLength(3);
    }
    const gates = suites[2]!;
    expect(findAll(gates, 'failure').map((f) => f.attrs.type)).toEqual(['gate_failed']);
  });

  it('describes a wrong activation with expected, actual, k/n and the activated skills', async () => {
    const { root } = await junitOf();
    const [suiteA, suiteB] = findAll(root, 'testsuite');
    const c3 = caseOf(suiteA!, 'c3');
    expect(c3.attrs.classname).toBe(WEATHER);
    const failure = findAll(c3, 'failure')[0]!;
    // Repeat 0 was an unusable answer: never a right "not activated".
    expect(failure.attrs.message).toBe('expected not_activate, got activated in 2/3 repeats (correct 0/3)');
    expect(failure.attrs.type).toBe('wrong_activation');
    const body = textOf(failure);
    expect(body).toContain('expected: not_activate');
    expect(body).toContain('actual: activated 2/3, not activated 0/3, unusable 1/3, errors 0/3');
    expect(body).toContain(`activated skills: ${WEATHER} ×2`);
    expect(body).toContain('unusable answers: 1');
    expect(body).toContain(`cells: ${MODEL_A}|draft|c3|0, ${MODEL_A}|draft|c3|1, ${MODEL_A}|draft|c3|2`);

    const c1 = caseOf(suiteB!, 'c1');
    expect(findAll(c1, 'failure')[0]!.attrs.message).toBe('expected activate, got not_activated in 3/3 repeats (correct 0/3)');
  });

  it('reports error cells as <error>, never as a wrong answer, and passes a case whose majority is right', async () => {
    const { root } = await junitOf();
    const [suiteA, suiteB] = findAll(root, 'testsuite');
    const c4 = caseOf(suiteA!, 'c4');
    expect(c4.attrs.classname).toBe(FLIGHTS);
    const error = findAll(c4, 'error')[0]!;
    expect(error.attrs.message).toMatch(/^2\/3 repeats ended in an error \(correct 1\/3\): upstream said: /);
    expect(findAll(c4, 'failure')).toHaveLength(0);
    // B/c4: 2 correct, 1 error → passes; A/c2: 2 of 3 correct → passes but says it was flaky.
    const b4 = caseOf(suiteB!, 'c4');
    expect([...findAll(b4, 'failure'), ...findAll(b4, 'error')]).toHaveLength(0);
    expect(textOf(findAll(b4, 'system-out')[0]!)).toMatch(/^correct 2\/3; errors 1\/3/);
    const c2 = caseOf(suiteA!, 'c2');
    expect(findAll(c2, 'failure')).toHaveLength(0);
    expect(textOf(findAll(c2, 'system-out')[0]!)).toMatch(/^correct 2\/3 \(flaky\)/);
  });

  it('escapes hostile text and replaces characters XML 1.0 forbids', async () => {
    const { root, bytes } = await junitOf();
    const text = bytes.toString('utf8');
    expect(text).not.toContain('<script');
    expect(text).not.toContain('<img');
    expect(hasForbiddenControl(text)).toBe(false);
    const c2 = caseOf(findAll(root, 'testsuite')[0]!, 'c2');
    // The parsed name holds the request as text, with the forbidden characters replaced.
    expect(c2.attrs.name).toContain('<script>alert(1)</script>');
    expect(c2.attrs.name).toContain('"onerror=alert(1) x="');
    expect(textOf(c2)).toContain('bell\ufffd esc\ufffd nul\ufffd lone\ufffd end');
    expect(findAll(root, 'property').some((p) => p.attrs.value === MODEL_A)).toBe(true);
    expect(HOSTILE.cdataEnd).toBe(']]>');
    expect(text).not.toContain(']]>');
  });

  it('adds the variant to a testcase name when a run has several variants', async () => {
    const cells = fixtureCells();
    const published = cells.map((c) => ({ ...c, variant: 'published', key: c.key.replace('|draft|', '|published|') }));
    const header = { ...fixtureHeader(), variants: [...fixtureHeader().variants, { label: 'published', skill: WEATHER, version: 3, manifest_hash: 'sha256:cc' }] };
    const { root } = await junitOf([...cells, ...published], header);
    expect(root.attrs.tests).toBe('18');
    const names = findAll(findAll(root, 'testsuite')[0]!, 'testcase').map((t) => t.attrs.name!);
    expect(names.slice(0, 4).every((n) => n.startsWith('[draft] '))).toBe(true);
    expect(names.slice(4).every((n) => n.startsWith('[published] '))).toBe(true);
  });
});
