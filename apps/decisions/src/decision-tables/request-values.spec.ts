import { AppError } from '@arbiter/platform';
import {
  commentOrNull,
  expectedVersions,
  isTableId,
  optionalVersion,
  parseVersion,
  versionTag,
} from './request-values';

describe('request values', () => {
  it('parses a version: a positive integer of at most 9 digits', () => {
    expect(parseVersion('3')).toBe(3);
    expect(parseVersion(' 12 ')).toBe(12);
    expect(parseVersion(7)).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'abc', '', undefined, '1234567890'])
      expect(() => parseVersion(bad)).toThrow(AppError);
  });

  it('names the parameter in a 400 INVALID_VERSION', () => {
    expect(() => parseVersion('x', 'fromVersion')).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'INVALID_VERSION',
        message: 'fromVersion must be a positive integer',
      }),
    );
  });

  it('reads an absent optional version as the latest', () => {
    expect(optionalVersion(undefined)).toBeUndefined();
    expect(optionalVersion('2')).toBe(2);
    expect(() => optionalVersion('')).toThrow(AppError);
  });

  it('accepts only UUIDs as table ids', () => {
    expect(isTableId('0b7c6f3e-7f0e-4f35-9d6e-2f1d2a3b4c5d')).toBe(true);
    expect(isTableId('0B7C6F3E-7F0E-4F35-9D6E-2F1D2A3B4C5D')).toBe(true);
    expect(isTableId('Loan risk')).toBe(false);
  });

  it('keeps a non-blank comment only', () => {
    expect(commentOrNull('why')).toBe('why');
    expect(commentOrNull('   ')).toBeNull();
    expect(commentOrNull(3)).toBeNull();
  });

  it('reads the versions an update may be based on from If-Match and the body', () => {
    expect(versionTag(3)).toBe('"v3"');
    expect(expectedVersions(undefined, undefined)).toBeUndefined();
    expect(expectedVersions('*', undefined)).toBeUndefined();
    expect(expectedVersions('"v3"', undefined)).toEqual([3]);
    expect(expectedVersions(' "v2" , "v4"', undefined)).toEqual([2, 4]);
    expect(expectedVersions('W/"v3"', undefined)).toEqual([]); // a weak tag never matches (RFC 9110)
    expect(expectedVersions('3', undefined)).toEqual([]);
    expect(expectedVersions(undefined, 5)).toEqual([5]);
    expect(expectedVersions('"v5"', 5)).toEqual([5]);
    expect(expectedVersions('"v4"', 5)).toEqual([]);
    expect(expectedVersions('*', 5)).toEqual([5]);
  });
});
