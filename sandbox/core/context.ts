import { EventEmitter } from 'node:events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import { createUlidFactory } from './ids';
import type { ApiKeySeed, CompanySeed, SeedDocument, UserSeed } from './seed';

/**
 * A slice of the API (catalogue, materials, BOMs, orders, ...). Each domain owns its store, parses its own
 * section of the seed document, and registers its routes (paths relative to /api/v2).
 */
export interface SandboxDomain<S> {
  readonly name: string;
  createStore(ctx: SandboxContext, seed: SeedDocument): S;
  registerRoutes(app: FastifyInstance, ctx: SandboxContext): void;
  /** Routes outside /api/v2 (no API key, no rate limit), such as the signed storage address of file uploads. */
  registerRootRoutes?(app: FastifyInstance, ctx: SandboxContext): void;
  /** JSON-ready view of the store for `GET /__sandbox/state` and snapshots. */
  dump(store: S): unknown;
  /** Rebuilds the store from a snapshot written by `dump`; falls back to the seed when absent. */
  restore?(ctx: SandboxContext, snapshot: unknown): S;
}

/** Events domains use to react to each other without importing each other's internals. */
export interface SandboxEvents {
  /** A product (any level) was created; BOM and material domains add inherited links for it. */
  productCreated: [{ companyId: string; productId: string; parentId: string | null }];
}

/** Who is calling: the company bound to the key (null for a key bound to none), and the key's audit pair. */
export interface Caller {
  companyId: string | null;
  apiKeyId: string | null;
  apiKeyLabel: string | null;
  userId: string | null;
}

export interface SandboxSettings {
  rateLimitPerMinute: number;
  childLinkDelayMs: number;
  qrDelayMs: number;
  /** Order and order-line lists answer at most this many items a page, whatever the limit asked (null: no cap). */
  orderPageSizeCap?: number | null;
  /**
   * `full` (default): GET /styles `include=bom` headers carry `link` {styleId, isMainBom, isOwner}, as on GET
   * /bom-headers. `bare`: the headers without `link` (the spec shows the include only as "BOM headers").
   */
  bomIncludeShape?: 'full' | 'bare';
  /**
   * `full` (default): GET /styles `include=material` headers carry `link` {styleId, isMainMaterial, isOwner}, as on
   * GET /material-headers. `bare`: the headers without `link` (spec 01 shows that include only as "material
   * composition headers").
   */
  materialIncludeShape?: 'full' | 'bare';
  /**
   * `stable` (default): GET /certificates breaks ties of the sort column by id. `shuffled`: certificates with equal
   * sort values come back in a fresh order on each query; spec 03 promises "Paging order is stable for equal sort
   * values" of GET /orders only.
   */
  certificateTies?: 'stable' | 'shuffled';
  /**
   * `stable` (default): GET /bom-lines breaks ties of the sort column by id. `shuffled`: lines with equal sort values
   * (every copy of a fork shares `createdAt`) come back in a fresh order on each query.
   */
  bomLineTies?: 'stable' | 'shuffled';
  /**
   * The same for GET /material-lines: spec 02 lists no unique sort column for material lines either, and every line
   * of a fork's copy shares `createdAt`.
   */
  materialLineTies?: 'stable' | 'shuffled';
  /**
   * The same for GET /styles: spec 01 gives no tie order for its sort columns (seeded products share `createdAt`, and
   * so may products created in one millisecond).
   */
  productTies?: 'stable' | 'shuffled';
  /**
   * BOM header ids whose GET /bom-lines counts every line in `total` but lists one fewer on its pages (the header's
   * last line in the sort order is on none): a line list that is never read whole, however often it is read.
   */
  bomLinesNeverWhole?: string[];
}

export class SandboxContext {
  readonly events = new EventEmitter<SandboxEvents>();
  readonly companies = new Map<string, CompanySeed>();
  readonly apiKeys = new Map<string, ApiKeySeed & { id: string }>();
  readonly users = new Map<string, UserSeed>();
  private readonly stores = new Map<SandboxDomain<unknown>, unknown>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly ulid: () => string;

  constructor(
    readonly settings: SandboxSettings,
    readonly now: () => number = Date.now,
  ) {
    this.ulid = createUlidFactory(now);
  }

  /** A new id with the resource's prefix, for example `newId('style_')`. */
  newId(prefix: string): string {
    return prefix + this.ulid();
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  store<S>(domain: SandboxDomain<S>): S {
    const store = this.stores.get(domain as SandboxDomain<unknown>);
    if (store === undefined) throw new Error(`Sandbox domain '${domain.name}' is not registered`);
    return store as S;
  }

  setStore<S>(domain: SandboxDomain<S>, store: S): void {
    this.stores.set(domain as SandboxDomain<unknown>, store);
  }

  loadNetwork(seed: SeedDocument): void {
    this.companies.clear();
    this.apiKeys.clear();
    this.users.clear();
    for (const company of seed.companies) this.companies.set(company.id, company);
    seed.apiKeys.forEach((key, index) =>
      this.apiKeys.set(key.key, { ...key, id: key.id ?? `apikey_${index + 1}` }),
    );
    for (const user of seed.users) this.users.set(user.id, user);
  }

  /** Runs `task` after `delayMs` (asynchronous server work such as child links and QR codes); cleared on reset/close. */
  schedule(delayMs: number, task: () => void): void {
    if (delayMs <= 0) {
      task();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      task();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  cancelScheduled(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Whether `companyId` may be named as a party by `callerCompanyId` (itself or in its network). */
  reaches(callerCompanyId: string, companyId: string): boolean {
    if (callerCompanyId === companyId) return this.companies.has(companyId);
    const caller = this.companies.get(callerCompanyId);
    return Boolean(caller && this.companies.has(companyId) && caller.network.includes(companyId));
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/** The authenticated caller's company; 403 `insufficient_rights` when the credential is bound to none. */
export function callerCompany(request: FastifyRequest): string {
  const companyId = request.caller.companyId;
  if (companyId === null) {
    throw new ApiError(403, 'insufficient_rights', 'Credential is not bound to a company');
  }
  return companyId;
}
