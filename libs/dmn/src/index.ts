/** @arbiter/dmn — DMN 1.1–1.5 model reading and DRG evaluation on top of @arbiter/feel. */
export * from './model';
export { parseXml, child, children, refuseDocumentType, XmlDocumentTypeRefused } from './xml';
export type { XmlNode } from './xml';
export { DmnEvaluator, Run, coerceBuiltin } from './evaluator';
export type { DmnEvaluatorOptions, DecisionTableEvaluator, EvaluationOutcome } from './evaluator';
export { evaluateDecisionTable } from './decision-table';
