import { describe, expect, it } from 'vitest';
import { UNAVAILABLE_INTENTS } from '../../../../renderer/intents';
import { intentOf, type IntentName } from '../../../../renderer/shell/intents';
import { createRegistry } from '../../../../renderer/shell/views';

describe('intents', () => {
  it('tells a view which feature is missing when no registered module carries an intent out', () => {
    const empty = createRegistry([]);
    expect(intentOf(empty, 'skill.edit')).toBe('The package editor is not part of this build');
    expect(intentOf(empty, 'skill.diff')).toBe('The diff view is not part of this build');
    expect(intentOf(empty, 'review.request')).toBe('Reviews are not part of this build');
    for (const name of Object.keys(UNAVAILABLE_INTENTS) as IntentName[]) expect(intentOf(empty, name)).toMatch(/not part of this build/);
  });

  it('hands the asking view the handler of the module that declares the intent', () => {
    const opened: string[] = [];
    const registry = createRegistry([{ id: 'catalog-only', intents: { 'catalog.open': ({ connection }) => void opened.push(connection) } }]);
    const open = intentOf(registry, 'catalog.open');
    expect(typeof open).toBe('function');
    (open as (payload: { connection: string }) => void)({ connection: 'prod' });
    expect(opened).toEqual(['prod']);
    expect(intentOf(registry, 'skill.evaluate')).toBe('Evaluation is not part of this build yet');
  });
});
