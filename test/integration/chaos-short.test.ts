import { compareState, noDiscrepancies, type SandboxState } from '../chaos/compare';
import { orderExport, plmSheet } from '../chaos/inputs';
import { chaosSeed, SHORT_CHAOS } from '../chaos/profiles';
import { runChaos, type ChaosFigures } from '../chaos/scenario';
import { seededRandom } from '../../sandbox/core/prng';

/**
 * The short chaos run of `npm test` (the full one is `npm run test:chaos`): a 200-row PLM import and a 60-order
 * push at once, the worker process SIGKILLed twice mid-write and restarted, the sandbox and a proxy injecting 5xx,
 * 429 bursts, drops after commit and slow answers beyond the client's timeout. The platform must end up exactly as
 * the inputs say.
 */
describe('chaos (short): worker kills and API faults during a PLM import and an ERP push', () => {
  let figures: ChaosFigures;

  beforeAll(async () => {
    figures = await runChaos({ ...SHORT_CHAOS, seed: chaosSeed() });
  }, SHORT_CHAOS.deadlineMs + 60_000);

  it('kills the worker as many times as planned, and both jobs complete without rejecting a row', () => {
    expect(figures.kills).toBe(SHORT_CHAOS.kills);
    expect(figures.workerStarts).toBe(SHORT_CHAOS.kills + 1);
    expect(figures.unexpectedWorkerExits).toEqual([]);
    expect(figures.jobs.plm).toMatchObject({ status: 'completed', rejected: 0 });
    expect(figures.jobs.erp).toMatchObject({ status: 'completed', rejected: 0 });
  });

  it('injected faults of every kind', () => {
    const injected = figures.faults;
    expect(injected.serverErrors + injected.burst429 + injected.droppedAfterCommit).toBeGreaterThan(0);
    // Every phase meets traffic and slows its first request: the client (TRACE_API_TIMEOUT_MS) gave up on them.
    expect(injected.slowAnswersAfterCommit).toBeGreaterThan(0);
    expect(injected.slowClientGaveUp).toBeGreaterThan(0);
  });

  it('leaves the platform exactly as the inputs say: no duplicate, no loss, no half-applied order', () => {
    expect(figures.outcome).toEqual(noDiscrepancies());
  });
});

/** The comparison the chaos runs rely on sees each kind of damage (so their zeros mean something). */
describe('chaos state comparison', () => {
  const sheet = plmSheet('TST', 1, 2, 2);
  const orders = orderExport('TST', 3, seededRandom(7));
  const demo = ['PLM-TEE-001-BLK', 'PLM-TEE-001-OWH', 'PLM-JKT-010-NVY', 'CMP-BTN-15'].map((externalId) => ({
    id: `id-${externalId}`,
    level: 'variant',
    parentId: null,
    externalId,
    name: externalId,
    color: null,
    dimension: null,
    isArchived: false,
    codes: [],
  }));
  /** The state a perfect run leaves. */
  const perfect = (): SandboxState => ({
    catalogue: {
      products: [
        ...demo,
        ...sheet.expected.map((p) => ({
          id: `id-${p.externalId}`,
          level: p.level,
          parentId: p.parentExternalId === null ? null : `id-${p.parentExternalId}`,
          externalId: p.externalId,
          name: p.name,
          color: p.color,
          dimension: p.dimension,
          isArchived: false,
          codes: p.codes.map((code) => ({
            codeId: code.split('=')[0] as string,
            codeValue: code.split('=')[1] as string,
          })),
        })),
      ],
    },
    orders: orders.expected.map((o, index) => ({
      id: `order-${index}`,
      orderNumber: o.orderNumber,
      supplierCompanyId: o.supplierCompanyId,
      orderDate: o.orderDate,
      deliveryDate: o.deliveryDate,
      isArchived: false,
      lines: o.lines.map((line) => ({
        orderLineNumber: line.orderLineNumber,
        styleId: `id-${line.productExternalId}`,
        quantity: line.quantity,
        unit: line.unit,
      })),
    })),
  });

  it('finds nothing wrong in the state a perfect run leaves', () => {
    expect(compareState(perfect(), sheet.expected, orders.expected, 'TST').examples).toEqual([]);
  });

  it('counts duplicates, losses, half-applied orders and wrong products', () => {
    const state = perfect();
    const [first, second, third] = state.orders;
    if (!first || !second || !third) throw new Error('three orders expected');
    state.orders.push({ ...first, id: 'order-dup' });
    state.orders = state.orders.filter((o) => o !== second);
    third.lines =
      third.lines.slice(1).length > 0
        ? third.lines.slice(1)
        : [{ ...(third.lines[0] as (typeof third.lines)[number]), quantity: 1_000_000 }];
    const products = state.catalogue.products;
    const sku = products.find((p) => p.externalId === 'TST-S1-C1-Z1');
    if (sku) sku.parentId = 'id-TST-S1-C2';
    products.push({
      ...(products.find((p) => p.externalId === 'TST-S1') as (typeof products)[number]),
      id: 'style-dup',
    });
    state.catalogue.products = products.filter((p) => p.externalId !== 'TST-S1-C2-Z2');
    const { examples, ...counts } = compareState(state, sheet.expected, orders.expected, 'TST');
    expect(counts).toEqual({
      duplicateProducts: 1,
      duplicateOrders: 1,
      lostProducts: 1,
      lostOrders: 1,
      halfAppliedOrders: 1,
      wrongProducts: 1,
      unexpectedProducts: 0,
      unexpectedOrders: 0,
    });
    expect(examples).toContainEqual(
      expect.stringMatching(/^product TST-S1-C1-Z1: parentExternalId "TST-S1-C2" instead of "TST-S1-C1"/),
    );
  });
});
