import { canonicalDraft, draftHash } from './draft-hash';

describe('draft hash', () => {
  it('is the SHA-256 of the canonical JSON: key order and spacing do not matter, content does', () => {
    const a = { rules: [{ id: 'r1', condition: 'x > 1', output: { tier: 'A', score: 2 } }] };
    const b = JSON.parse(
      '{ "rules": [ { "output": { "score": 2, "tier": "A" }, "condition": "x > 1", "id": "r1" } ] }',
    );
    expect(canonicalDraft(b)).toBe(
      '{"rules":[{"condition":"x > 1","id":"r1","output":{"score":2,"tier":"A"}}]}',
    );
    expect(draftHash(a)).toBe(draftHash(b));
    expect(draftHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(draftHash({ ...a, rules: [{ ...a.rules[0], condition: 'x > 2' }] })).not.toBe(draftHash(a));
  });
});
