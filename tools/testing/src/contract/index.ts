export { OpenApiContract, type MatchedOperation } from './openapi-contract';
export {
  checkedResponses,
  installResponseCheck,
  takeContractViolations,
  withoutContractCheck,
} from './response-check';
