import {
  companyResolverFromDirectory,
  productRefKey,
  type BuildContext,
  type CompanyDirectoryEntry,
  type OrderDraft,
  type ProductRef,
} from '../../connectors/erp';
import type { ApiCallCounter } from './api-calls';

/** The caller's company, per client (one client per key), for the life of the worker: a key never changes company. */
const ownCompanyCache = new WeakMap<object, string>();

/**
 * Which company the key belongs to: the API has no "who am I", but every readable order is the caller's own
 * (`forCompanyId`), and a product of the caller's catalogue that the caller created names it too.
 */
export async function ownCompanyId(api: ApiCallCounter): Promise<string> {
  const cached = ownCompanyCache.get(api.client);
  if (cached !== undefined) return cached;
  const orders = await api.one(() => api.client.orders.list({ limit: 1 }));
  let id = orders.items[0]?.forCompanyId ?? undefined;
  if (!id) {
    const products = await api.one(() => api.client.products.list({ limit: 100 }));
    id =
      products.items.find(
        (product) => product.forCompanyId && product.forCompanyId === product['createdByCompanyId'],
      )?.forCompanyId ?? undefined;
  }
  if (!id) {
    throw new Error(
      'cannot tell which company the API key belongs to (it owns no order and created no product); ' +
        'create one order or product with this key, or give buyer and supplier ids in the mapping profile',
    );
  }
  ownCompanyCache.set(api.client, id);
  return id;
}

/**
 * Company codes → ids. The API's code filter is a substring match, one call per code; when the whole network fits
 * in fewer pages than there are codes, reading it once is cheaper.
 */
export async function companyDirectory(
  api: ApiCallCounter,
  codes: readonly string[],
): Promise<CompanyDirectoryEntry[]> {
  if (codes.length === 0) return [];
  const fetchPage = (page: number, limit: number) => api.client.companies.list({ page, limit });
  const first = await api.one(() => fetchPage(1, 100));
  if (first.pagination.totalPages <= codes.length) {
    const all = await api.all(fetchPage, first);
    return all.flatMap((company) =>
      company.internalCompanyCode
        ? [{ id: company.id, code: company.internalCompanyCode, name: company.name ?? undefined }]
        : [],
    );
  }
  const entries: CompanyDirectoryEntry[] = [];
  for (const code of codes) {
    const found = await api.all((page, limit) =>
      api.client.companies.list({ filter: { internalCompanyCode: code }, page, limit }),
    );
    for (const company of found) {
      if (company.internalCompanyCode === code)
        entries.push({ id: company.id, code, name: company.name ?? undefined });
    }
  }
  return entries;
}

export async function buildContext(api: ApiCallCounter, codes: readonly string[]): Promise<BuildContext> {
  const [own, directory, processes] = await Promise.all([
    ownCompanyId(api),
    companyDirectory(api, codes),
    api.all((page, limit) => api.client.processes.listFacility({ page, limit })),
  ]);
  return {
    ownCompanyId: own,
    companies: companyResolverFromDirectory(directory),
    facilityProcesses: processes.map(({ id, name }) => ({ id, name })),
  };
}

/** The product refs whose platform id the run needs: every code ref, and externalId refs of orders to compare. */
export function refsToResolve(
  drafts: readonly OrderDraft[],
  compared: (draft: OrderDraft) => boolean,
): Map<string, ProductRef> {
  const refs = new Map<string, ProductRef>();
  for (const draft of drafts) {
    const compare = compared(draft);
    for (const line of draft.lines) {
      if (compare || !('externalId' in line.productRef))
        refs.set(productRefKey(line.productRef), line.productRef);
    }
  }
  return refs;
}

/** Platform ids of product refs: one GET per externalId; codes level by level (archived products keep theirs). */
export async function resolveProducts(
  api: ApiCallCounter,
  refs: ReadonlyMap<string, ProductRef>,
): Promise<{ resolved: Map<string, string>; unresolved: string[] }> {
  const resolved = new Map<string, string>();
  const unresolved: string[] = [];
  const entries = [...refs.entries()];
  const CONCURRENCY = 4;
  for (let start = 0; start < entries.length; start += CONCURRENCY) {
    await Promise.all(
      entries.slice(start, start + CONCURRENCY).map(async ([key, ref]) => {
        const id =
          'externalId' in ref
            ? await byExternalId(api, ref.externalId)
            : await byCode(api, ref.codeId, ref.codeValue);
        if (id === undefined) unresolved.push(key);
        else resolved.set(key, id);
      }),
    );
  }
  return { resolved, unresolved: unresolved.sort() };
}

async function byExternalId(api: ApiCallCounter, externalId: string): Promise<string | undefined> {
  const product = await api.one(() => api.client.naturalKeys.findProductByExternalId(externalId));
  return product?.id;
}

async function byCode(api: ApiCallCounter, codeId: string, codeValue: string): Promise<string | undefined> {
  for (const isArchived of [false, true]) {
    for (const level of ['style', 'variant', 'sku'] as const) {
      const found = await api.all((page, limit) =>
        api.client.products.list({ level, codeId, codeValue, isArchived, page, limit }),
      );
      const match = found.find((product) =>
        product.codes.some((code) => code.codeId === codeId && code.codeValue === codeValue),
      );
      if (match) return match.id;
    }
  }
  return undefined;
}
