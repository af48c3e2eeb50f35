import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTHORING_LIMITS, validatePackage } from '../../../../core/package/index';
import { renderCatalog } from '../../../../core/selector/render';
import { catalogEntryTokens, meterLevel, packageMeters } from '../../../../renderer/editor/meters';

const example = readFileSync(new URL('../../../../examples/skills/packages/devops/incident-response.json', import.meta.url), 'utf8');
const id = { namespace: 'devops', name: 'incident-response' };

describe('editor meters', () => {
  it('turn amber from 80 % of the limit and red over it', () => {
    expect(meterLevel(79, 100)).toBe('ok');
    expect(meterLevel(80, 100)).toBe('amber');
    expect(meterLevel(100, 100)).toBe('amber');
    expect(meterLevel(101, 100)).toBe('red');
    expect(meterLevel(null, 100)).toBe('ok');
  });

  it('read the figures of the same validation result the problems come from', () => {
    const check = validatePackage(example, { id });
    const meters = Object.fromEntries(packageMeters(check, DEFAULT_AUTHORING_LIMITS, id).map((m) => [m.id, m]));
    expect(meters['manifest']?.used).toBe(check.metrics.manifest_tokens);
    expect(meters['package']?.used).toBe(check.metrics.package_bytes);
    expect(meters['resources']?.used).toBe(check.metrics.resource_count);
    expect(meters['description']?.used).toBe([...check.normalized!.description].length);
    const pkg = check.normalized!;
    expect(meters['catalog']?.used).toBe(renderCatalog([{ skill: 'devops/incident-response', display_name: pkg.display_name, description: pkg.description, domains: pkg.domains, tags: pkg.tags }]).tokens);
    expect(meters['catalog']?.limit).toBe(2000);
  });

  it('agree with the validator: a description over its limit is red and an error', () => {
    const pkg = JSON.parse(example) as { description: string };
    pkg.description = `Use when ${'x'.repeat(DEFAULT_AUTHORING_LIMITS.maxDescriptionChars)}`;
    const check = validatePackage(JSON.stringify(pkg), { id });
    const description = packageMeters(check, DEFAULT_AUTHORING_LIMITS, id).find((m) => m.id === 'description')!;
    expect(description.level).toBe('red');
    expect(check.errors.map((e) => e.code)).toContain('description_chars_exceeded');
  });

  it('measure nothing when the text does not parse', () => {
    const check = validatePackage('{"display_name": ');
    expect(catalogEntryTokens(check, id)).toBeNull();
    expect(packageMeters(check, DEFAULT_AUTHORING_LIMITS, id).every((m) => m.used === null && m.level === 'ok')).toBe(true);
  });
});
