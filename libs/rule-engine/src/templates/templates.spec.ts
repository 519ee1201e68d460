import { Liquid } from 'liquidjs';
import { TemplateError, compileTemplate } from './index';

/** The reference: a plain liquidjs engine (the fast path must render exactly like it). */
const reference = new Liquid({ ownPropertyOnly: true });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return (error as TemplateError).code;
  }
  return undefined;
}

describe('compileTemplate', () => {
  it('renders outputs with dotted paths and array indexes', () => {
    const render = compileTemplate('Dear {{ applicant.name }}, item {{ items[1].sku }}: {{ total }}.');
    expect(render({ applicant: { name: 'Ada' }, items: [{ sku: 'a' }, { sku: 'b' }], total: 12.5 })).toBe(
      'Dear Ada, item b: 12.5.',
    );
  });

  it('renders missing names, null and inherited properties as empty text', () => {
    const render = compileTemplate(
      '[{{ missing }}|{{ a.b.c }}|{{ n }}|{{ o.constructor }}|{{ o.toString }}]',
    );
    expect(render({ n: null, o: {} })).toBe('[||||]');
  });

  it('renders tags and filters through liquidjs', () => {
    const render = compileTemplate(
      '{% if approved %}Approved{% else %}Declined{% endif %}: {{ name | upcase }} {% for x in xs %}{{ x }};{% endfor %}',
    );
    expect(render({ approved: true, name: 'ada', xs: [1, 2] })).toBe('Approved: ADA 1;2;');
    expect(render({ approved: false, name: 'bo', xs: [] })).toBe('Declined: BO ');
  });

  it('renders exactly like liquidjs for every value shape (fast path and fallback)', () => {
    const templates = [
      'v={{ v }}',
      '{{ v }}{{v}}{{  v  }}',
      'x {{ a.b }} y {{ list[0] }} z {{ s.length }} w {{ s[1] }}',
      '}} stray close {{ v }}',
      'no outputs at all',
      '',
      '{{ a.b }}-{{ list }}',
    ];
    const values: unknown[] = [
      0,
      -1.5,
      1e21,
      'text',
      '',
      true,
      false,
      null,
      [1, 'a', null, [2, [3]]],
      { b: 'nested' },
      { b: { deep: 1 } },
      [{ x: 1 }],
    ];
    for (const source of templates) {
      const render = compileTemplate(source);
      const parsed = reference.parse(source);
      for (const v of values) {
        const scope = { v, a: { b: v }, list: [v, v], s: typeof v === 'string' ? v : 'abc' };
        expect(render(scope)).toBe(reference.renderSync(parsed, scope));
      }
    }
  });

  it('treats Liquid literals as literals, not scope names', () => {
    const render = compileTemplate('{{ true }}|{{ nil }}|{{ empty }}');
    expect(render({ true: 'no', nil: 'no', empty: 'no' })).toBe(
      reference.parseAndRenderSync('{{ true }}|{{ nil }}|{{ empty }}', {}),
    );
  });

  it('reads size, first and last the Liquid way', () => {
    const render = compileTemplate('{{ xs.size }} {{ xs.first }} {{ xs.last }} {{ s.size }}');
    expect(render({ xs: [4, 5, 6], s: 'abcd' })).toBe('3 4 6 4');
  });

  it('refuses an unknown filter at compile time', () => {
    expect(codeOf(() => compileTemplate('{{ name | shout }}'))).toBe('TEMPLATE_SYNTAX');
  });

  it('refuses unbalanced tags at compile time', () => {
    expect(codeOf(() => compileTemplate('{% if a %}open'))).toBe('TEMPLATE_SYNTAX');
    expect(codeOf(() => compileTemplate('{{ a '))).toBe('TEMPLATE_SYNTAX');
  });

  it.each(['include', 'render', 'layout'])('refuses the %s tag (no file access)', (tag) => {
    expect(codeOf(() => compileTemplate(`{% ${tag} 'etc/passwd' %}`))).toBe('TEMPLATE_SYNTAX');
  });

  it('refuses a source longer than the parse limit', () => {
    expect(codeOf(() => compileTemplate('x'.repeat(101), { limits: { maxSourceLength: 100 } }))).toBe(
      'TEMPLATE_LIMIT',
    );
    expect(codeOf(() => compileTemplate('x'.repeat(100_001)))).toBe('TEMPLATE_LIMIT');
  });

  it('stops a render that runs past the time limit', () => {
    const render = compileTemplate(
      '{% for i in (1..3000) %}{% for j in (1..3000) %}{{ j }}{% endfor %}{% endfor %}',
      { limits: { renderTimeMs: 20, maxOutputLength: 1e9 } },
    );
    const started = Date.now();
    expect(codeOf(() => render({}))).toBe('TEMPLATE_LIMIT');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('stops a huge range with the default limits', () => {
    const render = compileTemplate('{% for i in (1..100000000) %}{% endfor %}');
    const started = Date.now();
    expect(codeOf(() => render({}))).toBe('TEMPLATE_LIMIT');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('stops a render that allocates past the memory limit', () => {
    const render = compileTemplate('{{ s | append: s | append: s | append: s }}', {
      limits: { memoryBytes: 1000 },
    });
    expect(render({ s: 'x'.repeat(10) })).toBe('x'.repeat(40));
    expect(codeOf(() => render({ s: 'x'.repeat(1000) }))).toBe('TEMPLATE_LIMIT');
  });

  it('refuses an output longer than the output limit', () => {
    const render = compileTemplate('{{ s }}{{ s }}', { limits: { maxOutputLength: 10 } });
    expect(render({ s: 'abcde' })).toBe('abcdeabcde');
    expect(codeOf(() => render({ s: 'abcdef' }))).toBe('TEMPLATE_LIMIT');
  });

  it('reports a failing filter at render time as TEMPLATE_RENDER', () => {
    const render = compileTemplate('{{ s | base64_decode }}');
    expect(render({ s: 'aGk=' })).toBe('hi');
    expect(codeOf(() => render({ s: '%%%' }))).toBe('TEMPLATE_RENDER');
  });
});
