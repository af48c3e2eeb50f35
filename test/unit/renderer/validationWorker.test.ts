import { describe, expect, it } from 'vitest';
import { handleValidation } from '../../../renderer/validationWorker';

describe('validation worker', () => {
  it('answers with the registry verdict and echoes the edit number', () => {
    const text = '{\n  "display_name": "X",\n  "description": "Use when testing.",\n  "planning_instructions": ["Do it."],\n  "change_reason": "t",\n  "colour": 1\n}';
    const answer = handleValidation({ seq: 42, text, id: { namespace: 'demo', name: 'x' } });
    expect(answer.seq).toBe(42);
    expect(answer.check.valid).toBe(false);
    expect(answer.check.errors.map((e) => [e.path, e.line])).toContainEqual(['/colour', 6]);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(0);
  });
});
