import { FeelSyntaxError, tokenize } from './lexer';

describe('lexer', () => {
  it('splits numbers, strings, names and operators with positions', () => {
    const t = tokenize('a + 1.5 * "x\\ny" <= .5');
    expect(t.map((x) => x.type)).toEqual(['name', 'op', 'num', 'op', 'str', 'op', 'num', 'eof']);
    expect(t[4].value).toBe('x\ny');
    expect(t[2]).toMatchObject({ text: '1.5', line: 1, column: 5 });
  });
  it('tracks lines and columns across newlines', () => {
    const t = tokenize('a\n  + b');
    expect(t[1]).toMatchObject({ text: '+', line: 2, column: 3 });
  });
  it('skips line and block comments', () => {
    expect(tokenize('1 // c\n + /* x \n y */ 2').map((x) => x.text)).toEqual(['1', '+', '2', '']);
  });
  it('decodes unicode escapes', () => {
    expect(tokenize('"\\u0041\\U01F600"')[0].value).toBe('A😀');
  });
  it('reports unterminated strings and comments with position', () => {
    expect(() => tokenize('1 + "abc')).toThrow(FeelSyntaxError);
    try {
      tokenize('x\n  "abc');
    } catch (e) {
      expect(e).toBeInstanceOf(FeelSyntaxError);
      expect((e as FeelSyntaxError).line).toBe(2);
      expect((e as FeelSyntaxError).column).toBe(3);
    }
    expect(() => tokenize('/* never closed')).toThrow(/Unterminated comment/);
  });
  it('recognises two-character operators', () => {
    expect(
      tokenize('a..b ** c != d -> e')
        .filter((x) => x.type === 'op')
        .map((x) => x.text),
    ).toEqual(['..', '**', '!=', '->']);
  });
  it('keeps unknown characters as other tokens', () => {
    expect(tokenize("a's")[1]).toMatchObject({ type: 'other', text: "'" });
  });
});
