import { describe, expect, it } from 'vitest';
import { entryVerdict, severityColour, Verification } from '../src/audit-model';
import { completionOptions, rowMarks } from '../src/feel-completion';
import { licenseUnconfigured, pageAllowed } from '../src/license-model';
import { importFormat } from '../src/table-files';
import { needsValidation, validationScope, validationText } from '../src/feel-validation';

const verification = (over: Partial<Verification>): Verification => ({
  valid: true,
  tenantId: 'default',
  entriesChecked: 5,
  firstBadEntry: null,
  reason: null,
  headSeq: 5,
  keyId: 'audit-key-1',
  ...over,
});

describe('audit verdict per entry', () => {
  const signed = (seq: number) => ({ seq, signature: 'sig' });

  it('marks every entry verified when the chain is valid', () => {
    expect(entryVerdict(signed(3), verification({})).label).toBe('signature ✓ chain ✓');
  });

  it('splits a broken chain: before the first bad entry verified, the bad one broken, after it unproven', () => {
    const broken = verification({ valid: false, firstBadEntry: { seq: 3 }, reason: 'HASH_MISMATCH' });
    expect(entryVerdict(signed(2), broken).label).toBe('signature ✓ chain ✓');
    expect(entryVerdict(signed(3), broken)).toEqual({ colour: 'red.9', label: 'broken: HASH_MISMATCH' });
    expect(entryVerdict(signed(4), broken).label).toBe('after the break');
  });

  it('does not vouch for an unsigned entry, one newer than the check, or before the answer', () => {
    expect(entryVerdict({ seq: 1, signature: null }, verification({})).label).toBe('unsigned');
    expect(entryVerdict(signed(6), verification({ headSeq: 5 })).label).toBe('newer than the check');
    expect(entryVerdict(signed(1), null).label).toBe('checking…');
    expect(entryVerdict(signed(1), verification({ valid: false, firstBadEntry: null })).label).toBe(
      'not verified',
    );
  });

  it('colours shadow severities as the spec says: none green, medium yellow, high red', () => {
    expect([severityColour('none'), severityColour('medium'), severityColour('high')]).toEqual([
      'green.9',
      'yellow.5',
      'red.9',
    ]);
    expect(severityColour(undefined)).toBe('gray');
  });
});

describe('license gating of pages', () => {
  const info = (allowedFeatures: string[] | null, licenseId: string | null = 'lic-1') => ({
    isValid: true,
    licenseId,
    allowedFeatures,
  });

  it('shows ungated pages always and gated ones when the feature or * is listed', () => {
    expect(pageAllowed(undefined, info([]))).toBe(true);
    expect(pageAllowed('pdf.canary', info(['pdf.canary']))).toBe(true);
    expect(pageAllowed('pdf.canary', info(['*']))).toBe(true);
    expect(pageAllowed('pdf.canary', info(['cp.publish']))).toBe(false);
  });

  it('takes a configured empty list at its word, and hides nothing when no license is configured', () => {
    expect(pageAllowed('pdf.canary', info([], 'lic-1'))).toBe(false);
    expect(licenseUnconfigured(info([], null))).toBe(true);
    expect(pageAllowed('pdf.canary', info([], null))).toBe(true);
    expect(pageAllowed('pdf.canary', info(null, null))).toBe(true);
    expect(pageAllowed('pdf.canary', null)).toBe(true);
    // a feature list without a license id is a configured list
    expect(pageAllowed('pdf.canary', info(['cp.publish'], null))).toBe(false);
  });
});

describe('FEEL completion options', () => {
  it('replaces the word being typed, one option per inserted text, keeping the service order', () => {
    const options = completionOptions('>= da', [
      { label: 'date', kind: 'function', detail: 'date(from)', insertText: 'date(', from: 3 },
      { label: 'date', kind: 'function', detail: 'date(y, m, d)', insertText: 'date(', from: 3 },
      {
        label: 'day of week',
        kind: 'function',
        detail: 'day of week(date)',
        insertText: 'day of week(',
        from: 3,
      },
    ]);
    expect(options).toEqual([
      { value: '>= date(', label: 'date(from) · function' },
      { value: '>= day of week(', label: 'day of week(date) · function' },
    ]);
  });

  it('drops a suggestion that changes nothing and clamps a from outside the text', () => {
    expect(
      completionOptions('age', [{ label: 'age', kind: 'variable', insertText: 'age', from: 0 }]),
    ).toEqual([]);
    expect(completionOptions('a', [{ label: 'age', kind: 'variable', insertText: 'age', from: 9 }])).toEqual([
      { value: 'aage', label: 'age · variable' },
    ]);
  });
});

describe('analysis marks on rows', () => {
  it('gives each row of an overlapping pair the other row, and a redundant row the row covering it', () => {
    const marks = rowMarks({
      overlaps: [
        { rowIds: ['r1', 'r2'], columns: ['age'] },
        { rowIds: ['r1', 'r3'], columns: ['age'] },
      ],
      overlapCount: 2,
      overlapsTruncated: false,
      gaps: [],
      gapsTruncated: false,
      redundantRows: [{ rowId: 'r2', subsumedBy: 'r1' }],
      complete: true,
    });
    expect(marks.r1.overlapsWith).toEqual(['r2', 'r3']);
    expect(marks.r2).toEqual({ overlapsWith: ['r1'], subsumedBy: 'r1' });
    expect(marks.r4).toBeUndefined();
    expect(rowMarks(null)).toEqual({});
  });
});

describe('import format by file name', () => {
  it('maps the extensions to the service formats and refuses others', () => {
    expect(['a.json', 'B.XLSX', 'c.dmn', 'd.xml', 'e.csv', 'f.txt', 'noext'].map(importFormat)).toEqual([
      'json',
      'excel',
      'dmn',
      'dmn',
      'csv',
      null,
      null,
    ]);
  });
});

describe('FEEL validation of a cell as you type', () => {
  it('shows nothing for a valid cell and the message with its position for an invalid one', () => {
    expect(validationText({ valid: true, message: 'OK' })).toBeUndefined();
    expect(validationText({ valid: false, message: "Unexpected token '>'", line: 1, column: 2 })).toBe(
      "line 1, column 2: Unexpected token '>'",
    );
    expect(validationText({ valid: false, message: "Unknown name: 'income'" })).toBe(
      "Unknown name: 'income'",
    );
  });

  it("puts the grid's input columns in scope with their types (any when untyped)", () => {
    expect(validationScope([{ name: 'age', type: 'number' }, { name: 'region' }])).toEqual({
      age: 'number',
      region: 'any',
    });
    expect(validationScope([])).toEqual({});
  });

  it('asks nothing about an empty cell (it matches anything)', () => {
    expect(needsValidation('')).toBe(false);
    expect(needsValidation('   ')).toBe(false);
    expect(needsValidation('-')).toBe(true);
    expect(needsValidation('>= 18')).toBe(true);
  });
});
