import { AppError } from '@arbiter/platform';

/** A failure to prepare an execution (compile, dependency), named by a code. */
export class ExecutionProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ExecutionProblem';
  }
}

export const ExecutionErrors = {
  workflowNotFound: (workflowName: string) =>
    AppError.notFound('WORKFLOW_NOT_FOUND', `Workflow '${workflowName}' has no rule set`),
  noActiveVersion: (workflowName: string) =>
    AppError.notFound('NO_ACTIVE_VERSION', `Workflow '${workflowName}' has no active version`),
  versionNotFound: (workflowName: string, version: number) =>
    AppError.notFound('VERSION_NOT_FOUND', `Version ${version} of workflow '${workflowName}' does not exist`),
  notExecutable: (workflowName: string, version: number, problem: ExecutionProblem | Error) =>
    new AppError(
      // a dependency that does not answer, or refuses our credentials, is ours to fix (503), not the rule set
      problem instanceof ExecutionProblem && /_(UNAVAILABLE|UNAUTHORIZED)$/.test(problem.code) ? 503 : 422,
      problem instanceof ExecutionProblem ? problem.code : 'RULESET_NOT_EXECUTABLE',
      `Version ${version} of workflow '${workflowName}' cannot run: ${problem.message}`,
    ),
};
