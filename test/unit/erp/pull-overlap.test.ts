/**
 * Two ERP pulls at once, on two workers sharing one run-data store (as with TRACE_STORE_URL=s3://…): both start from
 * the same mark. Pull A listed before an order changed, pull B after; B writes its export, A then writes its own, and
 * B's mark lands last. Every order must still be in some export file, and the mark must not pass an order no file
 * holds. The store is a folder here, its writes held so the steps interleave in exactly that order.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pullOrders } from '../../../connectors/erp-pull/pull';
import { ApiCalls } from '../../../connectors/staging';
import { bindDataDir, LocalStore, type StoreBody } from '../../../connectors/storage';
import { TraceabilityClient } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

const BRAND = 'cmp_brand_nordic_threads';
const SUPPLIER = 'cmp_sup_anatolia_garments';
const EXPORTS = 'exports/orders/';
const MARK = `${EXPORTS}high-water-mark.json`;

/** A folder store whose writes first wait for `before(key)`. */
class HeldStore extends LocalStore {
  constructor(
    root: string,
    private readonly before: (key: string) => Promise<void>,
  ) {
    super(root);
  }
  override async put(key: string, body: StoreBody): Promise<void> {
    await this.before(key);
    return super.put(key, body);
  }
  override async putIfAbsent(key: string, body: string | Buffer): Promise<boolean> {
    await this.before(key);
    return super.putIfAbsent(key, body);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('two ERP pulls at once on a shared store', () => {
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let dir: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
    dir = await mkdtemp(path.join(tmpdir(), 'erp-pull-overlap-'));
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  const createOrder = (orderNumber: string) =>
    client.orders.create({
      orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 1, unit: 'PIECES' as const }],
    });

  it('B writes its export, A (which listed before an order changed) writes its own, B moves the mark last: no order is lost', async () => {
    const storeDir = path.join(dir, 'store');
    const [dataA, dataB] = [path.join(dir, 'worker-a'), path.join(dir, 'worker-b')];
    const aListed = deferred();
    const bExported = deferred();
    let aHeld = false;
    let bHeld = false;
    bindDataDir(
      dataA,
      new HeldStore(storeDir, async (key) => {
        if (aHeld || !key.startsWith(`${EXPORTS}orders-`)) return;
        aHeld = true;
        aListed.resolve();
        await bExported.promise;
      }),
    );
    bindDataDir(
      dataB,
      new HeldStore(storeDir, async (key) => {
        if (bHeld || !key.startsWith(MARK)) return;
        bHeld = true;
        bExported.resolve();
        await aDone.catch(() => undefined);
      }),
    );

    await createOrder('OVERLAP-1');
    const aDone = pullOrders(new ApiCalls(client), dataA, () => undefined);
    await aListed.promise;
    await createOrder('OVERLAP-2');
    const b = await pullOrders(new ApiCalls(client), dataB, () => undefined);
    const a = await aDone;
    expect(a.orders).toBe(1);
    expect(b.orders).toBe(2);

    const numbers = async (file: string): Promise<string[]> =>
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { orderNumber: string }).orderNumber);
    // A later pull finds nothing new, and every order is in some export of the store.
    expect((await pullOrders(new ApiCalls(client), dataA, () => undefined)).orders).toBe(0);
    const folder = path.join(storeDir, ...EXPORTS.split('/'));
    const exported = new Set<string>();
    for (const name of await readdir(folder))
      if (name.endsWith('.ndjson')) for (const n of await numbers(path.join(folder, name))) exported.add(n);
    expect([...exported].sort()).toEqual(['OVERLAP-1', 'OVERLAP-2']);
    // The mark never goes back: it is at least where B, the further pull, left it.
    const mark = JSON.parse(await readFile(path.join(storeDir, ...MARK.split('/')), 'utf8')) as {
      updatedAtMs: number;
    };
    expect(mark.updatedAtMs).toBe(Math.max(a.to.updatedAtMs, b.to.updatedAtMs));
    // Each pull's export still holds what it said it wrote.
    expect(a.files?.ndjson).not.toBe(b.files?.ndjson);
    expect(await numbers(a.files!.ndjson)).toEqual(['OVERLAP-1']);
    expect(await numbers(b.files!.ndjson)).toEqual(['OVERLAP-1', 'OVERLAP-2']);
  });

  // README, erp-pull: "written as NDJSON and CSV under TRACE_DATA_DIR/exports/orders/", where an ERP reads them; with
  // TRACE_STORE_URL they are published to the store as well, not only there.
  it('with the run-data store elsewhere, the export and the mark are on the worker disk too', async () => {
    const storeDir = path.join(dir, 'elsewhere');
    const dataC = path.join(dir, 'worker-c');
    bindDataDir(dataC, new LocalStore(storeDir));
    await createOrder('ELSEWHERE-1');
    const pulled = await pullOrders(new ApiCalls(client), dataC, () => undefined);
    expect(pulled.orders).toBeGreaterThan(0);
    const local = await readdir(path.join(dataC, ...EXPORTS.split('/')));
    const stored = await readdir(path.join(storeDir, ...EXPORTS.split('/')));
    expect(local.sort()).toEqual(stored.sort());
    expect(
      local.filter((name) => /^orders-updated-after-.*-through-.*\.(ndjson|csv)$/.test(name)),
    ).toHaveLength(2);
    expect(local).toContain('high-water-mark.json');
  });
});
