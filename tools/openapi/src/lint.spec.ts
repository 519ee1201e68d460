import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDOCLY_CONFIG_PATH } from './documents';
import { formatProblem, lintDocument } from './lint';

/** A small document the recommended rules accept; each test breaks one thing. */
const clean = () => ({
  openapi: '3.0.0',
  info: {
    title: 'probe',
    version: '1.0.0',
    description: 'probe',
    license: { name: 'Proprietary', url: 'https://example.com/license' },
  },
  servers: [{ url: 'http://localhost:3000' }],
  security: [],
  tags: [{ name: 'things', description: 'things' }],
  paths: {
    '/things': {
      get: {
        operationId: 'thingsList',
        summary: 'List things',
        description: 'Every thing.',
        tags: ['things'],
        responses: {
          '200': {
            description: 'the things',
            content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
          },
          '400': { description: 'bad', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
});

describe('lintDocument (redocly lint with redocly.yaml)', () => {
  let directory: string;
  beforeAll(() => (directory = mkdtempSync(join(tmpdir(), 'lint-'))));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const lint = (document: unknown) => {
    const path = join(directory, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(document, null, 2));
    return lintDocument(path, REDOCLY_CONFIG_PATH);
  };

  it('reports no error for a document the recommended rules accept', async () => {
    const errors = (await lint(clean())).filter((p) => p.severity === 'error');
    expect(errors.map(formatProblem)).toEqual([]);
  }, 30_000);

  it('reports an operation without a summary as an error, with its rule and location', async () => {
    const document: any = clean();
    delete document.paths['/things'].get.summary;
    const problems = await lint(document);
    expect(problems).toContainEqual({
      ruleId: 'operation-summary',
      severity: 'error',
      message: expect.stringContaining('summary'),
      pointer: '#/paths/~1things/get/summary',
    });
  }, 30_000);
});
