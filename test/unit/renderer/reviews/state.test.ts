import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffPackages, validatePackage } from '../../../../core/package/index';
import type { SkillPackage } from '../../../../core/package/types';
import type { ReviewRequest } from '../../../../core/api/contract';
import { isNotAvailable, itemRows, itemSummary, reviewActions, reviewFields, statusLabel, toggleViewed, viewedProgress, type ActionFacts } from '../../../../renderer/reviews/state';

const text = readFileSync(new URL('../../../../examples/skills/packages/devops/incident-response.json', import.meta.url), 'utf8');
const validation = validatePackage(text);
const base = validation.normalized!;
const copy = (): SkillPackage => structuredClone(base);

/** The three-field change the review journey reviews. */
function threeFieldDiff() {
  const after = copy();
  after.description = `${after.description} Also covers degraded partner APIs.`;
  after.activation_examples.should_activate.push('The payments API is returning 500s for every request');
  after.change_reason = 'Cover partner API outages';
  return diffPackages(base, after);
}

const approval = (stale: boolean): ReviewRequest['approvals'][number] => ({ reviewer: 'rita', at: '2026-01-01T00:00:00.000Z', hash: 'sha256:aa', stale, verified: true });

function facts(over: Partial<ActionFacts> = {}): ActionFacts {
  return { status: 'open', stale: false, viewer_is_author: false, validation: { valid: validation.valid, errors: validation.errors, warnings: validation.warnings, metrics: validation.metrics }, approvals: [], verified_approval: false, ...over };
}

describe('review fields and the viewed count', () => {
  it('lists one field per change with its pointer, and counts the viewed ones', () => {
    const fields = reviewFields(threeFieldDiff());
    expect(fields.map((f) => f.pointer)).toEqual(['/description', '/activation_examples/should_activate', '/change_reason']);
    expect(viewedProgress(fields, []).text).toBe('0/3 fields viewed');
    let viewed = toggleViewed([], '/description');
    viewed = toggleViewed(viewed, '/change_reason');
    expect(viewedProgress(fields, viewed)).toMatchObject({ viewed: 2, total: 3, text: '2/3 fields viewed', complete: false });
    viewed = toggleViewed(viewed, '/activation_examples/should_activate');
    expect(viewedProgress(fields, viewed)).toMatchObject({ viewed: 3, complete: true });
  });

  it('unmarks on a second toggle, and ignores marks on fields that are no longer changed', () => {
    const fields = reviewFields(threeFieldDiff());
    expect(toggleViewed(toggleViewed([], '/description'), '/description')).toEqual([]);
    expect(viewedProgress(fields, ['/name', '/description']).viewed).toBe(1);
  });

  it('has nothing to view when the packages are equal', () => {
    const fields = reviewFields(diffPackages(base, copy()));
    expect(fields).toEqual([]);
    expect(viewedProgress(fields, []).text).toBe('0/0 fields viewed');
  });
});

describe('review actions', () => {
  it('never shows Approve, Request changes or Reject to the author', () => {
    const a = reviewActions(facts({ viewer_is_author: true }));
    expect(a.approve).toEqual({ shown: false });
    expect(a.requestChanges).toEqual({ shown: false });
    expect(a.reject).toEqual({ shown: false });
    expect(a.comment).toEqual({ shown: true, enabled: true });
  });

  it('offers a reviewer every verdict on an open request, and Publish stays off until approved', () => {
    const a = reviewActions(facts());
    expect(a.approve).toEqual({ shown: true, enabled: true });
    expect(a.requestChanges).toEqual({ shown: true, enabled: true });
    expect(a.reject).toEqual({ shown: true, enabled: true });
    expect(a.publish).toMatchObject({ enabled: false, reason: expect.stringMatching(/Not approved/) });
  });

  it('enables Publish for an approved, current and valid request, for the author too', () => {
    expect(reviewActions(facts({ status: 'approved', approvals: [approval(false)], verified_approval: true })).publish).toEqual({ shown: true, enabled: true });
    expect(reviewActions(facts({ status: 'approved', approvals: [approval(false)], verified_approval: true, viewer_is_author: true })).publish).toEqual({ shown: true, enabled: true });
  });

  it('keeps Publish off when the status says approved but no approval signature stands', () => {
    const forged = reviewActions(facts({ status: 'approved', approvals: [{ ...approval(false), verified: false }] }));
    expect(forged.publish).toMatchObject({ enabled: false, reason: expect.stringMatching(/No approval signature stands/) });
    const unchecked = reviewActions(facts({ status: 'approved', approvals: [approval(false)], unverifiable: 'no allowed signers file is configured' }));
    expect(unchecked.publish).toMatchObject({ enabled: false, reason: expect.stringContaining('no allowed signers file') });
  });

  it('disables Publish and says why when the approval is stale', () => {
    const a = reviewActions(facts({ status: 'approved', stale: true, approvals: [approval(true)] }));
    expect(a.publish).toMatchObject({ enabled: false, reason: expect.stringMatching(/stale/) });
    expect(a.approve).toEqual({ shown: true, enabled: true });
    expect(reviewActions(facts({ status: 'stale', approvals: [approval(true)] })).publish).toMatchObject({ enabled: false });
  });

  it('disables Publish and Approve for a package that does not validate', () => {
    const invalid = { ...facts().validation, valid: false };
    const a = reviewActions(facts({ status: 'approved', approvals: [approval(false)], validation: invalid }));
    expect(a.publish).toMatchObject({ enabled: false, reason: expect.stringMatching(/validate/) });
    expect(reviewActions(facts({ validation: invalid })).approve).toMatchObject({ enabled: false });
  });

  it('closes every verdict on a published or rejected request', () => {
    for (const status of ['published', 'rejected'] as const) {
      const a = reviewActions(facts({ status }));
      expect(a.approve).toMatchObject({ enabled: false });
      expect(a.reject).toMatchObject({ enabled: false });
      expect(a.publish).toMatchObject({ enabled: false });
    }
  });

  it('asks for an approval after changes were requested', () => {
    expect(reviewActions(facts({ status: 'changes_requested' })).publish).toMatchObject({ enabled: false, reason: expect.stringMatching(/Changes were requested/) });
  });
});

describe('labels and errors', () => {
  it('reads a stale flag over the status', () => {
    expect(statusLabel('approved', true)).toBe('Stale');
    expect(statusLabel('published', true)).toBe('Published');
    expect(statusLabel('changes_requested')).toBe('Changes requested');
  });

  it('recognises a method the host does not offer', () => {
    expect(isNotAvailable({ code: 'not_implemented', message: 'x' })).toBe(true);
    expect(isNotAvailable(new Error('x'))).toBe(false);
  });
});

describe('list fields, item by item', () => {
  it('marks each entry of a list field added, removed, edited or unchanged, never the whole list as JSON', () => {
    const after = copy();
    after.activation_examples.should_activate.push('The payments API is returning 500s for every request');
    after.activation_examples.should_activate.splice(0, 1);
    after.tool_hints = [...after.tool_hints, 'page_oncall'];
    after.tags = [...after.tags.slice(1), 'payments'];
    const diff = diffPackages(base, after);
    const change = (path: string) => diff.changes.find((c) => c.path === path);
    const examples = itemRows(change('/activation_examples/should_activate'))!;
    expect(examples.filter((r) => r.op === 'added').map((r) => r.text)).toEqual(['The payments API is returning 500s for every request']);
    expect(examples.filter((r) => r.op === 'removed').map((r) => r.text)).toEqual([base.activation_examples.should_activate[0]]);
    expect(examples.filter((r) => r.op === 'equal')).toHaveLength(base.activation_examples.should_activate.length - 1);
    expect(itemSummary(examples)).toBe(`+1 −1 of ${after.activation_examples.should_activate.length}`);
    const tags = itemRows(change('/tags'))!;
    expect(tags.find((r) => r.text === 'payments')?.op).toBe('added');
    expect(tags.find((r) => r.text === base.tags[0])?.op).toBe('removed');
    expect(itemRows(change('/description'))).toBeUndefined();
    // A new skill has no base: every entry is added.
    expect(itemRows(undefined, ['a', 'b'])).toEqual([{ op: 'added', text: 'a' }, { op: 'added', text: 'b' }]);
  });
});
