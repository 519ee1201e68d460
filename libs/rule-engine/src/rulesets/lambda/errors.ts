/** Line and 1-based column of a 0-based offset in `source`. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), source.length);
  for (let i = 0; i < end; i++)
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: end - lineStart + 1 };
}

/** `at column 5`, or `at line 2, column 5` when the source spans several lines. */
export function describePosition(source: string, offset: number): string {
  const { line, column } = positionOf(source, offset);
  return source.includes('\n') ? `at line ${line}, column ${column}` : `at column ${column}`;
}

/**
 * A C#-style lambda expression that cannot be compiled. `message` names the construct and its position
 * (`unsupported construct 'new' at column 5`, `unknown method 'Foo' at column 12`); `reason` is the
 * message without the position.
 */
export class LambdaSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(
    readonly reason: string,
    readonly source: string,
    readonly offset: number,
  ) {
    super(`${reason} ${describePosition(source, offset)}`);
    this.name = 'LambdaSyntaxError';
    const { line, column } = positionOf(source, offset);
    this.line = line;
    this.column = column;
  }
}

/**
 * A lambda expression failed while running (the C# exception it stands for: null reference, operator
 * on the wrong types, division by zero, unknown identifier, …). The message names the position.
 */
export class LambdaRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LambdaRuntimeError';
  }
}
