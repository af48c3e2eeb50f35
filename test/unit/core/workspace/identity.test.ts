import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSlug } from '../../../../core/package/rules';
import { identityFromPath, parseSkillId } from '../../../../core/workspace/identity';

const slug = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/).filter((s) => isSlug(s));

describe('identityFromPath', () => {
  it('reads <namespace>/<name>.json at any depth', () => {
    expect(identityFromPath('/w/skills/packages/travel/weather-assessment.json')).toEqual({ id: { namespace: 'travel', name: 'weather-assessment' } });
    expect(identityFromPath('travel/weather.JSON')).toEqual({ id: { namespace: 'travel', name: 'weather' } });
  });

  it('always gives the identity the path spells, with a problem when it cannot be used', () => {
    expect(identityFromPath('/w/Travel/weather.json')).toMatchObject({ id: { namespace: 'Travel', name: 'weather' }, problem: expect.stringContaining('slug names') });
    expect(identityFromPath('/w/travel/weather.txt')).toMatchObject({ id: { namespace: 'travel', name: 'weather.txt' }, problem: expect.stringContaining('.json') });
    expect(identityFromPath('/w/travel/we_ather.json').problem).toBeDefined();
  });

  it('round-trips every slug pair', () => {
    fc.assert(
      fc.property(slug, slug, (namespace, name) => {
        expect(identityFromPath(join('/any', 'where', namespace, `${name}.json`))).toEqual({ id: { namespace, name } });
      }),
    );
  });
});

describe('parseSkillId', () => {
  it('accepts two slugs and nothing else', () => {
    expect(parseSkillId('travel/weather')).toEqual({ namespace: 'travel', name: 'weather' });
    for (const bad of ['travel', 'travel/weather/x', 'Travel/weather', '/weather', 'travel/', 'a b/c']) expect(parseSkillId(bad)).toBeUndefined();
  });
});
