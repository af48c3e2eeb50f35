/**
 * Bench of the editor's validation feedback in Chromium: the time from an
 * edit of the package text to the registry's verdict shown as markers (the
 * editor records it on every answer of the validation worker), for a 200 KB
 * package (target < 50 ms) against a 4 KB example package, keystrokes
 * alternating between the two editors in the same browser.
 *
 * Needs Chromium (`SKILLBENCH_CHROMIUM` or Debian's); builds the renderer when
 * stale and runs the real `skillbench serve`.
 */
import type { Page } from 'playwright-core';
import type { PackageRevision } from '../../core/api/contract';
import type { SkillPackage } from '../../core/package/types';
import { openEditor } from '../e2e/authoring';
import { startApp } from '../e2e/harness';
import { median, type BenchRow } from './harness';

const WORDS = 'the a to of and or in for with when before after check confirm report incident alert metric latency error owner change window risk customer summary step tool output value threshold region replica cache version'.split(' ');

/** A deterministic package of about `bytes` bytes: the example's fields plus resources of markdown prose. */
function largePackage(base: SkillPackage, bytes: number): SkillPackage {
  let state = 7;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 0x100000000;
  const prose = (chars: number) => {
    const lines: string[] = [];
    let size = 0;
    while (size < chars) {
      const line = `${next() < 0.2 ? '- ' : ''}${Array.from({ length: 12 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')}.`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n');
  };
  const pkg = structuredClone(base);
  const count = 30;
  const each = Math.floor((bytes - JSON.stringify(base).length) / count) - 200;
  pkg.resources = Array.from({ length: count }, (_, i) => ({
    name: `section-${i + 1}`,
    description: `Section ${i + 1} of the runbook`,
    load_when: `when the plan needs section ${i + 1}`,
    applies_to: ['planning'],
    required_when_selected: false,
    content_type: 'text/markdown',
    content: prose(each),
  })) as SkillPackage['resources'];
  pkg.change_reason = 'A 200 KB package for the editor bench';
  return pkg;
}

/** Types one character into the description and returns the editor's feedback time for it. */
async function keystroke(page: Page, key: string): Promise<number> {
  const monaco = page.getByTestId('editor-monaco');
  const before = await monaco.getAttribute('data-validated-seq');
  await page.keyboard.press(key);
  await page.waitForFunction((seq) => document.querySelector('[data-testid="editor-monaco"]')?.getAttribute('data-validated-seq') !== seq, before);
  return Number(await monaco.getAttribute('data-feedback-ms'));
}

export async function bench(): Promise<BenchRow[]> {
  const app = await startApp();
  try {
    const small = { namespace: 'devops', name: 'incident-response' };
    const large = { namespace: 'devops', name: 'large-runbook' };
    const example = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: small });
    const text = `${JSON.stringify(largePackage(example.package, 200 * 1024), null, 2)}\n`;
    await app.call('publish.package', { connection: 'default', skill: large, text, base: null, idempotency_key: 'bench-large' });
    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: large });

    const pages: Record<'large' | 'small', Page> = { large: await app.page(), small: await app.page() };
    await openEditor(pages.large, large);
    await openEditor(pages.small, small);
    // The cursor inside the description string of each.
    for (const page of Object.values(pages)) {
      await page.keyboard.press('ControlOrMeta+f');
      await page.keyboard.insertText('"Use when');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.keyboard.press('ArrowRight');
    }
    const times: Record<'large' | 'small', number[]> = { large: [], small: [] };
    const rounds = 25;
    for (let i = 0; i < rounds + 3; i++) {
      for (const which of ['large', 'small'] as const) {
        const ms = await keystroke(pages[which], i % 2 === 0 ? 'x' : 'Backspace');
        if (i >= 3) times[which].push(ms);
      }
    }
    const largeMs = median(times.large);
    const smallMs = median(times.small);
    const p95 = [...times.large].sort((a, b) => a - b)[Math.floor(times.large.length * 0.95)]!;
    return [
      {
        suite: 'editor',
        name: `validation feedback, ${Math.round(published.text.length / 1024)} KB package (Chromium)`,
        medianMs: largeMs,
        baselineName: `same, ${Math.round(example.text.length / 1024)} KB example`,
        baselineMs: smallMs,
        ratio: largeMs / smallMs,
        target: '< 50 ms after the last keystroke',
        met: largeMs < 50,
        note: `p95 ${p95.toFixed(1)} ms over ${times.large.length} keystrokes`,
      },
    ];
  } finally {
    await app.close();
  }
}
