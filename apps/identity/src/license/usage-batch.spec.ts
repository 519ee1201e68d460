import { UsageBatch } from './usage-batch';

describe('UsageBatch', () => {
  it('keeps rows in order as array literals, each distinct pair quoted and escaped once', () => {
    const batch = new UsageBatch(4);
    batch.add({ licenseKey: 'K1', actionType: 'api.validate', isValid: true, recordedAtMs: 1700000000123 });
    batch.add({
      licenseKey: 'K1',
      actionType: 'say "hi" \\ {x,y}',
      isValid: false,
      recordedAtMs: 1700000000124.5,
    });
    batch.add({ licenseKey: 'K2', actionType: 'api.validate', isValid: false, recordedAtMs: 1700000000125 });
    expect(batch.full).toBe(false);
    batch.add({ licenseKey: 'K1', actionType: 'api.validate', isValid: false, recordedAtMs: 1700000000126 });
    expect(batch.full).toBe(true);
    expect(batch.columns()).toEqual({
      licenseKeys: '{"K1","K1","K2","K1"}',
      actionTypes: '{"api.validate","say \\"hi\\" \\\\ {x,y}","api.validate","api.validate"}',
      isValid: '{t,f,f,f}',
      recordedAtMs: '{1700000000123,1700000000124.5,1700000000125,1700000000126}',
    });
  });
});
