import { z } from 'zod';
import type { ExpectedOrder, ExpectedProduct, Level } from './inputs';

/** The parts of `GET /__sandbox/state` the comparison reads (the sandbox's own store, not the API's view). */
export const sandboxStateSchema = z.looseObject({
  catalogue: z.looseObject({
    products: z.array(
      z.looseObject({
        id: z.string(),
        level: z.string(),
        parentId: z.string().nullable(),
        externalId: z.string().nullable(),
        name: z.string(),
        color: z.string().nullable(),
        dimension: z.string().nullable(),
        isArchived: z.boolean(),
        codes: z.array(z.object({ codeId: z.string(), codeValue: z.string() })),
      }),
    ),
  }),
  orders: z.array(
    z.looseObject({
      id: z.string(),
      orderNumber: z.string(),
      supplierCompanyId: z.string(),
      orderDate: z.string().nullable(),
      deliveryDate: z.string().nullable(),
      isArchived: z.boolean(),
      lines: z.array(
        z.looseObject({
          orderLineNumber: z.string(),
          styleId: z.string(),
          quantity: z.number(),
          unit: z.string(),
        }),
      ),
    }),
  ),
});
export type SandboxState = z.infer<typeof sandboxStateSchema>;

export interface Discrepancies {
  /** Extra records for a key that must exist once (products by externalId, orders by number). */
  duplicateProducts: number;
  duplicateOrders: number;
  /** Keys of the input that the platform does not hold. */
  lostProducts: number;
  lostOrders: number;
  /** Orders present once but with missing, extra or different lines, or a wrong header. */
  halfAppliedOrders: number;
  /** Products present once but with a wrong parent, level, name, colour, size or codes. */
  wrongProducts: number;
  /** Records with the run's prefix that the input does not describe. */
  unexpectedProducts: number;
  unexpectedOrders: number;
  /** Up to 20 readable examples, for the failure message. */
  examples: string[];
}

/** What a run must end with: every count zero, no example. */
export function noDiscrepancies(): Discrepancies {
  return {
    duplicateProducts: 0,
    duplicateOrders: 0,
    lostProducts: 0,
    lostOrders: 0,
    halfAppliedOrders: 0,
    wrongProducts: 0,
    unexpectedProducts: 0,
    unexpectedOrders: 0,
    examples: [],
  };
}

export function totalProblems(d: Discrepancies): number {
  return (
    d.duplicateProducts +
    d.duplicateOrders +
    d.lostProducts +
    d.lostOrders +
    d.halfAppliedOrders +
    d.wrongProducts +
    d.unexpectedProducts +
    d.unexpectedOrders
  );
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * Compares the sandbox's state with what the inputs say it must hold, independently of the jobs' own results:
 * products are matched by externalId (parent by the parent's externalId), orders by number (lines by
 * orderLineNumber, products by externalId through the catalogue).
 */
export function compareState(
  state: SandboxState,
  expectedProducts: readonly ExpectedProduct[],
  expectedOrders: readonly ExpectedOrder[],
  prefix: string,
): Discrepancies {
  const d = noDiscrepancies();
  const note = (text: string) => {
    if (d.examples.length < 20) d.examples.push(text);
  };
  const products = state.catalogue.products;
  const externalIdOf = new Map(products.map((p) => [p.id, p.externalId]));

  const mine = products.filter((p) => p.externalId?.startsWith(`${prefix}-`));
  const byExternalId = groupBy(mine, (p) => p.externalId);
  const wanted = new Map(expectedProducts.map((p) => [p.externalId, p]));
  for (const [externalId, found] of byExternalId) {
    if (!wanted.has(externalId)) {
      d.unexpectedProducts += found.length;
      note(`product ${externalId}: not in the sheet`);
    }
  }
  for (const want of expectedProducts) {
    const found = byExternalId.get(want.externalId) ?? [];
    if (found.length === 0) {
      d.lostProducts += 1;
      note(`product ${want.externalId}: missing`);
      continue;
    }
    if (found.length > 1) {
      d.duplicateProducts += found.length - 1;
      note(`product ${want.externalId}: ${found.length} records`);
    }
    const got = found[0];
    if (!got) continue;
    const actual = {
      level: got.level as Level,
      parentExternalId: got.parentId === null ? null : (externalIdOf.get(got.parentId) ?? `?${got.parentId}`),
      name: got.name,
      color: got.color,
      dimension: got.dimension,
      codes: got.codes.map((c) => `${c.codeId}=${c.codeValue}`).sort(),
      archived: got.isArchived,
    };
    const expected = { ...want, archived: false };
    const differences = (Object.keys(actual) as (keyof typeof actual)[]).filter(
      (key) => JSON.stringify(actual[key]) !== JSON.stringify(expected[key]),
    );
    if (differences.length > 0) {
      d.wrongProducts += 1;
      note(
        `product ${want.externalId}: ${differences
          .map((key) => `${key} ${JSON.stringify(actual[key])} instead of ${JSON.stringify(expected[key])}`)
          .join(', ')}`,
      );
    }
  }

  const myOrders = state.orders.filter((o) => o.orderNumber.startsWith(`${prefix}-`));
  const byNumber = groupBy(myOrders, (o) => o.orderNumber);
  const wantedOrders = new Map(expectedOrders.map((o) => [o.orderNumber, o]));
  for (const [number, found] of byNumber) {
    if (!wantedOrders.has(number)) {
      d.unexpectedOrders += found.length;
      note(`order ${number}: not in the export`);
    }
  }
  for (const want of expectedOrders) {
    const found = byNumber.get(want.orderNumber) ?? [];
    if (found.length === 0) {
      d.lostOrders += 1;
      note(`order ${want.orderNumber}: missing`);
      continue;
    }
    if (found.length > 1) {
      d.duplicateOrders += found.length - 1;
      note(`order ${want.orderNumber}: ${found.length} records (${found.map((o) => o.id).join(', ')})`);
    }
    for (const got of found) {
      const lines = [...got.lines]
        .map((line) => ({
          orderLineNumber: line.orderLineNumber,
          productExternalId: externalIdOf.get(line.styleId) ?? `?${line.styleId}`,
          quantity: line.quantity,
          unit: line.unit,
        }))
        .sort((a, b) => a.orderLineNumber.localeCompare(b.orderLineNumber, 'en', { numeric: true }));
      const actual = {
        supplierCompanyId: got.supplierCompanyId,
        orderDate: got.orderDate,
        deliveryDate: got.deliveryDate,
        archived: got.isArchived,
        lines,
      };
      const expected = {
        supplierCompanyId: want.supplierCompanyId,
        orderDate: want.orderDate,
        deliveryDate: want.deliveryDate,
        archived: false,
        lines: want.lines,
      };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        d.halfAppliedOrders += 1;
        note(
          `order ${want.orderNumber} (${got.id}): holds ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
        );
      }
    }
  }
  return d;
}
