import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily, ToolErrorCodes } from '@arbiter/platform';
import { DecisionTableErrors } from './decision-tables';

/**
 * Every code the decisions service answers with, in its `{ error, code, traceId }` body: the family of the
 * routes that name no narrower one (the tool protocol's tools reach every feature; health).
 */
export const DecisionsErrorFamily = defineErrorFamily({
  name: 'DecisionsError',
  envelope: 'trace',
  description: 'A decisions-service failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [AuthErrorCodes, ToolErrorCodes, DecisionTableErrors],
});

/** The tags of the decisions document, described. */
export const DecisionsOpenApiTags = [
  {
    name: 'decision tables',
    description:
      'Decision tables (spec 2): input conditions (FEEL unary tests) and outputs under a hit policy, versioned on ' +
      'every update; evaluation, versions and diffs, validation and analysis, audit trail. Tenant-scoped: ' +
      "another tenant's table is a 404.",
  },
  {
    name: 'decision tables: FEEL',
    description:
      "FEEL helpers of the table editor, with a table's names in scope: validate, evaluate, autocomplete.",
  },
  {
    name: 'decision tables: import/export',
    description: 'Tables from and to JSON, XLSX, DMN 1.3 XML and CSV.',
  },
  {
    name: 'tool protocol (MCP)',
    description:
      'The `svc_decision_table_*` tools (list, get, get_version, get_versions, diff_versions, evaluate) over MCP ' +
      'Streamable HTTP and as the plain call `{ method, args }`, with the same authentication, tenant scoping and ' +
      'error codes as the HTTP routes.',
  },
  { name: 'health', description: 'Readiness and liveness probes (public).' },
];
