import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../../core/package/canonical';
import { buildManifest, computeIntegrity, sameVersionedContent, sha256Hex } from '../../../../core/package/integrity';
import { validatePackage } from '../../../../core/package/validate';
import type { SkillPackage } from '../../../../core/package/types';
import { baseline, source } from './baseline';

function normalized(text: string): SkillPackage {
  const result = validatePackage(text);
  if (!result.normalized) throw new Error(JSON.stringify(result.errors));
  return result.normalized;
}

/** Any text, lone surrogates included: code points 0 to 0x10FFFF, those of one UTF-16 unit (surrogates too) as that unit. */
const anyText = fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 200 }).map((points) => points.map((p) => (p <= 0xffff ? String.fromCharCode(p) : String.fromCodePoint(p))).join(''));

const nodeSha = (text: string): string => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vector', async () => {
    expect(await sha256Hex('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the UTF-8 bytes of the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme' }), async (text) => {
        expect(await sha256Hex(text)).toBe(nodeSha(text));
      }),
      { numRuns: 100 },
    );
  });

  it('gives on Node the hash a browser worker gets from Web Crypto, for any text (lone surrogates too) and any bytes', async () => {
    const webCrypto = async (bytes: Uint8Array) => `sha256:${Buffer.from(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)).toString('hex')}`;
    await fc.assert(
      fc.asyncProperty(anyText, fc.uint8Array({ maxLength: 300 }), async (text, bytes) => {
        expect(await sha256Hex(text)).toBe(await webCrypto(new TextEncoder().encode(text)));
        expect(await sha256Hex(bytes)).toBe(await webCrypto(bytes));
      }),
      { numRuns: 100 },
    );
  });

  it('hashes with Web Crypto where there is no Node (a browser worker), to the same text', async () => {
    const node = process.getBuiltinModule;
    let browser: { sha256Hex: typeof sha256Hex };
    try {
      // Loaded afresh (its own module instance) while Node's modules cannot be reached, as in a worker.
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      const fresh = new URL('../../../../core/package/integrity.ts?no-node-crypto', import.meta.url).href;
      browser = (await import(/* @vite-ignore */ fresh)) as { sha256Hex: typeof sha256Hex };
    } finally {
      process.getBuiltinModule = node;
    }
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        expect(await browser.sha256Hex(text)).toBe(await sha256Hex(text));
      }),
      { numRuns: 100 },
    );
    expect(await browser.sha256Hex('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('computeIntegrity and buildManifest', () => {
  it('hash each resource body and the canonical manifest', async () => {
    const pkg = normalized(source(baseline()));
    const integrity = await computeIntegrity(pkg);
    expect(integrity.resource_hashes).toEqual({ 'stage-checklist': nodeSha(pkg.resources[0]!.content) });
    const manifest = buildManifest(pkg, integrity);
    expect(integrity.manifest_hash).toBe(nodeSha(canonicalJson(manifest)));
  });

  it('build a manifest without change_reason or resource bodies', async () => {
    const pkg = normalized(source(baseline()));
    const manifest = buildManifest(pkg, await computeIntegrity(pkg));
    expect(Object.keys(manifest).sort()).toEqual(
      ['activation_examples', 'description', 'display_name', 'domains', 'planning_instructions', 'resources', 'response_instructions', 'tags', 'tool_hints'],
    );
    expect(manifest.resources[0]).not.toHaveProperty('content');
    expect(manifest.resources[0]!.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('do not depend on key order or whitespace of the source text', async () => {
    const reference = await computeIntegrity(normalized(source(baseline())));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1, 4, '\t'), fc.boolean(), async (indent, reverse) => {
        const pkg = baseline() as Record<string, unknown>;
        const reordered = reverse ? Object.fromEntries(Object.entries(pkg).reverse()) : pkg;
        const text = JSON.stringify(reordered, null, indent).replace(/\n/g, '\r\n');
        expect(await computeIntegrity(normalized(text))).toEqual(reference);
      }),
      { numRuns: 16 },
    );
  });

  it('change with content but not with change_reason', async () => {
    const base = normalized(source(baseline()));
    const reason = { ...base, change_reason: 'Another reason' };
    const edited = { ...base, planning_instructions: [...base.planning_instructions, 'One more step.'] };
    expect((await computeIntegrity(reason)).manifest_hash).toBe((await computeIntegrity(base)).manifest_hash);
    expect((await computeIntegrity(edited)).manifest_hash).not.toBe((await computeIntegrity(base)).manifest_hash);
    expect(sameVersionedContent(base, reason)).toBe(true);
    expect(sameVersionedContent(base, edited)).toBe(false);
  });

  it('throw when a resource hash is missing', () => {
    const pkg = normalized(source(baseline()));
    expect(() => buildManifest(pkg, { resource_hashes: {} })).toThrow(/stage-checklist/);
  });
});
