import { describe, expect, it } from 'vitest';
import { emptyMessage } from '../../../../renderer/catalog/scanMessage';

describe('the empty catalog message', () => {
  it('says nothing while the list has rows', () => {
    expect(emptyMessage(3, 'x', { scanned: 10, total: 10, complete: true, loading: false })).toBeUndefined();
  });

  it('tells a partial scan without a match from a complete one', () => {
    const partial = emptyMessage(0, 'refund', { scanned: 4000, total: 10000, complete: false, loading: false });
    expect(partial?.kind).toBe('partial');
    expect(partial?.title).toBe('Nothing matches in the 4,000 of 10,000 skills read so far');
    expect(partial?.hint).toMatch(/Scan more/);
    const full = emptyMessage(0, 'refund', { scanned: 10000, total: 10000, complete: true, loading: false });
    expect(full?.kind).toBe('none-matching');
    expect(full?.title).toBe('No skill matches this filter');
  });

  it('says a store of unknown size has been read only in part', () => {
    expect(emptyMessage(0, 'a', { scanned: 500, total: null, complete: false, loading: true })?.title).toBe('Nothing matches in the 500 skills read so far');
  });

  it('tells an empty registry from a filter that matches nothing', () => {
    expect(emptyMessage(0, '', { scanned: 0, total: 0, complete: true, loading: false })?.kind).toBe('empty');
    expect(emptyMessage(0, '  ', { scanned: 0, total: 0, complete: true, loading: false })?.kind).toBe('empty');
  });

  it('waits for the first page before saying anything about matches', () => {
    expect(emptyMessage(0, 'x', { scanned: 0, total: null, complete: false, loading: true })?.kind).toBe('loading');
  });
});
