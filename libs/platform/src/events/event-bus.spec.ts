import { subjectMatches } from './event-bus';

describe('subjectMatches', () => {
  it.each([
    ['arbiter.ruleset.changed', 'arbiter.ruleset.changed', true],
    ['arbiter.*.changed', 'arbiter.ruleset.changed', true],
    ['arbiter.>', 'arbiter.ruleset.changed', true],
    ['arbiter.>', 'arbiter', false],
    ['arbiter.*', 'arbiter.ruleset.changed', false],
    ['arbiter.ruleset.changed', 'arbiter.ruleset', false],
    ['arbiter.ruleset', 'arbiter.ruleset.changed', false],
  ])('%s ~ %s = %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
