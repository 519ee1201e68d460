import { compileDecisionTable, HIT_POLICIES, validateDecisionTable } from '@arbiter/rule-engine';
import ExcelJS from 'exceljs';
import { zipSync } from 'fflate';
import { StoredDefinition } from '../application/table-model';
import { fromCsv, toCsv } from './csv';
import { feelLiteral, fromDmn, toDmn } from './dmn';
import { escapeFormula, unescapeFormula } from './grid';
import { DEFAULT_IMPORT_LIMITS, ImportLimitExceeded } from './import-limits';
import { fromXlsx, inspectXlsx, toXlsx } from './xlsx';

/** One table per hit policy, with every column type, computed columns, defaults, output values, … */
function shape(hitPolicy: string): StoredDefinition {
  return {
    name: `Every shape (${hitPolicy})`,
    description: 'line one\nline "two", \\ and\ttab',
    hitPolicy,
    inputColumns: [
      { name: 'age', type: 'number', required: true },
      { name: 'Applicant country', type: 'string' },
      { name: 'vip', type: 'boolean' },
      { name: 'since', type: 'date' },
      { name: 'at', type: 'time' },
      { name: 'when', type: 'dateTime' },
      { name: 'wait', type: 'duration' },
      { name: 'term', type: 'yearMonthDuration' },
      { name: 'monthly', type: 'number', expression: 'income / 12' },
      { name: 'income', type: 'number', expression: 'income' },
      { name: 'constructor', type: 'any' },
      { name: '__proto__', type: 'string' },
    ],
    outputColumns: [
      { name: 'risk', type: 'string', defaultValue: 'unknown', outputValues: ['high', 'low', 'minor'] },
      { name: 'limit', type: 'number', defaultValue: null },
      { name: 'due', type: 'date', defaultValue: '2024-12-31' },
      { name: 'slot', type: 'time' },
      { name: 'stamp', type: 'dateTime' },
      { name: 'grace', type: 'duration', outputValues: ['P1D', 'PT12H'] },
      { name: 'period', type: 'yearMonthDuration' },
      { name: 'ok', type: 'boolean' },
      { name: 'extra', type: 'any' },
      { name: 'toString', type: 'string' },
    ],
    rows: [
      {
        id: 'r1',
        priority: 3,
        inputConditions: {
          age: '< 18',
          'Applicant country': '"NL","BE"',
          since: '>= date("2020-01-01")',
          constructor: '"c"',
          __proto__: '"x"',
        },
        outputs: {
          risk: '=HYPERLINK("http://x")',
          limit: 1e21,
          due: '2025-01-31',
          slot: '10:30:00',
          stamp: '2025-01-31T10:30:00Z',
          grace: 'P1DT2H',
          period: 'P1Y2M',
          ok: true,
          extra: { nested: ['a', 1.5, null, false], 'key with "quote"': 'v\u0001' },
          toString: '-leading dash',
        },
      },
      {
        id: 'row with spaces & symbols/ü',
        priority: -1,
        inputConditions: {
          age: '[18..65]',
          vip: 'true',
          at: '< time("12:00:00")',
          wait: '> duration("PT1H")',
        },
        outputs: { risk: 'low', limit: 0.1, extra: '@SUM(1)', toString: '+1' },
        outputExpressions: {
          slot: 'time("07:00:00") + duration("PT1H")',
          stamp: 'date and time(since, time("00:00:00"))',
        },
      },
      {
        id: 'r3',
        priority: 0,
        inputConditions: {
          age: '>= 66',
          term: '> duration("P1Y")',
          when: '< date and time("2030-01-01T00:00:00")',
        },
        outputs: { risk: 'minor', limit: -42, period: 'P2Y', extra: [1, 2, 3] },
        outputExpressions: { due: 'since + duration("P30D")', ok: 'monthly > 1000' },
      },
    ],
  };
}

describe('lossless round trips: every table shape', () => {
  const shapes = HIT_POLICIES.map(shape);

  it('each shape is a valid table', () => {
    for (const s of shapes) expect(validateDecisionTable(s)).toMatchObject({ valid: true });
  });

  it.each(HIT_POLICIES.map((p) => [p]))('DMN export and import give back the table (%s)', (policy) => {
    const table = shape(policy);
    const back = fromDmn(toDmn(table, 'table-1'));
    expect(back).toEqual([table]);
  });

  it.each(HIT_POLICIES.map((p) => [p]))('CSV export and import give back the table (%s)', (policy) => {
    const table = shape(policy);
    expect(fromCsv(toCsv(table))).toEqual(table);
  });

  it('XLSX export and import give back the table', async () => {
    const table = shape('Priority');
    expect(await fromXlsx(await toXlsx(table))).toEqual([table]);
  });

  it('DMN writes dates, times and durations as FEEL values of their type, numbers in decimal notation', () => {
    const xml = toDmn(shape('First'), 't');
    expect(xml).toContain('<text>date(&quot;2025-01-31&quot;)</text>');
    expect(xml).toContain('<text>time(&quot;10:30:00&quot;)</text>');
    expect(xml).toContain('<text>date and time(&quot;2025-01-31T10:30:00Z&quot;)</text>');
    expect(xml).toContain('<text>duration(&quot;P1DT2H&quot;)</text>');
    expect(xml).toContain('<text>duration(&quot;P1Y2M&quot;)</text>');
    expect(xml).toContain('<text>1000000000000000000000</text>');
    expect(xml).toContain('<defaultOutputEntry id="default_3"><text>date(&quot;2024-12-31&quot;)</text>');
    expect(feelLiteral('2024-01-31', 'date')).toBe('date("2024-01-31")');
    expect(feelLiteral('2024-01-31')).toBe('"2024-01-31"');
    expect(feelLiteral('a\u0001"\n')).toBe('"a\\u0001\\"\\n"');
  });

  it('the imported table evaluates like the original, computed outputs included', () => {
    const input = { age: 30, vip: true, at: '09:00:00', wait: 'PT2H', income: 24000, since: '2021-05-01' };
    const original = compileDecisionTable(shape('Collect')).evaluate(input);
    const imported = compileDecisionTable(fromDmn(toDmn(shape('Collect'), 't'))[0]).evaluate(input);
    expect(imported).toEqual(original);
    expect(original.matchedRows).toEqual(['row with spaces & symbols/ü']);
    expect(original.outputRows[0].outputs).toMatchObject({
      slot: '08:00:00',
      stamp: '2021-05-01T00:00:00',
      limit: 0.1,
    });
  });
});

describe('DMN import', () => {
  const dmn = (outputEntry: string, extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
${extra}<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="n" namespace="x">
  <decision id="bonus" name="Bonus">
    <decisionTable id="t" hitPolicy="FIRST">
      <input id="i1" label="amount"><inputExpression typeRef="number"><text>amount</text></inputExpression></input>
      <output id="o1" name="bonus" typeRef="number"/>
      <rule id="rule_1">
        <inputEntry><text>&gt; 100</text></inputEntry>
        <outputEntry><text>${outputEntry}</text></outputEntry>
      </rule>
    </decisionTable>
  </decision>
</definitions>`;

  it('keeps a non-constant output entry as an output expression, and the table computes it', () => {
    const [table] = fromDmn(dmn('amount * 0.1'));
    expect(table.rows).toEqual([
      {
        id: '1',
        priority: 0,
        inputConditions: { amount: '> 100' },
        outputs: {},
        outputExpressions: { bonus: 'amount * 0.1' },
      },
    ]);
    expect(compileDecisionTable(table).evaluate({ amount: 250 }).outputValues).toEqual({ bonus: 25 });
  });

  it('an invalid output entry fails the table, naming the row and the column (never a silent loss)', () => {
    const [table] = fromDmn(dmn('amount *'));
    const result = validateDecisionTable(table);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      { rowId: '1', column: 'bonus', message: expect.stringContaining('Invalid FEEL output expression') },
    ]);
  });

  it('refuses a document type declaration (billion laughs, XXE) before parsing', () => {
    const lol = `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>`;
    expect(() => fromDmn(dmn('&lol2;', lol))).toThrow(/document type/);
    const xxe = `<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`;
    expect(() => fromDmn(dmn('&xxe;', xxe))).toThrow(/document type/);
    // a DOCTYPE inside a comment is only text
    expect(fromDmn(dmn('1', '<!-- <!DOCTYPE x> -->'))).toHaveLength(1);
  });
});

describe('XLSX import: native cells and limits', () => {
  async function sheet(rows: unknown[][]): Promise<Buffer> {
    const workbook = new ExcelJS.Workbook();
    const ws = workbook.addWorksheet('t');
    for (const r of rows) ws.addRow(r);
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }

  it('reads native dates, times, date-times and numbers as their FEEL values', async () => {
    const day = (y: number, m: number, d: number, h = 0, min = 0) => new Date(Date.UTC(y, m - 1, d, h, min));
    const [table] = await fromXlsx(
      await sheet([
        ['#name', 'Dates'],
        [
          'id',
          'priority',
          'in:since:date',
          'in:at:time',
          'in:stamp:dateTime',
          'in:n:number',
          'in:x:any',
          'in:y:any',
          'out:due:date',
        ],
        [
          'r1',
          1,
          day(2024, 1, 31),
          day(1899, 12, 30, 10, 30),
          day(2024, 2, 2, 8, 15),
          1e21,
          null,
          null,
          day(2025, 6, 1),
        ],
        ['r2', 2, null, null, null, null, day(2024, 3, 1), day(1899, 12, 30, 23, 59)],
      ]),
    );
    expect((table as { rows: unknown[] }).rows).toEqual([
      {
        id: 'r1',
        priority: 1,
        inputConditions: {
          since: 'date("2024-01-31")',
          at: 'time("10:30:00")',
          stamp: 'date and time("2024-02-02T08:15:00")',
          n: '1000000000000000000000',
        },
        outputs: { due: '2025-06-01' },
      },
      // without a temporal column type: a date at midnight, a time on day zero
      {
        id: 'r2',
        priority: 2,
        inputConditions: { x: 'date("2024-03-01")', y: 'time("23:59:00")' },
        outputs: {},
      },
    ]);
    const compiled = compileDecisionTable(table);
    const input = { since: '2024-01-31', at: '10:30:00', stamp: '2024-02-02T08:15:00', n: 1e21 };
    expect(compiled.evaluate(input).matchedRows).toEqual(['r1']);
    // the date condition is a condition: another date does not match
    expect(compiled.evaluate({ ...input, since: '2024-02-01' }).matchedRows).toEqual([]);
  });

  it('a zip bomb is stopped after the decompressed-size limit, whatever its headers say', () => {
    const bomb = zipSync({ 'xl/worksheets/sheet1.xml': new Uint8Array(80 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).toBeLessThan(200 * 1024);
    const before = process.memoryUsage().rss;
    const error = (() => {
      try {
        return void fromXlsxSync(bomb);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ImportLimitExceeded);
    expect(error).toMatchObject({ code: 'ARCHIVE_TOO_LARGE' });
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    // lying headers: the declared size is small, the data is not (the inflating pass counts)
    const lying = Buffer.from(bomb);
    lieAboutSizes(lying);
    expect(() => fromXlsxSync(lying)).toThrow(ImportLimitExceeded);
  });

  it('too many entries, worksheets or rows are refused before parsing', async () => {
    const many = zipSync(
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}.xml`, new Uint8Array(1)])),
    );
    expect(() => fromXlsxSync(many)).toThrow(expect.objectContaining({ code: 'ARCHIVE_TOO_MANY_ENTRIES' }));
    const sheets = zipSync(
      Object.fromEntries(
        Array.from({ length: 5 }, (_, i) => [`xl/worksheets/sheet${i + 1}.xml`, new Uint8Array(1)]),
      ),
    );
    expect(() => fromXlsxSync(sheets, { maxTables: 3 })).toThrow(
      expect.objectContaining({ code: 'IMPORT_TOO_MANY_TABLES' }),
    );
    const rows = await sheet(Array.from({ length: 30 }, (_, i) => [`r${i}`]));
    await expect(fromXlsx(rows, { ...DEFAULT_IMPORT_LIMITS, maxLines: 20 })).rejects.toMatchObject({
      code: 'IMPORT_TOO_MANY_ROWS',
    });
  });
});

describe('CSV import limits', () => {
  it('stops reading at the line limit', () => {
    const csv = '#name,T\nid,priority,in:x:number,out:y:number\n' + 'r,1,1,1\n'.repeat(100);
    expect(() => fromCsv(csv, 50)).toThrow(expect.objectContaining({ code: 'IMPORT_TOO_MANY_ROWS' }));
    expect(fromCsv(csv, 200)).toMatchObject({ name: 'T' });
  });
});

describe('formula injection (OWASP): CSV and XLSX text cells', () => {
  it('escapes cells starting with = + - @ tab or CR, and reads them back unchanged', () => {
    for (const text of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', "'=x", "''-x"]) {
      expect(escapeFormula(text)).toBe(`'${text}`);
      expect(unescapeFormula(escapeFormula(text))).toBe(text);
    }
    for (const text of ['a=1', "'plain", '', '< 10', '"=x"'])
      expect(unescapeFormula(escapeFormula(text))).toBe(text);
    expect(escapeFormula('plain')).toBe('plain');
  });

  it('no exported CSV cell starts with a formula character', () => {
    const cells = toCsv(shape('First'))
      .split('\r\n')
      .flatMap((line) => line.split(','));
    // numbers (the priority -1, the limit -42) are numbers, not formulas
    const text = cells.filter((c) => !/^-?\d+(\.\d+)?$/.test(c));
    for (const cell of text) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('no exported XLSX text cell starts with a formula character', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await toXlsx(shape('First'))) as never);
    workbook.getWorksheet('Decision table')!.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === 'string') expect(cell.value).not.toMatch(/^[=+\-@\t\r]/);
      }),
    );
  });
});

/** `inspectXlsx` through fromXlsx's first, synchronous step (the limits are checked before parsing). */
function fromXlsxSync(data: Uint8Array, limits: Partial<typeof DEFAULT_IMPORT_LIMITS> = {}): void {
  inspectXlsx(data, { ...DEFAULT_IMPORT_LIMITS, ...limits });
}

/** Rewrites every declared uncompressed size (local headers and central directory) to 1 byte. */
function lieAboutSizes(zip: Buffer): void {
  for (let i = 0; i + 4 <= zip.length; i++) {
    const sig = zip.readUInt32LE(i);
    if (sig === 0x04034b50) zip.writeUInt32LE(1, i + 22);
    else if (sig === 0x02014b50) zip.writeUInt32LE(1, i + 24);
  }
}
