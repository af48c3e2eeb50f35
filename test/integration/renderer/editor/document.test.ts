import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAutosaver, newPackageText, openDocument } from '../../../../renderer/editor/document';
import { validatePackage } from '../../../../core/package/index';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';

describe('opening a skill for editing', () => {
  let bench: Workbench | undefined;
  afterEach(async () => {
    await bench?.close();
    bench = undefined;
  });

  it('opens the published revision with its version and ETag as the base', async () => {
    bench = await openWorkbench('websocket');
    const skill = { namespace: 'devops', name: 'incident-response' };
    const published = await bench.client['packages.get']({ connection: 'default', skill });
    const opened = await openDocument(bench.client, 'default', skill);
    expect(opened.base).toEqual({ version: published.version, etag: published.etag });
    expect(opened.text).toBe(published.text);
    // Either the host keeps the draft, or the editor says that it does not.
    expect(opened.draftId !== undefined || opened.autosaveUnavailable !== undefined).toBe(true);
  });

  it('opens a skill the store does not have as a new package with no base', async () => {
    bench = await openWorkbench('direct');
    const skill = { namespace: 'devops', name: 'brand-new' };
    const opened = await openDocument(bench.client, 'default', skill);
    expect(opened.base).toBeNull();
    if (opened.draftId === undefined) {
      // A host without drafts: the editor's own starting package, valid as it is.
      expect(opened.text).toBe(newPackageText(skill));
      expect(validatePackage(opened.text, { id: skill }).valid).toBe(true);
    } else {
      // The host's new draft: a package shape to fill in.
      expect(validatePackage(opened.text, { id: skill }).normalized).toBeDefined();
    }
  });

  it('passes on a failure that is not "the host keeps no drafts"', async () => {
    bench = await openWorkbench('direct');
    await expect(openDocument(bench.client, 'no-such-connection', { namespace: 'a', name: 'b' })).rejects.toThrow();
  });
});

describe('autosave', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('saves once after edits settle, the latest text last, one save at a time', async () => {
    vi.useFakeTimers();
    const saved: string[] = [];
    const states: string[] = [];
    let release: (() => void) | undefined;
    const saver = createAutosaver({
      delayMs: 500,
      save: (text) =>
        new Promise<void>((resolve) => {
          saved.push(text);
          release = resolve;
        }),
      onState: (s) => states.push(s),
    });
    saver.edited('a');
    saver.edited('ab');
    await vi.advanceTimersByTimeAsync(499);
    expect(saved).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(saved).toEqual(['ab']);
    // An edit while the save is in flight waits for it, then saves the newest text.
    saver.edited('abc');
    await vi.advanceTimersByTimeAsync(500);
    expect(saved).toEqual(['ab']);
    release?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(saved).toEqual(['ab', 'abc']);
    release?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(states.at(-1)).toBe('saved');
    expect(saver.dirty).toBe(false);
  });

  it('reports a failed save with its reason', async () => {
    const states: [string, string | undefined][] = [];
    const saver = createAutosaver({ delayMs: 10, save: () => Promise.reject(new Error('disk full')), onState: (s, m) => states.push([s, m]) });
    saver.edited('x');
    await saver.flush();
    expect(states).toContainEqual(['failed', 'disk full']);
  });
});
