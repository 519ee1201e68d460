/**
 * @arbiter/feel — FEEL (DMN 1.3–1.5) for Arbiter.
 *
 * Pipeline: lexer -> parser (scope-aware names) -> AST -> closure compiler. Compile once, evaluate many.
 * This file only names the public API; each part lives in the module named after it.
 */
export * from './values';
export type { Node, TypeNode } from './ast';
export { FeelSyntaxError } from './lexer';
export { builtins, builtinSignatures } from './builtins';
export { isInstanceOf, parseAtLiteral, normalizeTypeName } from './ops';
export { parseDate, parseTime, parseDateTime, parseDuration } from './temporal';
export { Scope } from './scope';
export type { CompileOptions } from './compiler';
export {
  runEvaluation,
  warn,
  STEP_BUDGET,
  EvaluationAborted,
  EvaluationContext,
  currentEvaluation,
  enter as enterEvaluation,
  leave as leaveEvaluation,
  type AbortReason,
  type EvaluationLimits,
} from './evaluation-context';
export { parse, parseTypeExpression, type CompileResult, type FeelCompileOptions } from './parse';
export { parseExpression as parseExpressionAst, parseUnaryTests as parseUnaryTestsAst } from './parser';
export {
  compileExpression,
  tryCompileExpression,
  evaluate,
  type CompiledExpression,
  type EvaluationResult,
} from './compiled-expression';
export { compileUnaryTests, tryCompileUnaryTests, type CompiledUnaryTests } from './compiled-unary-tests';
export { validate } from './validate';
export { suggest, type Suggestion } from './suggest';
export { toJs, fromJs, formatValue, type ToJsOptions } from './host-values';
export { callFeelFunction, callFeelFunctionNamed } from './function-calls';
export { externalJava as externalJavaFunction } from './java-functions';
