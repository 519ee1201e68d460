import { findBreakingChanges } from './breaking-changes';

type Json = Record<string, any>;

/** A document with one operation `POST /things/{id}` built from the parts a test changes. */
function documentWith(
  parts: {
    parameters?: Json[];
    requestBody?: Json;
    responses?: Json;
    schemas?: Json;
    operationId?: string;
    security?: Json[];
    path?: string;
    method?: string;
  } = {},
): Json {
  const operation: Json = {
    operationId: parts.operationId ?? 'thingsUpdate',
    parameters: parts.parameters ?? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: parts.responses ?? { '200': { description: 'ok' } },
  };
  if (parts.requestBody) operation.requestBody = parts.requestBody;
  if (parts.security) operation.security = parts.security;
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1.0.0' },
    security: [{ bearer: [] }],
    paths: { [parts.path ?? '/things/{id}']: { [parts.method ?? 'post']: operation } },
    components: { schemas: parts.schemas ?? {} },
  };
}

/** A document whose `POST /things/{id}` takes `schema` as its JSON body. */
function requestBody(schema: Json, schemas: Json = {}, required = true): Json {
  return documentWith({
    requestBody: { required, content: { 'application/json': { schema } } },
    schemas,
  });
}

/** A document whose `POST /things/{id}` answers 200 with `schema`. */
function responseBody(schema: Json, schemas: Json = {}): Json {
  return documentWith({
    responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
    schemas,
  });
}

const object = (properties: Json, required: string[] = []) => ({ type: 'object', properties, required });

function changes(baseline: Json, current: Json): string[] {
  return findBreakingChanges(baseline, current).map((c) => `${c.operation}: ${c.change}`);
}

const OP = 'POST /things/{id}';

describe('findBreakingChanges: operations', () => {
  it('finds nothing between a document and itself', () => {
    const document = requestBody(object({ name: { type: 'string' } }, ['name']));
    expect(changes(document, structuredClone(document))).toEqual([]);
  });

  it('reports a removed operation, naming it by method and path', () => {
    const baseline = documentWith();
    const current = documentWith({ method: 'put' });
    expect(changes(baseline, current)).toEqual([`${OP}: operation removed`]);
  });

  it('does not report a new operation', () => {
    const baseline = documentWith();
    const current = structuredClone(baseline);
    current.paths['/other'] = { get: { operationId: 'other', responses: { '200': { description: 'ok' } } } };
    expect(changes(baseline, current)).toEqual([]);
  });

  it('treats a renamed path parameter as the same operation (same URL)', () => {
    const baseline = documentWith();
    const current = documentWith({
      path: '/things/{thingId}',
      parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
    });
    expect(changes(baseline, current)).toEqual([]);
  });

  it('reports a changed operationId (generated clients call it by that name)', () => {
    expect(changes(documentWith(), documentWith({ operationId: 'thingsPatch' }))).toEqual([
      `${OP}: operationId changed from 'thingsUpdate' to 'thingsPatch'`,
    ]);
  });

  it('reports a public operation that now requires authentication, not the reverse', () => {
    const open = documentWith({ security: [] });
    const closed = documentWith();
    expect(changes(open, closed)).toEqual([`${OP}: now requires authentication`]);
    expect(changes(closed, open)).toEqual([]);
  });
});

describe('findBreakingChanges: parameters', () => {
  const withQuery = (parameter?: Json) =>
    documentWith({
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ...(parameter ? [parameter] : []),
      ],
    });

  it('reports a new required query parameter, not a new optional one', () => {
    const required = withQuery({ name: 'limit', in: 'query', required: true, schema: { type: 'integer' } });
    const optional = withQuery({ name: 'limit', in: 'query', schema: { type: 'integer' } });
    expect(changes(withQuery(), required)).toEqual([`${OP}: query parameter 'limit' added as required`]);
    expect(changes(withQuery(), optional)).toEqual([]);
  });

  it('reports an optional parameter that became required, not the reverse', () => {
    const optional = withQuery({ name: 'limit', in: 'query', schema: { type: 'integer' } });
    const required = withQuery({ name: 'limit', in: 'query', required: true, schema: { type: 'integer' } });
    expect(changes(optional, required)).toEqual([`${OP}: query parameter 'limit' became required`]);
    expect(changes(required, optional)).toEqual([]);
  });

  it('reports a removed parameter', () => {
    const before = withQuery({ name: 'limit', in: 'query', schema: { type: 'integer' } });
    expect(changes(before, withQuery())).toEqual([`${OP}: query parameter 'limit' removed`]);
  });

  it('matches header parameters without regard to case', () => {
    const before = withQuery({ name: 'X-Tenant-Id', in: 'header', schema: { type: 'string' } });
    const after = withQuery({ name: 'x-tenant-id', in: 'header', schema: { type: 'string' } });
    expect(changes(before, after)).toEqual([]);
  });

  it('reports tighter parameter schemas', () => {
    const before = withQuery({ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 500 } });
    const after = withQuery({ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } });
    expect(changes(before, after)).toEqual([
      `${OP}: query parameter 'limit': maximum lowered from 500 to 100`,
    ]);
  });

  it('compares path parameters by their place in the template', () => {
    const after = documentWith({
      path: '/things/{thingId}',
      parameters: [
        { name: 'thingId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
    });
    expect(changes(documentWith(), after)).toEqual([
      `POST /things/{thingId}: path parameter 'thingId': format 'uuid' added`,
    ]);
  });

  it('follows $refs to components.parameters', () => {
    const before = withQuery({ $ref: '#/components/parameters/Limit' });
    before.components.parameters = { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } };
    const after = withQuery({ $ref: '#/components/parameters/Limit' });
    after.components.parameters = { Limit: { name: 'limit', in: 'query', schema: { type: 'string' } } };
    expect(changes(before, after)).toEqual([
      `${OP}: query parameter 'limit': type changed from integer to string`,
    ]);
  });
});

describe('findBreakingChanges: request bodies', () => {
  it('reports a body added as required, not an optional one', () => {
    const none = documentWith();
    expect(changes(none, requestBody({ type: 'object' }))).toEqual([`${OP}: request body added as required`]);
    expect(changes(none, requestBody({ type: 'object' }, {}, false))).toEqual([]);
  });

  it('reports a body that became required, and a removed body', () => {
    expect(changes(requestBody({ type: 'object' }, {}, false), requestBody({ type: 'object' }))).toEqual([
      `${OP}: request body became required`,
    ]);
    expect(changes(requestBody({ type: 'object' }), documentWith())).toEqual([`${OP}: request body removed`]);
  });

  it('reports a removed request media type and names non-JSON media types', () => {
    const both = documentWith({
      requestBody: {
        content: {
          'application/json': { schema: { type: 'object' } },
          'multipart/form-data': { schema: object({ file: { type: 'string', format: 'binary' } }) },
        },
      },
    });
    const jsonOnly = documentWith({
      requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
    });
    expect(changes(both, jsonOnly)).toEqual([`${OP}: request body media type 'multipart/form-data' removed`]);
    const narrowerUpload = structuredClone(both);
    narrowerUpload.paths['/things/{id}'].post.requestBody.content['multipart/form-data'].schema.required = [
      'file',
    ];
    expect(changes(both, narrowerUpload)).toEqual([
      `${OP}: request body (multipart/form-data): property 'file' became required`,
    ]);
  });

  it('reports a property added as required; an optional one is fine', () => {
    const before = requestBody(object({ name: { type: 'string' } }, ['name']));
    const required = requestBody(
      object({ name: { type: 'string' }, tier: { type: 'string' } }, ['name', 'tier']),
    );
    const optional = requestBody(object({ name: { type: 'string' }, tier: { type: 'string' } }, ['name']));
    expect(changes(before, required)).toEqual([`${OP}: request body: property 'tier' added as required`]);
    expect(changes(before, optional)).toEqual([]);
  });

  it('reports a property that became required, and one removed', () => {
    const before = requestBody(object({ name: { type: 'string' }, tier: { type: 'string' } }));
    const after = requestBody(object({ name: { type: 'string' } }, ['name']));
    expect(changes(before, after)).toEqual([
      `${OP}: request body: property 'name' became required`,
      `${OP}: request body: property 'tier' removed`,
    ]);
  });

  it('ignores read-only properties of a request (the client does not send them)', () => {
    const before = requestBody(object({ name: { type: 'string' }, id: { type: 'string', readOnly: true } }));
    const after = requestBody(object({ name: { type: 'string' } }));
    expect(changes(before, after)).toEqual([]);
  });

  it('reports narrowed and changed types, and a widened one is fine', () => {
    const as = (type: Json) => requestBody(object({ amount: type }));
    expect(changes(as({ type: 'number' }), as({ type: 'integer' }))).toEqual([
      `${OP}: request body: property 'amount' type narrowed from number to integer`,
    ]);
    expect(changes(as({ type: 'number' }), as({ type: 'string' }))).toEqual([
      `${OP}: request body: property 'amount' type changed from number to string`,
    ]);
    expect(changes(as({}), as({ type: 'object' }))).toEqual([
      `${OP}: request body: property 'amount' type narrowed from any to object`,
    ]);
    expect(changes(as({ type: 'integer' }), as({ type: 'number' }))).toEqual([]);
    expect(changes(as({ type: 'integer' }), as({}))).toEqual([]);
  });

  it('reports null no longer accepted (3.0 nullable and 3.1 type arrays)', () => {
    const as = (type: Json) => requestBody(object({ note: type }));
    expect(changes(as({ type: 'string', nullable: true }), as({ type: 'string' }))).toEqual([
      `${OP}: request body: property 'note' no longer accepts null`,
    ]);
    expect(changes(as({ type: ['string', 'null'] }), as({ type: 'string' }))).toEqual([
      `${OP}: request body: property 'note' no longer accepts null`,
    ]);
    expect(changes(as({ type: 'string' }), as({ type: 'string', nullable: true }))).toEqual([]);
  });

  it('reports enum values removed and a new enum, not enum values added', () => {
    const as = (schema: Json) => requestBody(object({ mode: schema }));
    expect(changes(as({ type: 'string', enum: ['a', 'b'] }), as({ type: 'string', enum: ['a'] }))).toEqual([
      `${OP}: request body: property 'mode' enum value "b" removed`,
    ]);
    expect(changes(as({ type: 'string' }), as({ type: 'string', enum: ['a'] }))).toEqual([
      `${OP}: request body: property 'mode' restricted to the enum ["a"]`,
    ]);
    expect(changes(as({ type: 'string', enum: ['a'] }), as({ type: 'string', enum: ['a', 'b'] }))).toEqual(
      [],
    );
  });

  it('reports every tightened constraint and no loosened one', () => {
    const as = (schema: Json) => requestBody(object({ v: schema }));
    const cases: [Json, Json, string][] = [
      [{ type: 'string' }, { type: 'string', maxLength: 10 }, 'maxLength 10 added'],
      [
        { type: 'string', maxLength: 20 },
        { type: 'string', maxLength: 10 },
        'maxLength lowered from 20 to 10',
      ],
      [{ type: 'string' }, { type: 'string', minLength: 2 }, 'minLength 2 added'],
      [{ type: 'string', minLength: 1 }, { type: 'string', minLength: 2 }, 'minLength raised from 1 to 2'],
      [{ type: 'array' }, { type: 'array', maxItems: 5 }, 'maxItems 5 added'],
      [{ type: 'array', minItems: 1 }, { type: 'array', minItems: 3 }, 'minItems raised from 1 to 3'],
      [{ type: 'object' }, { type: 'object', maxProperties: 4 }, 'maxProperties 4 added'],
      [{ type: 'object' }, { type: 'object', minProperties: 1 }, 'minProperties 1 added'],
      [{ type: 'number' }, { type: 'number', maximum: 9 }, 'maximum 9 added'],
      [{ type: 'number', maximum: 10 }, { type: 'number', maximum: 9 }, 'maximum lowered from 10 to 9'],
      [
        { type: 'number', maximum: 10 },
        { type: 'number', maximum: 10, exclusiveMaximum: true },
        'maximum lowered from 10 to 10 (exclusive)',
      ],
      [
        { type: 'number', maximum: 10 },
        { type: 'number', exclusiveMaximum: 10 },
        'maximum lowered from 10 to 10 (exclusive)',
      ],
      [{ type: 'number', minimum: 0 }, { type: 'number', minimum: 1 }, 'minimum raised from 0 to 1'],
      [{ type: 'string' }, { type: 'string', pattern: '^[a-z]+$' }, 'pattern "^[a-z]+$" added'],
      [
        { type: 'string', pattern: '^[a-z]+$' },
        { type: 'string', pattern: '^[a-c]+$' },
        'pattern changed from "^[a-z]+$" to "^[a-c]+$"',
      ],
      [{ type: 'string' }, { type: 'string', format: 'date-time' }, "format 'date-time' added"],
      [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
        "format changed from 'date' to 'date-time'",
      ],
      [{ type: 'number' }, { type: 'number', multipleOf: 5 }, 'multipleOf 5 added'],
      [{ type: 'array' }, { type: 'array', uniqueItems: true }, 'uniqueItems added'],
      [
        { type: 'object', additionalProperties: true },
        { type: 'object', additionalProperties: false },
        'no longer accepts additional properties',
      ],
    ];
    for (const [before, after, change] of cases) {
      expect(changes(as(before), as(after))).toEqual([`${OP}: request body: property 'v' ${change}`]);
      // the same change the other way loosens the request: not breaking (a pattern or format replaced by
      // another cannot be compared, so it is a break both ways)
      if (!/changed from/.test(change)) expect(changes(as(after), as(before))).toEqual([]);
    }
  });

  it('accepts a numeric format widened in a request (int32 → int64)', () => {
    const as = (format: string) => requestBody(object({ n: { type: 'integer', format } }));
    expect(changes(as('int32'), as('int64'))).toEqual([]);
    expect(changes(as('int64'), as('int32'))).toEqual([
      `${OP}: request body: property 'n' format changed from 'int64' to 'int32'`,
    ]);
  });

  it('walks nested objects, arrays and maps, naming the path', () => {
    const as = (name: Json) =>
      requestBody(
        object({
          rules: {
            type: 'array',
            items: object({ name, output: { type: 'object', additionalProperties: name } }),
          },
        }),
      );
    expect(changes(as({ type: 'string' }), as({ type: 'string', maxLength: 5 }))).toEqual([
      `${OP}: request body: property 'rules[].name' maxLength 5 added`,
      `${OP}: request body: property 'rules[].output{}' maxLength 5 added`,
    ]);
  });

  it('follows $refs and compares structure, not schema names', () => {
    const before = requestBody(
      { $ref: '#/components/schemas/ThingDto' },
      {
        ThingDto: object({ name: { type: 'string' } }),
      },
    );
    const renamed = requestBody(
      { $ref: '#/components/schemas/ThingInput' },
      {
        ThingInput: object({ name: { type: 'string' } }),
      },
    );
    const narrowed = requestBody(
      { $ref: '#/components/schemas/ThingInput' },
      {
        ThingInput: object({ name: { type: 'string' } }, ['name']),
      },
    );
    expect(changes(before, renamed)).toEqual([]);
    expect(changes(before, narrowed)).toEqual([`${OP}: request body: property 'name' became required`]);
  });

  it('merges allOf (Nest writes nullable nested classes that way)', () => {
    const schemas = { Limits: object({ max: { type: 'integer' } }) };
    const before = requestBody(
      object({ limits: { nullable: true, allOf: [{ $ref: '#/components/schemas/Limits' }] } }),
      schemas,
    );
    const after = requestBody(object({ limits: { allOf: [{ $ref: '#/components/schemas/Limits' }] } }), {
      Limits: object({ max: { type: 'integer', maximum: 10 } }),
    });
    expect(changes(before, after)).toEqual([
      `${OP}: request body: property 'limits' no longer accepts null`,
      `${OP}: request body: property 'limits.max' maximum 10 added`,
    ]);
  });

  it('terminates on recursive schemas and still reports inside them', () => {
    const tree = (maxLength?: number) => ({
      Node: object({
        label: { type: 'string', ...(maxLength ? { maxLength } : {}) },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      }),
    });
    const before = requestBody({ $ref: '#/components/schemas/Node' }, tree());
    const after = requestBody({ $ref: '#/components/schemas/Node' }, tree(3));
    expect(changes(before, after)).toEqual([`${OP}: request body: property 'label' maxLength 3 added`]);
  });

  it('reports a oneOf alternative removed from a request, not one added', () => {
    const schemas = {
      ById: object({ id: { type: 'string' } }, ['id']),
      ByName: object({ name: { type: 'string' } }, ['name']),
    };
    const both = requestBody(
      { oneOf: [{ $ref: '#/components/schemas/ById' }, { $ref: '#/components/schemas/ByName' }] },
      schemas,
    );
    const one = requestBody({ oneOf: [{ $ref: '#/components/schemas/ById' }] }, schemas);
    expect(changes(both, one)).toEqual([`${OP}: request body: alternative 'ByName' removed`]);
    expect(changes(one, both)).toEqual([]);
  });

  it('ignores descriptions and examples when comparing alternatives', () => {
    const with_ = (description: string) =>
      requestBody({
        anyOf: [
          { type: 'string', description },
          { type: 'integer', example: 3 },
        ],
      });
    expect(changes(with_('one'), with_('two'))).toEqual([]);
  });
});

describe('findBreakingChanges: responses', () => {
  const withStatus = (status: string, schema?: Json) =>
    documentWith({
      responses: {
        [status]: { description: 'ok', ...(schema ? { content: { 'application/json': { schema } } } : {}) },
      },
    });

  it('reports a removed success status (200 → 201 included)', () => {
    expect(changes(withStatus('200'), withStatus('201'))).toEqual([`${OP}: response 200 removed`]);
  });

  it('ignores error statuses coming and going', () => {
    const before = documentWith({
      responses: { '200': { description: 'ok' }, '404': { description: 'nf' } },
    });
    const after = documentWith({ responses: { '200': { description: 'ok' }, '409': { description: 'c' } } });
    expect(changes(before, after)).toEqual([]);
  });

  it('ignores changes to error bodies (new error codes are not breaking)', () => {
    const error = (codes: string[]) =>
      documentWith({
        responses: {
          '200': { description: 'ok' },
          '400': {
            description: 'bad',
            content: { 'application/json': { schema: object({ code: { type: 'string', enum: codes } }) } },
          },
        },
      });
    expect(changes(error(['A']), error(['A', 'B']))).toEqual([]);
  });

  it('reports a removed response media type', () => {
    const both = documentWith({
      responses: {
        '200': {
          description: 'ok',
          content: {
            'application/json': { schema: { type: 'object' } },
            'text/csv': { schema: { type: 'string' } },
          },
        },
      },
    });
    expect(changes(both, withStatus('200', { type: 'object' }))).toEqual([
      `${OP}: response 200 media type 'text/csv' removed`,
    ]);
  });

  it('reports a removed property and a required one that may now be absent', () => {
    const before = responseBody(object({ id: { type: 'string' }, name: { type: 'string' } }, ['id', 'name']));
    const after = responseBody(object({ id: { type: 'string' } }));
    expect(changes(before, after)).toEqual([
      `${OP}: response 200 body: property 'id' no longer required`,
      `${OP}: response 200 body: property 'name' removed`,
    ]);
  });

  it('does not report properties added, nor optional ones made required', () => {
    const before = responseBody(object({ id: { type: 'string' } }));
    const after = responseBody(
      object({ id: { type: 'string' }, extra: { type: 'number' } }, ['id', 'extra']),
    );
    expect(changes(before, after)).toEqual([]);
  });

  it('reports widened, changed and nullable types; narrowed ones are fine', () => {
    const as = (type: Json) => responseBody(object({ n: type }, ['n']));
    expect(changes(as({ type: 'integer' }), as({ type: 'number' }))).toEqual([
      `${OP}: response 200 body: property 'n' type widened from integer to number`,
    ]);
    expect(changes(as({ type: 'integer' }), as({ type: 'string' }))).toEqual([
      `${OP}: response 200 body: property 'n' type changed from integer to string`,
    ]);
    expect(changes(as({ type: 'integer' }), as({ type: 'integer', nullable: true }))).toEqual([
      `${OP}: response 200 body: property 'n' became nullable`,
    ]);
    expect(changes(as({ type: 'object' }), as({}))).toEqual([
      `${OP}: response 200 body: property 'n' type widened from object to any`,
    ]);
    expect(changes(as({ type: 'number' }), as({ type: 'integer' }))).toEqual([]);
    expect(changes(as({ type: 'integer', nullable: true }), as({ type: 'integer' }))).toEqual([]);
  });

  it('reports a response body that lost its schema', () => {
    expect(changes(withStatus('200', { type: 'object' }), withStatus('200', undefined))).toEqual([
      `${OP}: response 200 media type 'application/json' removed`,
    ]);
    const schemaless = documentWith({
      responses: { '200': { description: 'ok', content: { 'application/json': {} } } },
    });
    expect(changes(withStatus('200', { type: 'object' }), schemaless)).toEqual([
      `${OP}: response 200 body: type widened from object to any`,
    ]);
  });

  it('reports enum values added and an enum dropped; values removed are fine', () => {
    const as = (schema: Json) => responseBody(object({ status: schema }, ['status']));
    expect(
      changes(as({ type: 'string', enum: ['ok'] }), as({ type: 'string', enum: ['ok', 'late'] })),
    ).toEqual([`${OP}: response 200 body: property 'status' enum value "late" added`]);
    expect(changes(as({ type: 'string', enum: ['ok'] }), as({ type: 'string' }))).toEqual([
      `${OP}: response 200 body: property 'status' no longer restricted to an enum`,
    ]);
    expect(
      changes(as({ type: 'string', enum: ['ok', 'late'] }), as({ type: 'string', enum: ['ok'] })),
    ).toEqual([]);
  });

  it('reports a format removed or changed in a response, not one added', () => {
    const as = (format?: string) =>
      responseBody(object({ at: { type: 'string', ...(format ? { format } : {}) } }));
    expect(changes(as('date-time'), as())).toEqual([
      `${OP}: response 200 body: property 'at' format 'date-time' removed`,
    ]);
    expect(changes(as('date-time'), as('date'))).toEqual([
      `${OP}: response 200 body: property 'at' format changed from 'date-time' to 'date'`,
    ]);
    expect(changes(as(), as('date-time'))).toEqual([]);
  });

  it('does not hold responses to request constraints', () => {
    const as = (schema: Json) => responseBody(object({ name: schema }));
    expect(changes(as({ type: 'string' }), as({ type: 'string', maxLength: 3, pattern: '^a' }))).toEqual([]);
  });

  it('walks arrays at the root of a response', () => {
    const as = (required: string[]) =>
      responseBody({ type: 'array', items: object({ id: { type: 'string' } }, required) });
    expect(changes(as(['id']), as([]))).toEqual([
      `${OP}: response 200 body: property '[].id' no longer required`,
    ]);
  });

  it('ignores write-only properties of a response', () => {
    const before = responseBody(
      object({ id: { type: 'string' }, secret: { type: 'string', writeOnly: true } }),
    );
    const after = responseBody(object({ id: { type: 'string' } }));
    expect(changes(before, after)).toEqual([]);
  });

  it('reports a oneOf alternative added to a response, not one removed', () => {
    const one = responseBody({ oneOf: [{ type: 'string' }] });
    const two = responseBody({ oneOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(changes(one, two)).toEqual([`${OP}: response 200 body: alternative integer added`]);
    expect(changes(two, one)).toEqual([]);
  });

  it('does not report alternatives where the baseline answered any value', () => {
    const any = responseBody(object({ result: { description: 'any JSON value' } }));
    const typed = responseBody(object({ result: { anyOf: [{ type: 'string' }, { type: 'object' }] } }));
    expect(changes(any, typed)).toEqual([]);
    expect(changes(typed, any)).toEqual([
      `${OP}: response 200 body: property 'result' alternative any added`,
    ]);
  });

  it('reports a type change at the root without describing the inside of unrelated types', () => {
    const before = responseBody(object({ id: { type: 'string' } }, ['id']));
    const after = responseBody({ type: 'array', items: { type: 'string' } });
    expect(changes(before, after)).toEqual([`${OP}: response 200 body: type changed from object to array`]);
  });
});

describe('findBreakingChanges: output', () => {
  it('lists changes in the baseline order of operations with the current path', () => {
    const baseline = documentWith();
    baseline.paths['/a'] = { get: { operationId: 'a', responses: { '200': { description: 'ok' } } } };
    const current = documentWith({
      operationId: 'renamed',
      path: '/things/{thing}',
      parameters: [{ name: 'thing', in: 'path', required: true, schema: { type: 'string' } }],
    });
    expect(findBreakingChanges(baseline, current)).toEqual([
      { operation: 'POST /things/{thing}', change: "operationId changed from 'thingsUpdate' to 'renamed'" },
      { operation: 'GET /a', change: 'operation removed' },
    ]);
  });

  it('fails loudly on a $ref it cannot follow', () => {
    const broken = requestBody({ $ref: '#/components/schemas/Missing' });
    expect(() => findBreakingChanges(broken, broken)).toThrow('unresolved $ref #/components/schemas/Missing');
  });
});
