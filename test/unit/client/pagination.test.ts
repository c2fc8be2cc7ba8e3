import { TraceabilityClient } from '../../../connectors/traceability';
import {
  IncrementalSync,
  collect,
  paginate,
  type Page,
  type UpdatedWindowQuery,
} from '../../../connectors/traceability/pagination';
import { order, sendJson, startStub } from './stub-server';

interface Item {
  id: string;
  updatedAt: string;
}

const at = (ms: number): string => new Date(ms).toISOString();

/** A list endpoint over `items` honouring inclusive updatedAfter/updatedBefore bounds, sorted ascending. */
function endpoint(items: Item[], calls: UpdatedWindowQuery[]) {
  return async (q: UpdatedWindowQuery): Promise<Page<Item>> => {
    calls.push(q);
    const matching = items
      .filter(
        (i) =>
          Date.parse(i.updatedAt) >= q.updatedAfterUnixMs &&
          (q.updatedBeforeUnixMs === undefined || Date.parse(i.updatedAt) <= q.updatedBeforeUnixMs),
      )
      .sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.id.localeCompare(b.id));
    const start = (q.page - 1) * q.limit;
    return {
      items: structuredClone(matching.slice(start, start + q.limit)),
      pagination: {
        page: q.page,
        limit: q.limit,
        total: matching.length,
        totalPages: Math.ceil(matching.length / q.limit),
      },
    };
  };
}

describe('paginate', () => {
  it('walks every page until totalPages with limit 100', async () => {
    const limits: number[] = [];
    const all = await collect(
      paginate(async (p, limit) => {
        limits.push(limit);
        return { items: [p * 10, p * 10 + 1], pagination: { page: p, limit, total: 6, totalPages: 3 } };
      }),
    );
    expect(all).toEqual([10, 11, 20, 21, 30, 31]);
    expect(limits).toEqual([100, 100, 100]);
  });

  it('stops on an empty list (totalPages 0)', async () => {
    let calls = 0;
    const all = await collect(
      paginate(
        async () => (calls++, { items: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0 } }),
      ),
    );
    expect(all).toEqual([]);
    expect(calls).toBe(1);
  });
});

describe('IncrementalSync', () => {
  it('delivers each record once and stores a mark that skips the inclusive bound next time', async () => {
    const items = Array.from({ length: 250 }, (_, i) => ({
      id: `r${i}`,
      updatedAt: at(1_000 + Math.floor(i / 2)),
    }));
    const calls: UpdatedWindowQuery[] = [];
    const first = new IncrementalSync(endpoint(items, calls), undefined, { limit: 100 });
    const seen = (await collect(first)).map((i) => i.id);
    expect(new Set(seen).size).toBe(250);
    expect(seen).toHaveLength(250);
    const mark = first.checkpoint();
    expect(mark).toEqual({ highWaterMarkMs: 1_124, idsAtHighWaterMark: ['r248', 'r249'] });

    items.push({ id: 'r250', updatedAt: at(1_124) }, { id: 'r0', updatedAt: at(5_000) });
    const second = new IncrementalSync(endpoint(items, []), mark);
    expect((await collect(second)).map((i) => i.id)).toEqual(['r250', 'r0']);
    expect(second.checkpoint()).toEqual({ highWaterMarkMs: 5_000, idsAtHighWaterMark: ['r0'] });
  });

  it('pages through a millisecond shared by more than a page of records', async () => {
    const items = [
      ...Array.from({ length: 7 }, (_, i) => ({ id: `same${i}`, updatedAt: at(2_000) })),
      { id: 'later', updatedAt: at(3_000) },
    ];
    const calls: UpdatedWindowQuery[] = [];
    const sync = new IncrementalSync(endpoint(items, calls), undefined, { limit: 3 });
    const ids = (await collect(sync)).map((i) => i.id);
    expect(ids.sort()).toEqual([...items.map((i) => i.id)].sort());
    expect(calls.some((c) => c.updatedBeforeUnixMs === 2_000)).toBe(true);
  });

  it('is not fooled by records updated while it pages', async () => {
    const items = Array.from({ length: 150 }, (_, i) => ({ id: `r${i}`, updatedAt: at(10_000 + i) }));
    const list = endpoint(items, []);
    let firstCall = true;
    const sync = new IncrementalSync(async (q) => {
      const result = await list(q);
      if (firstCall) {
        firstCall = false;
        // r5 (already delivered) and r120 (not yet) change during the run: both move to the end.
        (items[5] as Item).updatedAt = at(20_000);
        (items[120] as Item).updatedAt = at(20_001);
      }
      return result;
    });
    const ids = (await collect(sync)).map((i) => i.id);
    expect(new Set(ids).size).toBe(150);
    expect(ids.slice(-2)).toEqual(['r5', 'r120']);
  });
  // Spec 03, GET /orders: "both bounds inclusive"; "Paging order is stable for equal sort values". A record that
  // leaves a millisecond while it is paged shifts the pages after it: page 2 then starts one record later.
  it('reads a millisecond again when a record leaves it mid-drain, so none of the others is skipped', async () => {
    const ms = Date.parse('2025-03-01T10:00:00.000Z');
    const items = Array.from({ length: 150 }, (_, i) => ({
      id: `r${String(i).padStart(3, '0')}`,
      updatedAt: at(ms),
    }));
    const list = endpoint(items, []);
    let calls = 0;
    const sync = new IncrementalSync(
      async (q) => {
        calls += 1;
        // Another worker touches r010 (already delivered) after the first page of the drain was served.
        if (calls === 4) (items[10] as Item).updatedAt = at(ms + 5);
        return list(q);
      },
      { highWaterMarkMs: ms - 1, idsAtHighWaterMark: [] },
    );
    const ids = (await collect(sync)).map((i) => i.id);
    expect(new Set(ids).size).toBe(150);
    expect(ids.filter((id) => id === 'r100')).toHaveLength(1);
    expect(sync.checkpoint()).toEqual({ highWaterMarkMs: ms + 5, idsAtHighWaterMark: ['r010'] });
  });

  it('gives up with a clear error when a millisecond keeps changing while it is read', async () => {
    const ms = 50_000;
    const items = Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, updatedAt: at(ms) }));
    const list = endpoint(items, []);
    let calls = 0;
    const sync = new IncrementalSync(async (q) => {
      calls += 1;
      // Every read, one more record of that millisecond is updated again.
      (items[calls] as Item).updatedAt = at(ms + 1_000 + calls);
      return list(q);
    });
    await expect(collect(sync)).rejects.toThrow(
      /updatedAt 1970-01-01T00:00:50\.000Z: .* kept changing while read/,
    );
    expect(calls).toBeLessThan(40);
    expect(sync.checkpoint().highWaterMarkMs).toBe(ms);
  });
});

describe('orders.syncUpdated over HTTP', () => {
  it('delivers every order of a millisecond shared by more than a page although one leaves it mid-drain', async () => {
    const ms = Date.parse('2025-03-01T10:00:00.000Z');
    const rows = Array.from({ length: 150 }, (_, i) => ({
      id: `order_${String(i).padStart(3, '0')}`,
      orderNumber: `PO-${i}`,
      updatedAt: at(ms),
    }));
    const stub = await startStub((req, res, index) => {
      if (index === 3) (rows[10] as (typeof rows)[number]).updatedAt = at(ms + 5);
      const q = new URL(req.url, 'http://stub').searchParams;
      const after = Number(q.get('updatedAfterUnixMs'));
      const before = q.has('updatedBeforeUnixMs') ? Number(q.get('updatedBeforeUnixMs')) : Infinity;
      const pageNo = Number(q.get('page'));
      const limit = Number(q.get('limit'));
      const hits = rows
        .filter((r) => Date.parse(r.updatedAt) >= after && Date.parse(r.updatedAt) <= before)
        .sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
      sendJson(res, 200, {
        metadata: {
          success: true,
          pagination: { page: pageNo, limit, total: hits.length, totalPages: Math.ceil(hits.length / limit) },
        },
        data: hits.slice((pageNo - 1) * limit, pageNo * limit).map((r) => order(r)),
      });
    });
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: 'k' });
    const sync = client.orders.syncUpdated({}, { highWaterMarkMs: ms - 1, idsAtHighWaterMark: [] });
    const ids = new Set((await collect(sync)).map((o) => o.id));
    expect(ids.size).toBe(150);
    await client.close();
    await stub.close();
  });
});
