import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { decisionsService } from '../src';
import { client, sampleTable, upload } from './helpers';

/** `rows` rows whose one condition each runs a `for … return` of `size` iterations (and never matches). */
function loopTable(name: string, rows: number, size: number) {
  return {
    name,
    hitPolicy: 'First',
    inputColumns: [{ name: 'x', type: 'number' }],
    outputColumns: [{ name: 'y', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i + 1}`,
      inputConditions: { x: `count(for i in 1..${size} return i) < 0` },
      outputs: { y: i },
    })),
  };
}

const LIMIT_CODES = ['EVALUATION_BUDGET_EXCEEDED', 'DEADLINE_EXCEEDED'];

describe('decisions hardening: evaluations cannot hang the service', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, 'hardening');
  });
  afterAll(() => sut?.stop());

  it('a crafted 200-row table is cut off within about a second with a 422 naming the limit', async () => {
    const created = await api.post('', loopTable('loops', 200, 100_000));
    expect(created.status).toBe(201);
    const id = created.body.id;
    await api.post(`/${id}/evaluate`, { input: { x: 1 } }); // compile outside the timing
    const started = Date.now();
    const [evaluated, live] = await Promise.all([
      api.post(`/${id}/evaluate`, { input: { x: 1 } }),
      // queued behind the evaluation on the event loop: answers as soon as it is cut off
      new Promise((resolve) => setTimeout(resolve, 20)).then(() => fetch(`${sut.url}/health/live`)),
    ]);
    const elapsed = Date.now() - started;
    expect(evaluated.status).toBe(422);
    expect(LIMIT_CODES).toContain(evaluated.body.code);
    expect(evaluated.body.error).toMatch(/DecisionTables:Evaluation(StepBudget|TimeoutMs)/);
    expect(elapsed).toBeLessThan(2_500);
    expect(live.status).toBe(200);
    // the execute form is bounded the same way, and the service keeps answering
    const executed = await api.post(`/${id}/execute`, { x: 1 });
    expect(executed.status).toBe(422);
    expect(LIMIT_CODES).toContain(executed.body.code);
    expect((await api.get(`/${id}`)).status).toBe(200);
  });

  it('the step budget is per evaluation: cells that each stay far below it still add up', async () => {
    // 40 cells × ~60,000 steps = 2.4 million steps (the default budget is 1 million)
    const id = (await api.post('', loopTable('adds up', 40, 30_000))).body.id;
    const r = await api.post(`/${id}/evaluate`, { input: { x: 1 } });
    expect(r.status).toBe(422);
    expect(LIMIT_CODES).toContain(r.body.code);
    // a table within the budget answers as before
    const small = (await api.post('', loopTable('small loops', 3, 1000))).body.id;
    const ok = await api.post(`/${small}/evaluate`, { input: { x: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body.matchedRows).toEqual([]);
  });

  it('POST /{id}/feel is bounded: a runaway expression is a 422 naming the limit', async () => {
    const id = (await api.post('', loopTable('feel host', 1, 1))).body.id;
    const started = Date.now();
    const r = await api.post(`/${id}/feel`, {
      expression: 'sum(for i in 1..100000 return sum(for j in 1..1000 return j)) > 0',
    });
    expect(r.status).toBe(422);
    expect(LIMIT_CODES).toContain(r.body.code);
    expect(Date.now() - started).toBeLessThan(2_500);
    const fine = await api.post(`/${id}/feel`, { expression: 'count(for i in 1..10 return i)' });
    expect(fine.status).toBe(200);
    expect(fine.body.result).toBe(10);
  });
});

describe('decisions hardening: no silent loss, no 500s, no wrong answers', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, 'answers');
  });
  afterAll(() => sut?.stop());

  it('DMN import keeps a non-constant output entry and the table computes it', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="n" namespace="x">
  <decision id="bonus" name="Bonus">
    <decisionTable id="t" hitPolicy="FIRST">
      <input id="i1" label="amount"><inputExpression typeRef="number"><text>amount</text></inputExpression></input>
      <output id="o1" name="bonus" typeRef="number"/>
      <rule id="rule_1"><inputEntry><text>&gt; 100</text></inputEntry><outputEntry><text>amount * 0.1</text></outputEntry></rule>
      <rule id="rule_2"><inputEntry><text>-</text></inputEntry><outputEntry><text>0</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`;
    const imported = await upload(sut.url, 'dmn', xml, 'bonus.dmn', 'answers');
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: 1, results: [{ status: 'success' }] });
    const id = imported.body.results[0].id;
    const table = (await api.get(`/${id}`)).body;
    expect(table.rows[0]).toMatchObject({ outputs: {}, outputExpressions: { bonus: 'amount * 0.1' } });
    const r = await api.post(`/${id}/evaluate`, { input: { amount: 250 } });
    expect(r.status).toBe(200);
    expect(r.body.outputValues).toEqual({ bonus: 25 });
    // an entry that is not valid FEEL fails the table with its reason, never "success" with less
    const broken = await upload(
      sut.url,
      'dmn',
      xml.replace('amount * 0.1', 'amount *').replace('"Bonus"', '"Broken"'),
      'b.dmn',
      'answers',
    );
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('IMPORT_FAILED');
    expect(broken.body.details).toEqual([
      { field: 'tables[0]', message: expect.stringMatching(/^'Broken': .*output expression/) },
    ]);
  });

  it('rows sent without ids keep their identity across versions: the diff shows what changed', async () => {
    const rows = (risk: string) => [
      { inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
      { inputConditions: { age: '[18..65]' }, outputs: { risk } },
      { inputConditions: { age: '> 65' }, outputs: { risk: 'senior' } },
    ];
    const body = (risk: string, extra: object[] = []) => ({
      ...sampleTable('No ids'),
      rows: [...rows(risk), ...extra],
    });
    const id = (await api.post('', body('low'))).body.id;
    const v1 = (await api.get(`/${id}`)).body;
    expect((await api.put(`/${id}`, body('medium'))).status).toBe(200);
    const diff = await api.get(`/${id}/versions/1/diff/2`);
    expect(diff.status).toBe(200);
    expect(diff.body.addedRows).toEqual([]);
    expect(diff.body.removedRows).toEqual([]);
    expect(diff.body.modifiedRows).toEqual([
      { rowId: v1.rows[1].id, changes: { outputs: { risk: { from: 'low', to: 'medium' } } } },
    ]);
    // a new row is added, the others keep their ids (also when a row moves)
    const moved = body('medium', [{ inputConditions: { country: '"NL"' }, outputs: { risk: 'nl' } }]);
    moved.rows = [moved.rows[2], moved.rows[0], moved.rows[1], moved.rows[3]];
    await api.put(`/${id}`, moved);
    const v3 = (await api.get(`/${id}`)).body;
    expect(v3.rows.slice(0, 3).map((r: { id: string }) => r.id)).toEqual([
      v1.rows[2].id,
      v1.rows[0].id,
      v1.rows[1].id,
    ]);
    const diff23 = (await api.get(`/${id}/versions/2/diff/3`)).body;
    expect(diff23.addedRows).toEqual([
      { rowId: v3.rows[3].id, inputConditions: { country: '"NL"' }, outputs: { risk: 'nl' } },
    ]);
    expect(diff23.removedRows).toEqual([]);
    expect(diff23.modifiedRows).toEqual([]);
  });

  it('>> 5, == 5 and <> 5 are invalid unary tests: valid false with the position', async () => {
    for (const cell of ['>> 5', '== 5', '<> 5']) {
      const table = {
        ...sampleTable('typo'),
        rows: [{ id: 'r1', inputConditions: { age: cell }, outputs: { risk: 'x' } }],
      };
      const r = await api.post('/validate', table);
      expect(r.status).toBe(200);
      expect(r.body.valid).toBe(false);
      expect(r.body.errors).toEqual([
        { rowId: 'r1', column: 'age', message: expect.stringMatching(/line 1, column \d+/) },
      ]);
      expect((await api.post('', table)).status).toBe(400);
    }
  });

  it('an invalid input-column expression: 200 valid false on /validate, 400 on create and analyze, failed on import', async () => {
    const table = {
      ...sampleTable('bad expression'),
      inputColumns: [
        { name: 'age', type: 'number', required: true, expression: 'birth year +' },
        { name: 'country', type: 'string' },
      ],
    };
    const validated = await api.post('/validate', table);
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.errors).toEqual([
      { rowId: null, column: 'age', message: expect.stringContaining('Invalid FEEL expression') },
    ]);
    const created = await api.post('', table);
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('INVALID_TABLE');
    const analyzed = await api.post('/analyze', table);
    expect(analyzed.status).toBe(400);
    expect(analyzed.body.code).toBe('INVALID_TABLE');
    const imported = await api.post('/import?format=json', [table, sampleTable('good beside bad')]);
    expect(imported.status).toBe(207);
    expect(imported.body).toMatchObject({ imported: 1, skipped: 0, failed: 1 });
    expect(imported.body.results[0]).toEqual({
      name: 'bad expression',
      id: null,
      status: 'failed',
      error: expect.stringContaining('Invalid FEEL expression'),
    });
  });

  it('NUL or a lone surrogate in a stored string is a 400 naming the field', async () => {
    const nul = { ...sampleTable('nul\u0000name') };
    const r1 = await api.post('', nul);
    expect(r1.status).toBe(400);
    expect(r1.body.code).toBe('INVALID_CHARACTERS');
    expect(r1.body.details).toEqual([{ field: 'body.name', message: expect.any(String) }]);
    const surrogate = sampleTable('surrogate');
    surrogate.rows[1].outputs.risk = 'lo\ud800w';
    const r2 = await api.post('', surrogate);
    expect(r2.status).toBe(400);
    expect(r2.body.details[0].field).toBe('body.rows[1].outputs.risk');
    const id = (await api.post('', sampleTable('fine'))).body.id;
    const r3 = await api.put(`/${id}`, { ...sampleTable('fine'), comment: 'x\u0000' });
    expect(r3.status).toBe(400);
    expect(r3.body.details[0].field).toBe('body.comment');
    // from an uploaded file: the table fails, naming the field
    const csv = '#name,From csv\nid,priority,in:age:number,out:risk:string\nr1,1,< 18,mi\u0000nor\n';
    const up = await upload(sut.url, 'csv', csv, 't.csv', 'answers');
    expect(up.status).toBe(400);
    expect(up.body.code).toBe('IMPORT_FAILED');
    expect(up.body.details).toEqual([
      { field: 'tables[0]', message: expect.stringContaining('table.rows[0].outputs.risk') },
    ]);
  });

  it('CollectSum adds with FEEL decimal semantics: 0.1 + 0.2 = 0.3', async () => {
    const id = (
      await api.post('', {
        name: 'sums',
        hitPolicy: 'CollectSum',
        inputColumns: [{ name: 'x', type: 'number' }],
        outputColumns: [{ name: 'total', type: 'number' }],
        rows: [
          { inputConditions: { x: '> 0' }, outputs: { total: 0.1 } },
          { inputConditions: { x: '> 1' }, outputs: { total: 0.2 } },
        ],
      })
    ).body.id;
    const r = await api.post(`/${id}/evaluate`, { input: { x: 5 } });
    expect(r.body.outputValues).toEqual({ total: 0.3 });
    const feel = await api.post(`/${id}/feel`, { expression: 'sum([0.1, 0.2])' });
    expect(feel.body.result).toBe(r.body.outputValues.total);
  });

  it('columns named constructor, toString and hasOwnProperty work like any other; __proto__ through files', async () => {
    const names = ['constructor', 'toString', 'hasOwnProperty'];
    const table = {
      name: 'prototype names',
      hitPolicy: 'Collect',
      inputColumns: names.map((name) => ({ name, type: 'string' })),
      outputColumns: names.map((name) => ({ name, type: 'string' })),
      rows: [
        {
          id: 'r1',
          inputConditions: { constructor: '"a"' },
          outputs: { toString: 'out', hasOwnProperty: 'own' },
        },
      ],
    };
    const created = await api.post('', table);
    expect(created.status).toBe(201);
    const id = created.body.id;
    const r = await api.post(`/${id}/evaluate`, { input: { constructor: 'a' } });
    expect(r.status).toBe(200);
    expect(r.body.matchedRows).toEqual(['r1']);
    expect(r.body.outputRows[0].outputs).toEqual({
      constructor: null,
      toString: 'out',
      hasOwnProperty: 'own',
    });
    // an input not given is missing, not Object.prototype's member
    const none = await api.post(`/${id}/evaluate`, { input: { toString: 'x' } });
    expect(none.status).toBe(200);
    expect(none.body.matchedRows).toEqual([]);
    // the diff and the exports see them too
    const next = {
      ...table,
      rows: [{ ...table.rows[0], outputs: { toString: 'changed', hasOwnProperty: 'own' } }],
    };
    await api.put(`/${id}`, next);
    const diff = (await api.get(`/${id}/versions/1/diff/2`)).body;
    expect(diff.modifiedRows).toEqual([
      { rowId: 'r1', changes: { outputs: { toString: { from: 'out', to: 'changed' } } } },
    ]);
    for (const format of ['csv', 'dmn']) {
      const exported = await api.get(`/${id}/export?format=${format}`);
      expect(exported.status).toBe(200);
      expect(exported.text).toContain('changed');
      expect(exported.text).not.toMatch(/function|\[native code\]/);
    }
    // `__proto__` in a JSON body is refused by the platform's JSON parser (prototype poisoning): a 400,
    // not a 500; a file may name a column so, and it is a column like any other
    const proto = await api.post(
      '',
      JSON.parse(
        '{"name":"p","hitPolicy":"First","inputColumns":[],"outputColumns":[{"name":"__proto__"}],"rows":[{"outputs":{"__proto__":"x"}}]}',
      ),
    );
    expect(proto.status).toBe(400);
    const csv = '#name,Proto\nid,priority,in:__proto__:string,out:__proto__:string\nr1,1,"""x""",found\n';
    const up = await upload(sut.url, 'csv', csv, 'p.csv', 'answers');
    expect(up.body).toMatchObject({ imported: 1 });
    const protoId = up.body.results[0].id;
    const got = await api.get(`/${protoId}`);
    expect(got.text).toContain('"outputs":{"__proto__":"found"}');
    const evaluated = await api.post(`/${protoId}/evaluate`, { input: {} });
    expect(evaluated.status).toBe(200);
    expect(evaluated.body.matchedRows).toEqual([]);
  });
});
