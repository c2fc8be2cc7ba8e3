import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { systemClock, type Clock } from './clock';
import { Transport } from './http';
import { silentLogger, type TraceabilityLogger } from './logger';
import { ClientMetrics, type ClientMetricsSnapshot } from './metrics';
import { NaturalKeys } from './natural-keys';
import { BASE_LANES, MAX_IN_FLIGHT } from './concurrency';
import { AdaptiveRateLimiter, type RateLimiterOptions } from './rate-limiter';
import { ReferenceCache } from './reference-cache';
import { BomsResource } from './resources/boms';
import { CertificatesResource } from './resources/certificates';
import { CompaniesResource } from './resources/companies';
import { EsgResource } from './resources/esg';
import { FilesResource } from './resources/files';
import { MaterialsResource } from './resources/materials';
import { OrderLinesResource, OrdersResource } from './resources/orders';
import { ProcessesResource } from './resources/processes';
import { ProductsResource } from './resources/products';
import { StylePropertiesResource } from './resources/style-properties';
import { StyleTypesResource } from './resources/style-types';
import { SupplyChainsResource } from './resources/supply-chains';

const optionsSchema = z.object({
  baseUrl: z.string().url(),
  apiKey: z.string().min(1),
  timeoutMs: z.number().int().positive().default(30_000),
  /** The fewest requests let in flight at once: the width where the key's allowance asks for no more. */
  minConcurrency: z.number().int().positive().default(BASE_LANES),
  /** The most requests in flight; under it, as many as the key's allowance over the round trips keeps busy. */
  maxConcurrency: z.number().int().positive().default(MAX_IN_FLIGHT),
  maxRetries: z.number().int().min(0).default(4),
  maxRateLimitRetries: z.number().int().min(0).default(8),
  maxInlineRetryAfterMs: z.number().int().min(0).default(30_000),
  backoffBaseMs: z.number().int().positive().default(250),
  backoffCapMs: z.number().int().positive().default(10_000),
  referenceTtlMs: z
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
});

export interface TraceabilityClientOptions extends z.input<typeof optionsSchema> {
  logger?: TraceabilityLogger;
  clock?: Clock;
  random?: () => number;
  /** Tuning of the adaptive pacer (target utilisation, exploration). */
  rateLimit?: Omit<RateLimiterOptions, 'clock'>;
  /** Share one limiter between clients of the same key in one process. */
  rateLimiter?: AdaptiveRateLimiter;
  /** Custom undici dispatcher (tests, proxies); the client closes only the one it created. */
  dispatcher?: Dispatcher;
}

/**
 * Typed, rate-aware client of the Traceability Public API v2. Create one per process and key and
 * share it between activities: the pacer, the concurrency bound and the caches live in it.
 */
export class TraceabilityClient {
  readonly products: ProductsResource;
  readonly styleTypes: StyleTypesResource;
  readonly styleProperties: StylePropertiesResource;
  readonly files: FilesResource;
  readonly materials: MaterialsResource;
  readonly boms: BomsResource;
  readonly orders: OrdersResource;
  readonly orderLines: OrderLinesResource;
  readonly certificates: CertificatesResource;
  readonly supplyChains: SupplyChainsResource;
  readonly esg: EsgResource;
  readonly companies: CompaniesResource;
  readonly processes: ProcessesResource;
  readonly reference: ReferenceCache;
  readonly naturalKeys: NaturalKeys;
  readonly rateLimiter: AdaptiveRateLimiter;
  private readonly metrics = new ClientMetrics();
  private readonly transport: Transport;

  constructor(options: TraceabilityClientOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      // Never echo the input: it holds the key.
      const fields = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
      throw new TypeError(`invalid TraceabilityClient options: ${fields}`);
    }
    const config = parsed.data;
    const clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? new AdaptiveRateLimiter({ ...options.rateLimit, clock });
    this.transport = new Transport({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      minConcurrency: config.minConcurrency,
      maxConcurrency: config.maxConcurrency,
      retry: {
        maxRetries: config.maxRetries,
        maxRateLimitRetries: config.maxRateLimitRetries,
        maxInlineRetryAfterMs: config.maxInlineRetryAfterMs,
        backoff: {
          baseMs: config.backoffBaseMs,
          capMs: config.backoffCapMs,
          ...(options.random ? { random: options.random } : {}),
        },
      },
      clock,
      limiter: this.rateLimiter,
      metrics: this.metrics,
      logger: options.logger ?? silentLogger,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    const t = this.transport;
    this.products = new ProductsResource(t);
    this.styleTypes = new StyleTypesResource(t);
    this.styleProperties = new StylePropertiesResource(t);
    this.files = new FilesResource(t);
    this.materials = new MaterialsResource(t);
    this.boms = new BomsResource(t);
    this.orders = new OrdersResource(t);
    this.orderLines = new OrderLinesResource(t);
    this.certificates = new CertificatesResource(t);
    this.supplyChains = new SupplyChainsResource(t);
    this.esg = new EsgResource(t);
    this.companies = new CompaniesResource(t);
    this.processes = new ProcessesResource(t);
    this.reference = new ReferenceCache(
      {
        styleTypes: this.styleTypes,
        styleProperties: this.styleProperties,
        processes: this.processes,
        boms: this.boms,
      },
      { ttlMs: config.referenceTtlMs, clock },
    );
    this.naturalKeys = new NaturalKeys(this.products, this.orders, this.companies);
  }

  /**
   * How many rows (or pages) a job works on at once: `base`, or more where the key's allowance over this
   * client's round trips keeps more calls in flight (an API far away, a large allowance); read it as the work
   * goes, it follows the answers.
   */
  lanes(base: number): number {
    return this.transport.lanes(base);
  }

  /** API calls spent so far (by method/status and endpoint), 429s, retries and faults. */
  stats(): ClientMetricsSnapshot {
    return this.metrics.snapshot();
  }

  resetStats(): void {
    this.metrics.reset();
  }

  /** Closes pooled connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
