/**
 * C#-style lambda expressions as Microsoft RulesEngine stores them (System.Linq.Dynamic.Core syntax):
 * our own lexer, recursive-descent parser and closure compiler (no eval, no `new Function`).
 */
export type { LambdaNode, LambdaNodeType } from './ast';
export { LambdaSyntaxError, LambdaRuntimeError } from './errors';
export { parseLambda } from './parser';
export type { LambdaParseResult } from './parser';
export { compileLambda, compileLambdaAst, FailedParameter } from './compiler';
export type { CompiledLambda, LambdaScope } from './compiler';
