/**
 * Spec 01, Shared conventions 3 and 4: list successes carry `metadata.pagination` with integer fields `page`, `limit`,
 * `total`, `totalPages`; "`page` is 1-based (default 1) [...] Iterate until `page` reaches `totalPages`". `readList`
 * is the one place a job reads a paged list whole; these tests hold it to that against a fake page source.
 */
import { readList, type Page } from '../../../connectors/traceability/pagination';

interface Rec {
  id: string;
  v?: number;
}

/** A list endpoint over `records` (offset paging); `before(page)` may change the list before that page is served. */
function source(records: Rec[], before: (page: number) => void = () => undefined) {
  const calls: number[] = [];
  const fetchPage = async (page: number, limit: number): Promise<Page<Rec>> => {
    calls.push(page);
    before(page);
    const start = (page - 1) * limit;
    return {
      items: records.slice(start, start + limit).map((r) => ({ ...r })),
      pagination: { page, limit, total: records.length, totalPages: Math.ceil(records.length / limit) },
    };
  };
  return { fetchPage, calls };
}

const recs = (n: number, from = 0): Rec[] =>
  Array.from({ length: n }, (_, i) => ({ id: `r${String(i + from).padStart(3, '0')}` }));

describe('readList: "Iterate until `page` reaches `totalPages`"', () => {
  it('reads every page once and holds the whole list', async () => {
    const { fetchPage, calls } = source(recs(7));
    const read = await readList(fetchPage, { limit: 3 });
    expect(read.items.map((r) => r.id)).toEqual(recs(7).map((r) => r.id));
    expect(calls).toEqual([1, 2, 3]);
    expect(read).toMatchObject({ total: 7, reads: 1 });
    expect(read.moved).toBeUndefined();
  });

  it('totalPages 0: one call, an empty whole list', async () => {
    const { fetchPage, calls } = source([]);
    const read = await readList(fetchPage, {});
    expect(read).toMatchObject({ items: [], total: 0 });
    expect(read.moved).toBeUndefined();
    expect(calls).toEqual([1]);
  });

  it('a list that grows between pages is reported as moved (its total changed)', async () => {
    const list = recs(6);
    const { fetchPage, calls } = source(list, (page) => {
      if (page === 2) list.unshift({ id: 'new' });
    });
    const read = await readList(fetchPage, { limit: 3 });
    expect(calls).toEqual([1, 2, 3]);
    expect(read.moved).toBe('its total went 6 -> 7 between pages');
  });

  it('a list that shrinks between pages is moved, and a record shifted onto a read page is not read', async () => {
    const list = recs(6);
    const { fetchPage } = source(list, (page) => {
      if (page === 2) list.shift();
    });
    const read = await readList(fetchPage, { limit: 3 });
    expect(read.items.map((r) => r.id)).not.toContain('r003');
    expect(read.moved).toBe('its total went 6 -> 5 between pages');
  });

  it("moved 'shrink': growth (records added after the pages read) is no move, shrinking is", async () => {
    const grows = recs(6);
    const grown = await readList(
      source(grows, (page) => {
        if (page === 2) grows.push({ id: 'late' });
      }).fetchPage,
      { limit: 3, moved: 'shrink' },
    );
    expect(grown.moved).toBeUndefined();
    const shrinks = recs(6);
    const shrunk = await readList(
      source(shrinks, (page) => {
        if (page === 2) shrinks.pop();
      }).fetchPage,
      { limit: 3, moved: 'shrink' },
    );
    expect(shrunk.moved).toBe('its total went 6 -> 5 between pages');
  });

  it("moved 'shrink': a record met twice while another is missed, the total unchanged, is a move", async () => {
    // Records with equal sort values answered in another order on page 2: r000 comes again, r005 never.
    const ties = recs(6);
    const read = await readList(
      source(ties, (page) => {
        if (page === 2) ties.reverse();
      }).fetchPage,
      { limit: 3, moved: 'shrink' },
    );
    expect(read.moved).toBe('6 listed, 3 distinct read');
  });

  it('a repeated record counts once: the first copy by default, the latest with keep "latest"', async () => {
    // Before page 2, r000 moves to the end with a new value: r003 shifts onto page 1, read already.
    const movedToEnd = (list: Rec[]) => (page: number) => {
      if (page !== 2) return;
      list.shift();
      list.push({ id: 'r000', v: 2 });
    };
    const a = recs(6);
    const read = await readList(source(a, movedToEnd(a)).fetchPage, { limit: 3 });
    expect(read.items.filter((r) => r.id === 'r000')).toEqual([{ id: 'r000' }]);
    expect(read.items.map((r) => r.id)).not.toContain('r003');
    expect(read.moved).toBe('6 listed, 5 distinct read');
    const b = recs(6);
    const latest = await readList(source(b, movedToEnd(b)).fetchPage, { limit: 3, keep: 'latest' });
    expect(latest.items.filter((r) => r.id === 'r000')).toEqual([{ id: 'r000', v: 2 }]);
    expect(latest.items[0]?.id).toBe('r000');
  });

  it('reads again up to `reads` times until a read is whole', async () => {
    const list = recs(6);
    let served = 0;
    const { fetchPage, calls } = source(list, () => {
      served += 1;
      if (served === 2) list.shift(); // during the first read only
    });
    const read = await readList(fetchPage, { limit: 3, reads: 3 });
    expect(read).toMatchObject({ reads: 2, total: 5 });
    expect(read.moved).toBeUndefined();
    expect(read.items.map((r) => r.id)).toEqual(recs(5, 1).map((r) => r.id));
    expect(calls).toEqual([1, 2, 1, 2]);
  });

  it('countAcross: ids counted stay counted while the total stays, and the read stops once they cover it', async () => {
    const list = recs(9);
    let served = 0;
    const { fetchPage, calls } = source(list, () => {
      served += 1;
      if (served === 2) list.splice(1, 1); // r001 leaves after page 1: r003 shifts onto page 1
    });
    const read = await readList(fetchPage, { limit: 3, reads: 5, countAcross: true });
    expect(read.moved).toBeUndefined();
    // Read 1 counted 6 of 8 after the total changed (pages 2 and 3); read 2 stops at page 1, which adds r003.
    expect(calls).toEqual([1, 2, 3, 1]);
    // The items are the ones counted against the latest total: r001, read before it left, is not in the list now.
    expect(read.items.map((r) => r.id).sort()).toEqual(list.map((r) => r.id));
  });

  it('gives up after `reads` reads of a list that keeps moving, saying how', async () => {
    const list = recs(6);
    let served = 0;
    const { fetchPage, calls } = source(list, (page) => {
      served += 1;
      if (page === 2) list.push({ id: `n${served}` });
    });
    const read = await readList(fetchPage, { limit: 3, reads: 2 });
    expect(calls).toHaveLength(6);
    expect(read.reads).toBe(2);
    expect(read.moved).toMatch(/^its total went \d+ -> \d+ between pages$/);
  });

  it('each page is asked with the number of the read asking it, so a read again can use another sort', async () => {
    const list = recs(6);
    const asked: Array<[number, number]> = [];
    // Read 1 (a sort with ties) serves page 1 again as page 2; read 2 (another sort) serves every record.
    const fetchPage = async (page: number, limit: number, read: number): Promise<Page<Rec>> => {
      asked.push([page, read]);
      const start = (read === 1 ? 0 : page - 1) * limit;
      return {
        items: list.slice(start, start + limit),
        pagination: { page, limit, total: list.length, totalPages: Math.ceil(list.length / limit) },
      };
    };
    const first = await fetchPage(1, 3, 1);
    const read = await readList(fetchPage, { limit: 3, first, reads: 3, countAcross: true });
    expect(read.moved).toBeUndefined();
    expect(asked).toEqual([
      [1, 1],
      [2, 1],
      [1, 2],
      [2, 2],
    ]);
    expect(read.items.map((r) => r.id).sort()).toEqual(list.map((r) => r.id));
  });

  it('first: a page 1 already read is not asked again; schedule runs pages 2..totalPages of it', async () => {
    const { fetchPage, calls } = source(recs(7));
    const first = await fetchPage(1, 3);
    const scheduled: number[][] = [];
    const read = await readList(fetchPage, {
      limit: 3,
      first,
      schedule: async (pages, run) => {
        scheduled.push(pages);
        await Promise.all([...pages].reverse().map(run));
      },
    });
    expect(calls).toEqual([1, 3, 2]);
    expect(scheduled).toEqual([[2, 3]]);
    expect(read.items.map((r) => r.id).sort()).toEqual(recs(7).map((r) => r.id));
  });

  it("refuses a page whose pagination is not the spec's integers, naming the page and field", async () => {
    const bad = async (page: number): Promise<Page<Rec>> => ({
      items: [],
      pagination: { page, limit: 100, total: 1.5, totalPages: 1 },
    });
    await expect(readList(bad, {})).rejects.toThrow(/page 1: pagination\.total/);
  });
});
