import { beforeEach, describe, expect, it } from 'vitest';
import { closeTabs, registerTabPersistence, useGuardStore } from '../../../../renderer/shell/guard';
import { isTabOf, paramsOf, useTabsStore } from '../../../../renderer/shell/useTabsStore';

const store = () => useTabsStore.getState();
const ids = () => store().tabs.map((t) => t.id);

beforeEach(() => {
  useTabsStore.setState({ tabs: [], activeId: undefined });
  useGuardStore.setState({ request: undefined });
});

describe('tabs', () => {
  it('focuses an open tab instead of opening it twice', () => {
    store().open({ id: 'a', kind: 'catalog', params: { connection: 'c' }, title: 'A' });
    store().open({ id: 'b', kind: 'catalog', params: { connection: 'c' }, title: 'B' });
    store().open({ id: 'a', kind: 'catalog', params: { connection: 'c' }, title: 'A' });
    expect(ids()).toEqual(['a', 'b']);
    expect(store().activeId).toBe('a');
  });

  it('replaces a preview tab with the next preview, unless it holds edits', () => {
    store().open({ id: 'x', kind: 'review', params: { id: 'r' }, title: 'X', preview: true });
    store().open({ id: 'y', kind: 'review', params: { id: 'r' }, title: 'Y', preview: true });
    expect(ids()).toEqual(['y']);
    store().setDirty('y', true);
    expect(store().tabs[0]!.preview).toBe(false);
    store().open({ id: 'z', kind: 'review', params: { id: 'r' }, title: 'Z', preview: true });
    expect(ids()).toEqual(['y', 'z']);
  });

  it('changes nothing, and tells no subscriber, when a tab already is what it is set to', () => {
    store().open({ id: 'a', kind: 'catalog', params: { connection: 'c' }, title: 'A' });
    store().open({ id: 'b', kind: 'catalog', params: { connection: 'c' }, title: 'B', preview: true });
    store().setDirty('a', true);
    const before = store().tabs;
    let notified = 0;
    const off = useTabsStore.subscribe(() => notified++);
    // The editor marks its tab dirty on every keystroke.
    for (let key = 0; key < 5; key++) store().setDirty('a', true);
    store().update('a', { title: 'A' });
    store().setParams('a', 'catalog', before[0]!.params as { connection: string });
    store().keep('a');
    store().setDirty('missing', true);
    off();
    expect(notified).toBe(0);
    expect(store().tabs).toBe(before);
    // A real change still lands, on that tab alone.
    store().keep('b');
    expect(store().tabs[0]).toBe(before[0]);
    expect(store().tabs[1]).toMatchObject({ id: 'b', preview: false });
    store().update('a', { title: 'A2' });
    expect(store().tabs[0]!.title).toBe('A2');
  });

  it('keeps a preview tab opened again explicitly', () => {
    store().open({ id: 'x', kind: 'review', params: { id: 'r' }, title: 'X', preview: true });
    store().open({ id: 'x', kind: 'review', params: { id: 'r' }, title: 'X' });
    expect(store().tabs[0]!.preview).toBe(false);
  });

  it('activates the right neighbour of a closed tab, else the left one', () => {
    for (const id of ['a', 'b', 'c']) store().open({ id, kind: 'review', params: { id: 'r' }, title: id });
    store().activate('b');
    store().remove(['b']);
    expect(store().activeId).toBe('c');
    store().remove(['c']);
    expect(store().activeId).toBe('a');
  });

  it('cycles through tabs both ways', () => {
    for (const id of ['a', 'b', 'c']) store().open({ id, kind: 'review', params: { id: 'r' }, title: id });
    store().cycle(1);
    expect(store().activeId).toBe('a');
    store().cycle(-1);
    expect(store().activeId).toBe('c');
  });
});

describe('unsaved-changes guard', () => {
  it('closes clean tabs without asking', async () => {
    store().open({ id: 'a', kind: 'review', params: { id: 'r' }, title: 'A' });
    await expect(closeTabs(['a'], 'closing')).resolves.toBe(true);
    expect(ids()).toEqual([]);
  });

  it('lists every dirty tab and closes nothing on Cancel', async () => {
    for (const id of ['a', 'b', 'c']) store().open({ id, kind: 'review', params: { id: 'r' }, title: id.toUpperCase() });
    store().setDirty('a', true);
    store().setDirty('c', true);
    const closing = closeTabs(['a', 'b', 'c'], 'Switching connection.');
    const request = useGuardStore.getState().request!;
    expect(request.dirty.map((t) => t.title)).toEqual(['A', 'C']);
    request.decide('cancel');
    await expect(closing).resolves.toBe(false);
    expect(ids()).toEqual(['a', 'b', 'c']);
  });

  it('saves every dirty tab on Save, and keeps them all open when one save fails', async () => {
    for (const id of ['a', 'b']) store().open({ id, kind: 'review', params: { id: 'r' }, title: id.toUpperCase() });
    store().setDirty('a', true);
    store().setDirty('b', true);
    const saved: string[] = [];
    let failB = true;
    const offA = registerTabPersistence('a', () => ({ save: async () => (saved.push('a'), true), discard: () => undefined }));
    const offB = registerTabPersistence('b', () => ({ save: async () => (saved.push('b'), !failB), discard: () => undefined }));
    const closing = closeTabs(['a', 'b'], 'closing');
    useGuardStore.getState().request!.decide('save');
    await new Promise((r) => setTimeout(r, 0));
    expect(useGuardStore.getState().request?.error).toMatch(/B was not saved/);
    expect(ids()).toEqual(['a', 'b']);
    failB = false;
    useGuardStore.getState().request!.decide('save');
    await expect(closing).resolves.toBe(true);
    expect(saved).toEqual(['a', 'b', 'a', 'b']);
    expect(ids()).toEqual([]);
    offA();
    offB();
  });

  it('gives a view the parameters of its own kind and refuses a tab of another kind', () => {
    store().open({ id: 'cat', kind: 'catalog', title: 'C', params: { connection: 'prod' } });
    store().open({ id: 'rev', kind: 'review', title: 'R', params: { id: 'req-1' } });
    const [catalog, review] = store().tabs;
    expect(paramsOf(catalog!, 'catalog').connection).toBe('prod');
    expect(isTabOf(review!, 'catalog')).toBe(false);
    expect(() => paramsOf(review!, 'catalog')).toThrow(/'review' tab, not a 'catalog' tab/);
    // Parameters are replaced only on a tab of the kind they belong to.
    store().setParams('rev', 'catalog', { connection: 'other' });
    expect(paramsOf(store().tabs[1]!, 'review')).toEqual({ id: 'req-1' });
    store().setParams('cat', 'catalog', { connection: 'staging' });
    expect(paramsOf(store().tabs[0]!, 'catalog')).toEqual({ connection: 'staging' });
  });

  it("discards every dirty tab on Don't Save", async () => {
    store().open({ id: 'a', kind: 'review', params: { id: 'r' }, title: 'A' });
    store().setDirty('a', true);
    let discarded = false;
    const off = registerTabPersistence('a', () => ({ save: async () => true, discard: () => void (discarded = true) }));
    const closing = closeTabs(['a'], 'closing');
    useGuardStore.getState().request!.decide('discard');
    await expect(closing).resolves.toBe(true);
    expect(discarded).toBe(true);
    off();
  });
});
