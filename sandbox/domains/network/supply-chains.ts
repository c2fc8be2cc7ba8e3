import type { FastifyInstance } from 'fastify';
import { callerCompany, type SandboxContext } from '../../core/context';
import { sendData } from '../../core/envelope';
import { notFound } from '../../core/errors';
import type { ProductRecord } from '../catalogue';
import { catalogueOf, productInCatalogue } from '../v2-common/catalogue';
import type { NetworkState, SupplyChainRecord } from './model';
import { facilityProcess, productionProcess } from './processes';

/** The product's own chain, else the closest ancestor's active chain. An inactive own chain shows nothing. */
export function chainFor(
  ctx: SandboxContext,
  state: NetworkState,
  product: ProductRecord,
): SupplyChainRecord | undefined {
  const own = state.supplyChains.find((chain) => chain.productId === product.id);
  if (own) return own.isActive ? own : undefined;
  for (const ancestor of catalogueOf(ctx).ancestors(product.id)) {
    const chain = state.supplyChains.find(
      (candidate) => candidate.productId === ancestor.id && candidate.isActive,
    );
    if (chain) return chain;
  }
  return undefined;
}

const tierOf = (depthLevel: number): string => `T${depthLevel}`;

function groups(ctx: SandboxContext, chain: SupplyChainRecord | undefined): unknown[] {
  if (!chain) return [];
  const byProcess = new Map<string, SupplyChainRecord['nodes']>();
  for (const node of chain.nodes)
    byProcess.set(node.productionProcessId, [...(byProcess.get(node.productionProcessId) ?? []), node]);
  return [...byProcess.entries()]
    .map(([processId, nodes]) => ({ process: productionProcess(processId), processId, nodes }))
    .sort((a, b) => (a.process?.depthLevel ?? 99) - (b.process?.depthLevel ?? 99))
    .map(({ process, processId, nodes }) => {
      const tier = tierOf(process?.depthLevel ?? 0);
      return {
        productionProcessId: processId,
        productionProcessName: process?.name ?? processId,
        tier,
        nodes: nodes.map((node) => {
          const company = ctx.companies.get(node.companyId);
          return {
            tier,
            companyId: node.companyId,
            companyName: company?.name ?? null,
            country: company?.country ?? node.address?.country ?? null,
            coordinates: node.coordinates,
            address: node.address ?? {
              line1: null,
              line2: null,
              city: company?.city ?? null,
              zipCode: null,
              country: company?.country ?? null,
            },
            facilityProcesses: node.facilityProcesses.map((id) => facilityProcess(id)?.name ?? id),
            productionProcess: process?.name ?? processId,
          };
        }),
      };
    });
}

export function registerSupplyChainRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  state: () => NetworkState,
): void {
  app.get<{ Params: { id: string } }>('/supply-chains/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    const product = productInCatalogue(ctx, companyId, request.params.id);
    if (!product) throw notFound(`Product '${request.params.id}' does not exist`, 'not_found');
    return sendData(reply, {
      productId: product.id,
      productName: product.name,
      nodesByProductionProcesses: groups(ctx, chainFor(ctx, state(), product)),
    });
  });
}
