/** FEEL abstract syntax tree. */
import type { Decimal } from './values';

export type TypeNode =
  | { kind: 'named'; name: string }
  | { kind: 'list'; element: TypeNode }
  | { kind: 'range'; element: TypeNode }
  | { kind: 'context'; entries: { name: string; type: TypeNode }[] }
  | { kind: 'function'; params: TypeNode[]; result: TypeNode };

export interface Iteration {
  name: string;
  domain: Node;
  /** `for i in 1..10`: end of an unbracketed range */
  end?: Node;
}

export type Node = { pos: number } & (
  | { t: 'num'; value: number | Decimal }
  | { t: 'str'; value: string }
  | { t: 'bool'; value: boolean }
  | { t: 'null' }
  | { t: 'at'; value: string }
  | { t: 'name'; name: string }
  | { t: 'qmark' }
  | { t: 'path'; target: Node; name: string }
  | { t: 'filter'; target: Node; cond: Node }
  | { t: 'call'; fn: Node; args: Node[]; named?: { name: string; value: Node }[] }
  | { t: 'neg'; arg: Node }
  | { t: 'arith'; op: '+' | '-' | '*' | '/' | '**'; left: Node; right: Node }
  | { t: 'cmp'; op: '=' | '!=' | '<' | '<=' | '>' | '>='; left: Node; right: Node }
  | { t: 'and'; left: Node; right: Node }
  | { t: 'or'; left: Node; right: Node }
  | { t: 'between'; value: Node; low: Node; high: Node }
  | { t: 'in'; value: Node; tests: Node[] }
  | { t: 'instance'; value: Node; type: TypeNode }
  | { t: 'if'; cond: Node; then: Node; else: Node }
  | { t: 'for'; iters: Iteration[]; body: Node }
  | { t: 'quant'; every: boolean; iters: Iteration[]; cond: Node }
  | { t: 'list'; items: Node[] }
  | { t: 'context'; entries: { key: string; value: Node }[] }
  | { t: 'range'; startIncl: boolean; start: Node | null; end: Node | null; endIncl: boolean }
  | { t: 'fndef'; params: { name: string; type?: TypeNode }[]; body: Node; external: boolean }
  // unary tests
  | { t: 'utest'; op: '<' | '<=' | '>' | '>=' | '=' | '!='; arg: Node }
  | { t: 'uany' }
  | { t: 'unot'; tests: Node[] }
  | { t: 'ulist'; tests: Node[] }
);

export type NodeOf<T extends Node['t']> = Extract<Node, { t: T }>;
