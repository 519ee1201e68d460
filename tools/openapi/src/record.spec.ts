import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecord, RecordedBreakingChange, unrecordedChanges } from './record';

const change = { operation: 'POST /things/{id}', change: "request body: property 'name' became required" };
const entry: RecordedBreakingChange = {
  service: 'decisions',
  ...change,
  version: '0.2.0',
  reason: 'names are mandatory from 0.2.0 on',
};

describe('unrecordedChanges', () => {
  it('keeps a change no entry covers and drops one recorded for this service and version', () => {
    const other = { operation: 'GET /things', change: 'operation removed' };
    expect(unrecordedChanges('decisions', '0.2.0', [change, other], [entry])).toEqual([other]);
  });

  it('does not let an entry of another version, service, operation or wording excuse a change', () => {
    for (const different of [
      { ...entry, version: '0.1.0' },
      { ...entry, service: 'identity' },
      { ...entry, operation: 'PUT /things/{id}' },
      { ...entry, change: "request body: property 'name' added as required" },
    ]) {
      expect(unrecordedChanges('decisions', '0.2.0', [change], [different])).toEqual([change]);
    }
  });
});

describe('readRecord', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'record-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const recordWith = (content: unknown) => {
    const path = join(directory, 'breaking-changes.json');
    writeFileSync(path, JSON.stringify(content));
    return path;
  };

  it('reads well-formed entries', () => {
    expect(readRecord(recordWith([entry]))).toEqual([entry]);
    expect(readRecord(recordWith([]))).toEqual([]);
  });

  it('refuses a record that is not an array, an entry without a reason, and unknown fields', () => {
    expect(() => readRecord(recordWith({ changes: [] }))).toThrow('expected an array');
    expect(() => readRecord(recordWith([{ ...entry, reason: ' ' }]))).toThrow(
      "entry 0 needs a non-empty string 'reason'",
    );
    expect(() => readRecord(recordWith([{ ...entry, ticket: 'X-1' }]))).toThrow(
      'entry 0 has unknown fields ticket',
    );
  });
});
