import { AppError, RequestContext } from '@arbiter/platform';
import {
  embeddedTable,
  MAX_SUB_FLOW_DEPTH,
  type RuleContract,
  type RuleContractField,
} from '@arbiter/rule-engine';
import { Inject, Injectable } from '@nestjs/common';
import { assertWorkflowName } from '../../shared';
import {
  composeAuthoringContract,
  composeFlowContract,
  NodeContract,
  subFlowKey,
  SubFlowLookup,
} from '../domain/flow-contracts';
import { withoutStructuralFields } from '../domain/contract-fields';
import { CONTRACT_SOURCE_TYPES, contractSourceType, ContractSourceType } from '../domain/contract-source';
import { buildFlowModel, FlowModel } from '../domain/flow-model';
import { DecisionTableClient } from '../../execution';
import { CatalogErrors } from './errors';
import { RuleCatalog } from './rule-catalog';
import { StaticContracts } from './static-contracts';
import { StoredWorkflow, WorkflowDocuments } from './workflow-documents';

/**
 * Which source resolved a contract, in the spec's order; `stored-table` (ours) is a decision table stored in
 * the decisions service, read between composition and the static fallback.
 */
export type ContractResolution = 'manifest' | 'composition' | 'stored-table' | 'static';

export interface FlowContractView {
  flowCode: string;
  resolvedFrom: ContractResolution;
  /** Manifest source (resolvedFrom `manifest`), else null. */
  sourceKey: string | null;
  /** The stored version composed from (resolvedFrom `composition`), else null. */
  version: number | null;
  versionStatus: string | null;
  shape: string | null;
  request: RuleContract;
  response: RuleContract;
  nodes: NodeContract[];
}

export interface SourceContractView {
  sourceType: ContractSourceType;
  sourceCode: string;
  resolvedFrom: ContractResolution;
  sourceKey: string | null;
  /** Composition: the workflow (and version) the contract was composed from. */
  composedFrom: { workflowName: string; version: number } | null;
  request: RuleContract;
  response: RuleContract;
  nodes?: NodeContract[];
}

/**
 * Contract metadata for the flow designer. Resolution order (spec 1): (1) a manifest of the rule library
 * generator, (2) composition across the workflow's active (else latest) version, (3) the static
 * configuration fallback. Every answer says which one resolved it (`resolvedFrom`).
 */
@Injectable()
export class ContractsService {
  constructor(
    @Inject(RuleCatalog) private readonly catalog: RuleCatalog,
    @Inject(StaticContracts) private readonly statics: StaticContracts,
    @Inject(WorkflowDocuments) private readonly workflows: WorkflowDocuments,
    @Inject(DecisionTableClient) private readonly tables: DecisionTableClient,
  ) {}

  private readonly lookup = (code: string) => this.catalog.find(code);

  private model(stored: StoredWorkflow): FlowModel {
    return buildFlowModel(stored.document, stored.shape);
  }

  /**
   * The responses of the workflows a model's sub-flow nodes call (pinned version, else the active,
   * else the latest; a workflow in the rule catalog by its manifest), composed the same way, their own
   * sub flows first. Depth ≤ the engine's `MAX_SUB_FLOW_DEPTH`; a cycle or an unknown workflow gives
   * no facts (the validation refuses the first, the runtime fails on the second).
   */
  private async subFlows(model: FlowModel, caller: string): Promise<SubFlowLookup> {
    const known = new Map<string, RuleContractField[] | undefined>();
    const lookup: SubFlowLookup = (name, version) => known.get(subFlowKey(name, version));
    const visit = async (current: FlowModel, stack: string[]): Promise<void> => {
      for (const node of current.nodes) {
        const call = node.subFlowOutputs;
        if (!call) continue;
        const key = subFlowKey(call.workflowName, call.version);
        if (known.has(key)) continue;
        known.set(key, undefined);
        if (stack.includes(call.workflowName) || stack.length > MAX_SUB_FLOW_DEPTH) continue;
        const item = this.catalog.find(call.workflowName);
        if (item) {
          known.set(key, withoutStructuralFields(item.outputSchema.fields));
          continue;
        }
        const stored = call.version
          ? await this.workflows.version(call.workflowName, call.version)
          : await this.workflows.activeOrLatest(call.workflowName);
        if (!stored) continue;
        const child = this.model(stored);
        await visit(child, [...stack, call.workflowName]);
        known.set(key, composeFlowContract(call.workflowName, child, this.lookup, lookup).response.fields);
      }
    };
    await visit(model, [caller]);
    return lookup;
  }

  async flowContract(flowCode: string): Promise<FlowContractView> {
    assertWorkflowName(flowCode);
    const base = { flowCode, sourceKey: null, version: null, versionStatus: null, shape: null, nodes: [] };
    const item = this.catalog.find(flowCode);
    if (item)
      return {
        ...base,
        resolvedFrom: 'manifest',
        sourceKey: item.sourceKey,
        request: item.inputSchema,
        response: item.outputSchema,
      };
    const stored = await this.workflows.activeOrLatest(flowCode);
    if (stored) {
      const model = this.model(stored);
      return {
        ...base,
        resolvedFrom: 'composition',
        version: stored.version,
        versionStatus: stored.status,
        shape: stored.shape,
        ...composeFlowContract(flowCode, model, this.lookup, await this.subFlows(model, flowCode)),
      };
    }
    const fallback = this.statics.find('flow', flowCode);
    if (fallback)
      return { ...base, resolvedFrom: 'static', request: fallback.request, response: fallback.response };
    throw AppError.notFound(CatalogErrors.FlowNotFound, `Flow '${flowCode}' not found`);
  }

  async authoringContract(flowCode: string, nodeId: string) {
    assertWorkflowName(flowCode);
    const stored = await this.workflows.activeOrLatest(flowCode);
    if (!stored) throw AppError.notFound(CatalogErrors.FlowNotFound, `Flow '${flowCode}' not found`);
    const model = this.model(stored);
    const contract = composeAuthoringContract(
      flowCode,
      model,
      nodeId,
      this.lookup,
      await this.subFlows(model, flowCode),
    );
    if (!contract)
      throw AppError.notFound(
        CatalogErrors.NodeNotFound,
        `Node '${nodeId}' not found in version ${stored.version} of flow '${flowCode}'`,
      );
    return { ...contract, version: stored.version, shape: stored.shape };
  }

  async sourceContract(rawType: string, sourceCode: string): Promise<SourceContractView> {
    const sourceType = contractSourceType(rawType);
    if (!sourceType)
      throw AppError.badRequest(
        CatalogErrors.UnknownSourceType,
        `Unknown source type '${rawType}' (expected one of ${[...CONTRACT_SOURCE_TYPES, 'workflow'].join(', ')})`,
      );
    const head = { sourceType, sourceCode, sourceKey: null, composedFrom: null };
    if (sourceType === 'flow') {
      const flow = await this.flowContract(sourceCode);
      return {
        ...head,
        resolvedFrom: flow.resolvedFrom,
        sourceKey: flow.sourceKey,
        composedFrom: flow.version ? { workflowName: sourceCode, version: flow.version } : null,
        request: flow.request,
        response: flow.response,
        nodes: flow.nodes,
      };
    }
    if (sourceType === 'rule') {
      const item = this.catalog.find(sourceCode);
      if (item)
        return {
          ...head,
          resolvedFrom: 'manifest',
          sourceKey: item.sourceKey,
          request: item.inputSchema,
          response: item.outputSchema,
        };
    } else {
      const composed = await this.composeTable(sourceCode);
      if (composed) return { ...head, resolvedFrom: 'composition', ...composed };
      const stored = await this.storedTable(sourceCode);
      if (stored) return { ...head, resolvedFrom: 'stored-table', ...stored };
    }
    const fallback = this.statics.find(sourceType, sourceCode);
    if (fallback)
      return { ...head, resolvedFrom: 'static', request: fallback.request, response: fallback.response };
    throw sourceType === 'rule'
      ? AppError.notFound(CatalogErrors.RuleNotFound, `Rule '${sourceCode}' is not in the rule catalog`)
      : AppError.notFound(CatalogErrors.DecisionTableNotFound, `Decision table '${sourceCode}' not found`);
  }

  /**
   * A decision table of the tenant stored in the decisions service (by name, latest version): its columns.
   * Not found, or the service unreachable: undefined (the static fallback still answers).
   */
  private async storedTable(name: string) {
    try {
      const table = embeddedTable(await this.tables.resolve(RequestContext.tenantId(), { name }));
      if (!table) return undefined;
      return {
        request: { contractName: `${name}.input`, fields: table.inputs },
        response: { contractName: `${name}.output`, fields: table.outputs },
      };
    } catch {
      return undefined;
    }
  }

  /** A decision table defined inside a stored workflow (flow node or rules form): its columns. */
  private async composeTable(name: string) {
    for (const stored of await this.workflows.allActiveOrLatest()) {
      const table = this.model(stored).embeddedTables.find((t) => t.name === name);
      if (table)
        return {
          composedFrom: { workflowName: stored.workflowName, version: stored.version },
          request: { contractName: `${name}.input`, fields: table.inputs },
          response: { contractName: `${name}.output`, fields: table.outputs },
        };
    }
    return undefined;
  }
}
