import {
  IncrementalSync,
  collect,
  paginate,
  type Page,
  type UpdatedWindowQuery,
} from '../../../connectors/traceability/pagination';

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
});
