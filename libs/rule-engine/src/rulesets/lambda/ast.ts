/**
 * AST of the C#-style lambda expressions Microsoft RulesEngine stores (System.Linq.Dynamic.Core syntax).
 * Every node carries `pos`, the 0-based offset runtime errors name: the first character for literals,
 * identifiers, unary operators and static members; the member name for member and call nodes; the
 * operator for binary, logical, `??` and `?:` nodes; the `[` of an index.
 */
export type LambdaNode =
  | { t: 'literal'; pos: number; value: string | number | boolean | null }
  | { t: 'identifier'; pos: number; name: string }
  /** `target.name`; `nullSafe` for `?.` (and every link after it in the same chain) */
  | { t: 'member'; pos: number; target: LambdaNode; name: string; nullSafe: boolean }
  | { t: 'index'; pos: number; target: LambdaNode; index: LambdaNode; nullSafe: boolean }
  /** `target.Method(args)`: `method` is one of the supported instance methods (see members.ts) */
  | { t: 'call'; pos: number; target: LambdaNode; method: string; args: LambdaNode[]; nullSafe: boolean }
  /** `Type.Member(args)` / `Type.Member`: `string.IsNullOrEmpty`, `Convert.ToInt32`, `DateTime.Now`, … */
  | { t: 'static'; pos: number; type: string; member: string; args: LambdaNode[] | null }
  | { t: 'unary'; pos: number; op: '!' | '-' | '+'; arg: LambdaNode }
  | {
      t: 'binary';
      pos: number;
      op: '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';
      left: LambdaNode;
      right: LambdaNode;
    }
  | { t: 'logical'; pos: number; op: '&&' | '||'; left: LambdaNode; right: LambdaNode }
  | { t: 'coalesce'; pos: number; left: LambdaNode; right: LambdaNode }
  | { t: 'conditional'; pos: number; test: LambdaNode; then: LambdaNode; else: LambdaNode }
  /** `x => body`, only as the argument of a LINQ method (`Any`, `All`, `Where`, `Count`, …) */
  | { t: 'lambda'; pos: number; param: string; body: LambdaNode };

export type LambdaNodeType = LambdaNode['t'];
