import { z } from 'zod';
import { inputProblems } from '../config-problems';
import { utcTimestampMs } from '../traceability/timestamps';

/** Name of a `sinceLastRun` high-water mark. */
export const markNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,80}$/, 'use letters, digits, dot, dash or underscore (at most 80)');

/**
 * Input of the `bomRepair` workflow: plain JSON for the Web UI and schedules. Exactly one selector:
 * `{"products": ["PLM-TEE-001-BLK-M"]}`, `{"updatedAfter": "2025-06-01T00:00:00Z"}`, `{"all": true}` or `{"sinceLastRun": true}`.
 * This module stays free of Node built-ins: the workflow imports it.
 */
export const repairBomInputSchema = z
  .strictObject({
    /** Platform ids or externalIds; a style or variant also covers the variants and SKUs below it. */
    products: z.array(z.string().trim().min(1)).min(1).optional(),
    /**
     * ISO 8601 time: variants and SKUs whose record changed at or after it. Without a zone it is UTC, as the
     * platform's `updatedAt` is (`2025-06-01T08:00` is 08:00 UTC on every worker).
     */
    updatedAfter: z.string().optional(),
    all: z.literal(true).optional(),
    /**
     * Products owning a BOM header created or changed since the previous such run (its high-water mark is kept in
     * TRACE_DATA_DIR/bom-repair/). Sees forks a product's own `updatedAt` does not show.
     */
    sinceLastRun: z.literal(true).optional(),
    /** Name of the high-water mark `sinceLastRun` uses (one per schedule). Default `default`. */
    markName: markNameSchema.optional(),
    /**
     * A copied line whose source line changed after the fork is ambiguous (its component at fork time is not
     * known). `true` accepts the source's current component for such lines.
     */
    acceptCurrentSource: z.boolean().optional(),
    /** List the repairs without writing. */
    dryRun: z.boolean().optional(),
    /** Fork header name to source header name, for BOMs renamed when they forked. */
    sourceNames: z.record(z.string(), z.string().min(1)).optional(),
    /** Products per repair activity. Default 25. */
    batchSize: z.number().int().min(1).max(200).optional(),
  })
  .superRefine((input, ctx) => {
    const given = [
      input.products !== undefined,
      input.updatedAfter !== undefined,
      input.all !== undefined,
      input.sinceLastRun !== undefined,
    ].filter(Boolean).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `give exactly one of products, updatedAfter, all or sinceLastRun (got ${given})`,
      });
    }
    if (input.markName !== undefined && input.sinceLastRun === undefined) {
      ctx.addIssue({ code: 'custom', path: ['markName'], message: 'markName goes with sinceLastRun' });
    }
    if (input.updatedAfter !== undefined && !isIsoTime(input.updatedAfter)) {
      ctx.addIssue({
        code: 'custom',
        path: ['updatedAfter'],
        input: input.updatedAfter,
        message: `'${input.updatedAfter}' is not an ISO 8601 time such as 2025-06-01T00:00:00Z`,
      });
    }
  });
export type RepairBomInput = z.input<typeof repairBomInputSchema>;

function isIsoTime(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) &&
    !Number.isNaN(utcTimestampMs(text))
  );
}

export const productSelectorSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('products'), products: z.array(z.string().min(1)).min(1) }),
  z.strictObject({ kind: z.literal('updatedAfter'), updatedAfterUnixMs: z.number().int() }),
  z.strictObject({ kind: z.literal('all') }),
  z.strictObject({ kind: z.literal('sinceLastRun'), markName: markNameSchema }),
]);
export type ProductSelector = z.infer<typeof productSelectorSchema>;

/** Throws a message naming each problem (the workflow turns it into a non-retryable failure). */
export function parseRepairBomInput(raw: unknown) {
  const parsed = repairBomInputSchema.safeParse(raw ?? {}, { reportInput: true });
  if (!parsed.success) throw new Error(inputProblems(repairBomInputSchema, parsed.error));
  const input = parsed.data;
  const selector: ProductSelector =
    input.products !== undefined
      ? { kind: 'products', products: [...new Set(input.products)] }
      : input.updatedAfter !== undefined
        ? { kind: 'updatedAfter', updatedAfterUnixMs: utcTimestampMs(input.updatedAfter) }
        : input.sinceLastRun
          ? { kind: 'sinceLastRun', markName: input.markName ?? 'default' }
          : { kind: 'all' };
  return {
    selector,
    dryRun: input.dryRun ?? false,
    sourceNames: input.sourceNames ?? {},
    batchSize: input.batchSize ?? 25,
    acceptCurrentSource: input.acceptCurrentSource ?? false,
  };
}

/** A short, id-safe label: `products-PLM-TEE-001`, `products-3`, `updated-after-2025-06-01T00-00-00Z`, `all`. */
export function selectorLabel(selector: ProductSelector): string {
  switch (selector.kind) {
    case 'products':
      return selector.products.length === 1
        ? `products-${selector.products[0] ?? ''}`
        : `products-${selector.products.length}`;
    case 'updatedAfter':
      return `updated-after-${new Date(selector.updatedAfterUnixMs).toISOString().replace(/[:.]/g, '-')}`;
    case 'all':
      return 'all';
    case 'sinceLastRun':
      return selector.markName === 'default' ? 'since-last-run' : `since-last-run-${selector.markName}`;
  }
}
