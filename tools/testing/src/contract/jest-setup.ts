/**
 * Jest `setupFilesAfterEach` of every workspace (jest.preset.js): each response a test receives from one
 * of the services is checked against the service's OpenAPI document, and a test that received one the
 * document does not allow fails, naming the operation, the status and what differed.
 */
import { installResponseCheck, takeContractViolations } from './response-check';

installResponseCheck();

afterEach(async () => {
  const violations = await takeContractViolations();
  if (violations.length > 0) {
    throw new Error(
      `The response does not match the OpenAPI document:\n  ${[...new Set(violations)].join('\n  ')}`,
    );
  }
});

afterAll(async () => {
  const violations = await takeContractViolations();
  if (violations.length > 0) {
    throw new Error(
      `A response after the last test does not match the OpenAPI document:\n  ${[...new Set(violations)].join('\n  ')}`,
    );
  }
});
