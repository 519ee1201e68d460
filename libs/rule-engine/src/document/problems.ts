/** One validation problem: a JSON path into the submitted document and what is wrong there. */
export interface Problem {
  path: string;
  message: string;
}

/** `nodes[3].edges[0].target: unknown node 'x'`. */
export function formatProblem(problem: Problem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}
