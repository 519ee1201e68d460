import {
  RULE_CONTRACT_DATA_TYPES,
  type RuleContract,
  type RuleContractDataType,
  type RuleContractField,
} from '@arbiter/rule-engine';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { INSTANT, nullableObjectOf } from '../../shared';
import type { ApiRoute } from '../application/api-routes';
import type {
  ContractResolution,
  FlowContractView as FlowContract,
  SourceContractView as SourceContract,
} from '../application/contracts.service';
import type { CatalogSource } from '../application/rule-catalog';
import type { CatalogGraph, CatalogGraphEdge, CatalogGraphNode, EndpointBinding } from '../domain/bindings';
import type { RuleCatalogGroup, RuleCatalogItem } from '../domain/catalog-item';
import { CONTRACT_SOURCE_TYPES, type ContractSourceType } from '../domain/contract-source';
import type { NodeAuthoringContract, NodeContract, NodeOutputSource } from '../domain/flow-contracts';

const CONTRACT_RESOLUTIONS: ContractResolution[] = ['manifest', 'composition', 'stored-table', 'static'];
const NODE_OUTPUT_SOURCES: NodeOutputSource[] = ['manifest', 'declared', 'derived', 'none'];

// ------------------------------------------------------------------------------------------ contracts

/** One field of a contract: a dotted fact path and its data type. */
export class ContractFieldView implements RuleContractField {
  @ApiProperty({ description: 'Dotted fact path.', example: 'applicant.creditScore' })
  path!: string;

  @ApiProperty({ enum: [...RULE_CONTRACT_DATA_TYPES], example: 'number' })
  dataType!: RuleContractDataType;
}

/** A contract descriptor (spec 1): `contractName` and `fields`. */
export class ContractView implements RuleContract {
  @ApiProperty({ example: 'CREDIT_SCORE.input' })
  contractName!: string;

  @ApiProperty({ type: ContractFieldView, isArray: true })
  fields!: ContractFieldView[];
}

/** The workflow and version a contract was composed from. */
export class ComposedFromView {
  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 4 })
  version!: number;
}

/** The facts one node of a flow produces. */
export class NodeContractView implements NodeContract {
  @ApiProperty({ example: 'score' })
  nodeId!: string;

  @ApiProperty({ description: 'Node kind.', example: 'condition' })
  kind!: string;

  @ApiPropertyOptional({ example: 'Credit score' })
  name?: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'Rule code of the node, if any.' })
  ruleCode!: string | null;

  @ApiProperty({
    enum: NODE_OUTPUT_SOURCES,
    description:
      "Where the outputs came from: the rule's manifest, the node's declared `outputs`, its configuration, or nowhere.",
  })
  resolvedFrom!: NodeOutputSource;

  @ApiProperty({ type: ContractView, description: 'Facts the node produces (structural fields included).' })
  outputs!: ContractView;
}

/** Contract metadata of a rule source. */
export class SourceContractView implements SourceContract {
  @ApiProperty({ enum: [...CONTRACT_SOURCE_TYPES], description: '`workflow` is answered as `flow`.' })
  sourceType!: ContractSourceType;

  @ApiProperty({ example: 'CREDIT_SCORE' })
  sourceCode!: string;

  @ApiProperty({
    enum: CONTRACT_RESOLUTIONS,
    description:
      'Which source resolved it: a manifest, composition across a stored workflow, a decision table stored ' +
      'in the decisions service, or the static fallback.',
  })
  resolvedFrom!: ContractResolution;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The manifest source (resolvedFrom `manifest`).',
  })
  sourceKey!: string | null;

  @ApiProperty({ ...nullableObjectOf(ComposedFromView), description: 'resolvedFrom `composition`.' })
  composedFrom!: ComposedFromView | null;

  @ApiProperty({ type: ContractView })
  request!: ContractView;

  @ApiProperty({ type: ContractView })
  response!: ContractView;

  @ApiPropertyOptional({ type: NodeContractView, isArray: true, description: 'Flows only: per node.' })
  nodes?: NodeContractView[];
}

/** Contract metadata of a flow. */
export class FlowContractView implements FlowContract {
  @ApiProperty({ example: 'loan-approval' })
  flowCode!: string;

  @ApiProperty({ enum: CONTRACT_RESOLUTIONS })
  resolvedFrom!: ContractResolution;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The manifest source (resolvedFrom `manifest`).',
  })
  sourceKey!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The stored version composed from (resolvedFrom `composition`).',
  })
  version!: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: "That version's status." })
  versionStatus!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: "That version's rule set shape." })
  shape!: string | null;

  @ApiProperty({ type: ContractView, description: 'The flow input.' })
  request!: ContractView;

  @ApiProperty({ type: ContractView, description: 'Every fact the flow produces.' })
  response!: ContractView;

  @ApiProperty({ type: NodeContractView, isArray: true })
  nodes!: NodeContractView[];
}

/** The node authoring contract (spec 1), with the version and shape it was composed from. */
export class NodeAuthoringContractView implements NodeAuthoringContract {
  @ApiProperty({ example: 'loan-approval' })
  flowCode!: string;

  @ApiProperty({ example: 'score' })
  nodeId!: string;

  @ApiProperty({ type: 'string', nullable: true })
  ruleCode!: string | null;

  @ApiProperty({ type: ContractView, description: 'The flow input plus the facts of the upstream nodes.' })
  requestScope!: ContractView;

  @ApiProperty({
    type: ContractView,
    description: 'Only the facts the node produces, without structural result fields.',
  })
  responseDelta!: ContractView;

  @ApiProperty({ type: 'string', isArray: true, description: 'Nodes whose facts are in the request scope.' })
  upstreamNodeIds!: string[];

  @ApiProperty({ type: 'integer', description: 'The version composed from (active, else latest).' })
  version!: number;

  @ApiProperty({ example: 'flow-graph' })
  shape!: string;
}

// --------------------------------------------------------------------------------------- rule catalog

/** A rule catalog item (spec 1) plus `category`, `hidden` and `description`. */
export class RuleCatalogItemView implements RuleCatalogItem {
  @ApiProperty({ example: 'CREDIT_SCORE' })
  code!: string;

  @ApiProperty({ example: 'Credit score check' })
  displayName!: string;

  @ApiProperty({ example: 'Credit' })
  category!: string;

  @ApiProperty({ type: 'string', isArray: true, example: ['credit', 'risk'] })
  tags!: string[];

  @ApiProperty({ description: 'Hidden items are listed only with `includeHidden=true`.' })
  hidden!: boolean;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({ description: 'The manifest source that produced it.', example: 'built-in' })
  sourceKey!: string;

  @ApiProperty({ type: ContractView })
  inputSchema!: ContractView;

  @ApiProperty({ type: ContractView })
  outputSchema!: ContractView;
}

export class RuleCatalogGroupView implements RuleCatalogGroup {
  @ApiProperty({ example: 'Credit' })
  category!: string;

  @ApiProperty({ type: RuleCatalogItemView, isArray: true, description: 'Sorted by code.' })
  items!: RuleCatalogItemView[];
}

export class CatalogSourceView implements CatalogSource {
  @ApiProperty({ example: 'built-in' })
  sourceKey!: string;

  @ApiProperty({ description: '`built-in`, or the manifest file it was read from.', example: 'built-in' })
  origin!: string;

  @ApiProperty({ description: "The manifest's generation time, as it states it." })
  generatedAt!: string;

  @ApiProperty({ type: 'integer', description: 'Rules it defines.' })
  rules!: number;
}

export class CatalogSourcesView {
  @ApiProperty({ type: CatalogSourceView, isArray: true })
  sources!: CatalogSourceView[];
}

// ----------------------------------------------------------------------------------------- ui catalog

export class ApiRouteView implements ApiRoute {
  @ApiProperty({ example: 'POST' })
  method!: string;

  @ApiProperty({ description: 'OpenAPI-style template.', example: '/api/v1/canary/{rolloutId}/promote' })
  path!: string;

  @ApiProperty({ type: 'string', nullable: true })
  summary!: string | null;

  @ApiProperty({ type: 'string', isArray: true })
  tags!: string[];

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Policies the route requires (`cp.viewer`, …); `public` for public routes.',
  })
  policies!: string[];
}

export class ApiCatalogView {
  @ApiProperty({ type: ApiRouteView, isArray: true })
  apis!: ApiRouteView[];

  @ApiProperty({ type: 'integer' })
  total!: number;
}

/** Which workflow an execute endpoint runs, and what that workflow uses. */
export class EndpointBindingView implements EndpointBinding {
  @ApiProperty({ enum: ['POST'] })
  method!: 'POST';

  @ApiProperty({ example: '/api/v1/rule-engine/execute/loan-approval' })
  path!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 4 })
  activeVersion!: number;

  @ApiProperty({ example: 'flow-graph' })
  shape!: string;

  @ApiProperty({ type: 'string', isArray: true })
  ruleCodes!: string[];

  @ApiProperty({ type: 'string', isArray: true })
  decisionTables!: string[];

  @ApiProperty({ type: 'string', isArray: true })
  subFlows!: string[];
}

export class EndpointBindingsView {
  @ApiProperty()
  tenantId!: string;

  @ApiProperty(INSTANT)
  generatedAt!: string;

  @ApiProperty({ example: '/api/v1/rule-engine/execute/{workflowName}' })
  pathTemplate!: string;

  @ApiProperty({ type: EndpointBindingView, isArray: true })
  bindings!: EndpointBindingView[];

  @ApiProperty({ type: 'integer' })
  total!: number;
}

export class CatalogGraphNodeView implements CatalogGraphNode {
  @ApiProperty({ description: '`api:POST /api/v1/…`, `workflow:<name>`, `rule:<code>`, `table:<name>`.' })
  id!: string;

  @ApiProperty({ enum: ['api', 'workflow', 'rule', 'table'] })
  type!: CatalogGraphNode['type'];

  @ApiProperty()
  label!: string;
}

export class CatalogGraphEdgeView implements CatalogGraphEdge {
  @ApiProperty()
  from!: string;

  @ApiProperty()
  to!: string;

  @ApiProperty({ enum: ['executes', 'uses-rule', 'uses-table', 'calls-sub-flow'] })
  kind!: CatalogGraphEdge['kind'];
}

/** The binding graph: apis → workflows → rules / tables / sub flows. */
export class CatalogGraphContentView implements CatalogGraph {
  @ApiProperty({ type: CatalogGraphNodeView, isArray: true })
  nodes!: CatalogGraphNodeView[];

  @ApiProperty({ type: CatalogGraphEdgeView, isArray: true })
  edges!: CatalogGraphEdgeView[];
}

export class CatalogGraphView extends CatalogGraphContentView {
  @ApiProperty()
  tenantId!: string;

  @ApiProperty(INSTANT)
  generatedAt!: string;
}

/** A captured snapshot without its content (what the list shows). */
export class SnapshotSummaryView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  tenantId!: string;

  @ApiProperty(INSTANT)
  capturedAt!: string;

  @ApiProperty()
  capturedBy!: string;

  @ApiProperty({ type: 'string', nullable: true })
  label!: string | null;

  @ApiProperty({ type: 'integer' })
  bindingCount!: number;

  @ApiProperty({ type: 'integer' })
  nodeCount!: number;

  @ApiProperty({ type: 'integer' })
  edgeCount!: number;
}

/** A captured snapshot with its bindings and graph. */
export class SnapshotView extends SnapshotSummaryView {
  @ApiProperty({ type: EndpointBindingView, isArray: true })
  bindings!: EndpointBindingView[];

  @ApiProperty({ type: CatalogGraphContentView })
  graph!: CatalogGraphContentView;
}

export class SnapshotPageView {
  @ApiProperty({ type: SnapshotSummaryView, isArray: true, description: 'Newest first.' })
  items!: SnapshotSummaryView[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  page!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  pageSize!: number;
}
