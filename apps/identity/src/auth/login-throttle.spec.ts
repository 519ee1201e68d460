import { normalizeIdentifier } from './login-throttle';

describe('normalizeIdentifier', () => {
  it('folds look-alikes, accents and case into one account name', () => {
    for (const typed of [
      'alice',
      'ALICE',
      ' Alice ',
      'ALİCE',
      'ＡＬＩＣＥ',
      'Alíce',
      'alıce'.replace('ı', 'i'),
    ]) {
      expect({ typed, normalized: normalizeIdentifier(typed) }).toEqual({ typed, normalized: 'alice' });
    }
    expect(normalizeIdentifier('Alice@Example.COM')).toBe('alice@example.com');
  });
});
