import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerCompany, type Caller, type SandboxContext, type SandboxDomain } from '../../core/context';
import { sendData, sendPage, sendPageOf } from '../../core/envelope';
import { badRequest, notFound, type ApiError } from '../../core/errors';
import { seededRandom } from '../../core/prng';
import {
  list,
  pageParams,
  shuffleTies,
  sortBy,
  sortParams,
  str,
  type Comparable,
  type RawQuery,
} from '../../core/query';
import type { ProductRecord, ProvidedInclude } from '../catalogue';
import { catalogueOf, productInCatalogue } from './catalogue';

/**
 * What material compositions and BOMs share: a header is stored once and linked to every product that has it, as
 * owner (`isOwner`) or by inheritance from an ancestor; lines hang off the header. Each domain keeps its own spec
 * rules (fields, filters, sorts, copy-on-write) and plugs them into the routes and catalogue wiring below.
 */
export interface LinkBase {
  id: string;
  headerId: string;
  productId: string;
  isOwner: boolean;
  createdAt: string;
}

export class LinkTable<L extends LinkBase> {
  private readonly links = new Map<string, L>();
  private readonly byProduct = new Map<string, Set<string>>();
  private readonly byHeader = new Map<string, Set<string>>();

  constructor(links: L[] = []) {
    for (const link of links) this.add(link);
  }

  ofProduct(productId: string): L[] {
    return this.resolve(this.byProduct.get(productId));
  }

  ofHeader(headerId: string): L[] {
    return this.resolve(this.byHeader.get(headerId));
  }

  find(productId: string, headerId: string): L | undefined {
    return this.ofProduct(productId).find((link) => link.headerId === headerId);
  }

  owner(headerId: string): L | undefined {
    return this.ofHeader(headerId).find((link) => link.isOwner);
  }

  add(link: L): void {
    this.links.set(link.id, link);
    index(this.byProduct, link.productId).add(link.id);
    index(this.byHeader, link.headerId).add(link.id);
  }

  remove(linkId: string): void {
    const link = this.links.get(linkId);
    if (!link) return;
    this.links.delete(linkId);
    this.byProduct.get(link.productId)?.delete(linkId);
    this.byHeader.get(link.headerId)?.delete(linkId);
  }

  removeHeader(headerId: string): L[] {
    const removed = this.ofHeader(headerId);
    for (const link of removed) this.remove(link.id);
    return removed;
  }

  all(): L[] {
    return [...this.links.values()];
  }

  private resolve(ids: Set<string> | undefined): L[] {
    const out: L[] = [];
    for (const id of ids ?? []) {
      const link = this.links.get(id);
      if (link) out.push(link);
    }
    return out;
  }
}

function index(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

/** The store shape both domains share. */
export interface LinkedHeaderStore<
  H extends { id: string },
  L extends LinkBase,
  Line extends { id: string },
> {
  readonly headers: Map<string, H>;
  readonly links: LinkTable<L>;
  readonly lines: Map<string, Line>;
  header(companyId: string, id: string): H | undefined;
}

/** Who writes, to which store: what every header and line service takes. */
export interface LinkedWrite<S> {
  ctx: SandboxContext;
  store: S;
  caller: Caller;
  companyId: string;
}

/** The answer of POST /{kind}-lines/delete. */
export interface DeleteLinesResult {
  deletedLines: string[];
  duplicatedHeaders: string[];
  orphanedHeaders: string[];
  errors: Array<{ id: string; code: string; message: string }>;
}

export interface HeaderView<H, L> {
  header: H;
  link: L;
}

/** An inherited link copies the source link's per-product values. */
function inheritedLink<L extends LinkBase>(
  ctx: SandboxContext,
  idPrefix: string,
  source: L,
  productId: string,
): L {
  return { ...source, id: ctx.newId(idPrefix), productId, isOwner: false, createdAt: ctx.nowIso() };
}

type AnyLinkedStore<L extends LinkBase> = LinkedHeaderStore<{ id: string }, L, { id: string }>;

/**
 * Creates inherited links (ids `idPrefix`...) for every product below the source link's product, after the
 * configured delay (child links appear asynchronously). Products already linked to the header, or whose header
 * vanished meanwhile, are skipped.
 */
export function scheduleChildLinks<L extends LinkBase>(
  ctx: SandboxContext,
  store: AnyLinkedStore<L>,
  source: L,
  idPrefix: string,
): void {
  ctx.schedule(ctx.settings.childLinkDelayMs, () => {
    if (!store.headers.has(source.headerId)) return;
    for (const product of catalogueOf(ctx).descendants(source.productId)) {
      if (!store.links.find(product.id, source.headerId))
        store.links.add(inheritedLink(ctx, idPrefix, source, product.id));
    }
  });
}

/** The product a write names by `styleId` (platform id or externalId), or a 404 naming the field. */
export function referencedProduct(
  write: Pick<LinkedWrite<unknown>, 'ctx' | 'companyId'>,
  styleId: string,
  field: string,
): ProductRecord {
  const product = productInCatalogue(write.ctx, write.companyId, styleId);
  if (!product)
    throw notFound(`${field} '${styleId}' is not a product of your catalogue`, 'entity_not_found');
  return product;
}

/**
 * A new child product inherits every header linked to its parent (after the same delay), and GET /styles
 * `include=<include>` shows a product's headers as `present` draws them.
 */
export function connectToCatalogue<H extends { id: string }, L extends LinkBase>(
  ctx: SandboxContext,
  domain: SandboxDomain<LinkedHeaderStore<H, L, { id: string }>>,
  options: {
    include: ProvidedInclude;
    linkIdPrefix: string;
    present: (header: H, link: L) => Record<string, unknown>;
  },
): void {
  const store = () => ctx.store(domain);
  ctx.events.on('productCreated', ({ productId, parentId }) => {
    if (parentId === null) return;
    ctx.schedule(ctx.settings.childLinkDelayMs, () => {
      for (const source of store().links.ofProduct(parentId)) {
        if (store().headers.has(source.headerId) && !store().links.find(productId, source.headerId)) {
          store().links.add(inheritedLink(ctx, options.linkIdPrefix, source, productId));
        }
      }
    });
  });
  catalogueOf(ctx).setIncludeProvider(options.include, (product, callerCompanyId) =>
    store()
      .links.ofProduct(product.id)
      .flatMap((link) => {
        const header = store().header(callerCompanyId, link.headerId);
        return header ? [options.present(header, link)] : [];
      }),
  );
}

/**
 * The spec-specific half of `/{kind}-headers` and `/{kind}-lines`: each domain's filters, sorts, shapes and write
 * services. Lines are filtered by `{kind}HeaderId` and shown only when their header is the caller's.
 */
export interface LinkedHeaderRoutes<
  H extends { id: string },
  L extends LinkBase,
  Line extends { id: string },
  S extends LinkedHeaderStore<H, L, Line>,
  HS extends string,
  LS extends string,
> {
  kind: 'bom' | 'material';
  domain: SandboxDomain<S>;
  headerNotFound(id: string): ApiError;
  /** The first is the default sort. */
  headerSorts: readonly [HS, ...HS[]];
  headerSortKey(view: HeaderView<H, L>, sort: HS): Comparable;
  headerFilter(query: RawQuery): (view: HeaderView<H, L>) => boolean;
  presentHeader(header: H, link: L): Record<string, unknown>;
  /** The 201 shape of POST /{kind}-headers. */
  presentCreatedHeader(header: H, link: L): Record<string, unknown>;
  createHeader(write: LinkedWrite<S>, body: unknown): HeaderView<H, L>;
  updateHeader(write: LinkedWrite<S>, id: string, body: unknown): HeaderView<H, L>;
  deleteHeaders(write: LinkedWrite<S>, body: unknown): unknown;
  lineSorts: readonly [LS, ...LS[]];
  lineSortKey(line: Line, sort: LS): Comparable;
  /** Whether lines with equal sort values come back in a fresh order on each query (default: by id). */
  shuffledLineTies?(): boolean;
  /** Whether the header's line list counts one line more than its pages list (default: never). */
  lineListNeverWhole?(headerId: string): boolean;
  headerIdOf(line: Line): string;
  lineFilter(write: LinkedWrite<S>, query: RawQuery): (line: Line) => boolean;
  presentLine(write: LinkedWrite<S>, line: Line, include?: readonly string[]): Record<string, unknown>;
  createLine(write: LinkedWrite<S>, body: unknown): Line;
  updateLine(write: LinkedWrite<S>, id: string, body: unknown): Line;
  deleteLines(write: LinkedWrite<S>, body: unknown): unknown;
}

type IdRoute = { Params: { id: string }; Querystring: RawQuery };

export function registerLinkedHeaderRoutes<
  H extends { id: string },
  L extends LinkBase,
  Line extends { id: string },
  S extends LinkedHeaderStore<H, L, Line>,
  HS extends string,
  LS extends string,
>(
  app: FastifyInstance,
  ctx: SandboxContext,
  spec: LinkedHeaderRoutes<H, L, Line, S, HS, LS>,
): LinkedWriteOf<S> {
  const { kind } = spec;
  // Repeatable dice for shuffled line ties: a new order on every query, the same run on every start.
  const tieOrder = seededRandom(0x71e5);
  const write: LinkedWriteOf<S> = (request) => ({
    ctx,
    store: ctx.store(spec.domain),
    caller: request.caller,
    companyId: callerCompany(request),
  });

  app.get<{ Querystring: RawQuery }>(`/${kind}-headers`, async (request, reply) => {
    const { store, companyId } = write(request);
    const styleId = str(request.query, 'styleId');
    if (!styleId) throw badRequest(`Query parameter 'styleId' is required`);
    const { page, limit } = pageParams(request.query);
    const { sort, order } = sortParams(request.query, spec.headerSorts, spec.headerSorts[0]);
    const product = productInCatalogue(ctx, companyId, styleId);
    const keep = spec.headerFilter(request.query);
    const views = (product ? store.links.ofProduct(product.id) : []).flatMap((link) => {
      const header = store.header(companyId, link.headerId);
      return header && keep({ header, link }) ? [{ id: header.id, header, link }] : [];
    });
    const sorted = sortBy(views, (view) => spec.headerSortKey(view, sort), order);
    return sendPage(
      reply,
      sorted.map((view) => spec.presentHeader(view.header, view.link)),
      page,
      limit,
    );
  });

  app.get<IdRoute>(`/${kind}-headers/:id`, async (request, reply) => {
    const { store, companyId } = write(request);
    const header = store.header(companyId, request.params.id);
    const owner = header ? store.links.owner(header.id) : undefined;
    if (!header || !owner) throw spec.headerNotFound(request.params.id);
    return sendData(reply, spec.presentHeader(header, owner));
  });

  app.post(`/${kind}-headers`, async (request, reply) => {
    const { header, link } = spec.createHeader(write(request), request.body);
    return sendData(reply, spec.presentCreatedHeader(header, link), 201);
  });

  app.put<IdRoute>(`/${kind}-headers/:id`, async (request, reply) => {
    const { header, link } = spec.updateHeader(write(request), request.params.id, request.body);
    return sendData(reply, spec.presentHeader(header, link));
  });

  app.post(`/${kind}-headers/delete`, async (request, reply) =>
    sendData(reply, spec.deleteHeaders(write(request), request.body)),
  );

  app.get<{ Querystring: RawQuery }>(`/${kind}-lines`, async (request, reply) => {
    const context = write(request);
    const { query } = request;
    const { page, limit } = pageParams(query);
    const { sort, order } = sortParams(query, spec.lineSorts, spec.lineSorts[0]);
    const headerId = str(query, `${kind}HeaderId`);
    const keep = spec.lineFilter(context, query);
    const lines = [...context.store.lines.values()].filter(
      (line) =>
        context.store.header(context.companyId, spec.headerIdOf(line)) !== undefined &&
        (headerId === undefined || spec.headerIdOf(line) === headerId) &&
        keep(line),
    );
    const include = list(query, 'include') ?? [];
    const key = (line: Line) => spec.lineSortKey(line, sort);
    const byKey = sortBy(lines, key, order);
    const sorted = spec.shuffledLineTies?.() ? shuffleTies(byKey, key, tieOrder) : byKey;
    const presented = sorted.map((line) => spec.presentLine(context, line, include));
    if (headerId !== undefined && presented.length > 0 && spec.lineListNeverWhole?.(headerId)) {
      const listed = presented.slice(0, -1);
      const start = (page - 1) * limit;
      return sendPageOf(reply, listed.slice(start, start + limit), page, limit, presented.length);
    }
    return sendPage(reply, presented, page, limit);
  });

  app.post(`/${kind}-lines`, async (request, reply) => {
    const context = write(request);
    return sendData(reply, spec.presentLine(context, spec.createLine(context, request.body)), 201);
  });

  app.put<IdRoute>(`/${kind}-lines/:id`, async (request, reply) => {
    const context = write(request);
    return sendData(
      reply,
      spec.presentLine(context, spec.updateLine(context, request.params.id, request.body)),
    );
  });

  app.post(`/${kind}-lines/delete`, async (request, reply) =>
    sendData(reply, spec.deleteLines(write(request), request.body)),
  );
  return write;
}

/** Builds a request's write context (returned by `registerLinkedHeaderRoutes` for the domain's other routes). */
export type LinkedWriteOf<S> = (request: FastifyRequest) => LinkedWrite<S>;
