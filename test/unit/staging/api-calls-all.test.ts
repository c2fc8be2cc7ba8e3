/**
 * Spec 01 gives the lists (GET /orders aside) no order among equal sort values, so records tied on the sort can come
 * in another order on each page: a plain page loop then meets one twice and misses another. `ApiCalls.all` reads
 * through `readList`, each record once by id, its count checked against page 1's `total`.
 */
import { ApiCalls } from '../../../connectors/staging';
import type { Page, TraceabilityClient } from '../../../connectors/traceability';

interface Rec {
  id: string;
}

const others: Rec[] = Array.from({ length: 99 }, (_, n) => ({ id: `r_${n}` }));
const tieA: Rec = { id: 'tie_a' };
const tieB: Rec = { id: 'tie_b' };

/** 101 records over 2 pages of 100; on the reads `shuffled` names (1-based) page 2 sorts the tie the other way. */
function tiedPages(shuffled: (read: number) => boolean) {
  let calls = 0;
  return jest.fn((page: number, limit: number): Promise<Page<Rec>> => {
    const read = Math.floor(calls++ / 2) + 1;
    const tie = shuffled(read) && page === 2 ? [tieB, tieA] : [tieA, tieB];
    const all = [...others, ...tie];
    return Promise.resolve({
      items: all.slice((page - 1) * limit, page * limit),
      pagination: { page, limit, total: all.length, totalPages: Math.ceil(all.length / limit) },
    });
  });
}

const api = () => new ApiCalls({} as TraceabilityClient);
const everyId = [...others, tieA, tieB].map((rec) => rec.id).sort();

describe('ApiCalls.all under ties in another order per page', () => {
  it('reads a list that held whole in as many calls as there are pages, each record once', async () => {
    const calls = api();
    const fetchPage = tiedPages(() => false);
    const items = await calls.all('GET /things', fetchPage);
    expect(items.map((rec) => rec.id).sort()).toEqual(everyId);
    expect(fetchPage).toHaveBeenCalledTimes(2);
    expect(calls.count).toBe(2);
  });

  it('reuses a first page already read: one more call for a 2-page list', async () => {
    const calls = api();
    const fetchPage = tiedPages(() => false);
    const first = await fetchPage(1, 100);
    const items = await calls.all('GET /things', fetchPage, first);
    expect(items).toHaveLength(101);
    expect(fetchPage).toHaveBeenCalledTimes(2);
    expect(calls.count).toBe(1);
  });

  it('gives each record once and reads the list again when a page missed one', async () => {
    const calls = api();
    const fetchPage = tiedPages((read) => read === 1);
    const items = await calls.all('GET /things', fetchPage);
    expect(items.map((rec) => rec.id).sort()).toEqual(everyId);
    expect(fetchPage).toHaveBeenCalledTimes(4);
    expect(calls.count).toBe(4);
  });

  it('throws, to be retried, naming the endpoint and the shortfall, when every read misses a record', async () => {
    const calls = api();
    const fetchPage = tiedPages(() => true);
    await expect(calls.all('GET /things', fetchPage)).rejects.toThrow(
      /GET \/things .*101 listed, 100 read since that count/,
    );
    expect(fetchPage).toHaveBeenCalledTimes(6);
  });

  // A server that reshuffles its ties on every query may miss a record on each read, a different one each time: no
  // single read is whole, their union is.
  it('unions the reads while the total holds, so a list no single read gives whole is still read whole', async () => {
    const calls = api();
    let made = 0;
    const fetchPage = jest.fn((page: number, limit: number): Promise<Page<Rec>> => {
      const read = Math.floor(made++ / 2) + 1;
      const shown = read % 2 === 1 ? tieA : tieB;
      const items = page === 1 ? [...others, shown] : [shown];
      return Promise.resolve({ items, pagination: { page, limit, total: 101, totalPages: 2 } });
    });
    const items = await calls.all('GET /things', fetchPage);
    expect(items.map((rec) => rec.id).sort()).toEqual(everyId);
    // The second read's page 1 brings the count to the total: its page 2 is not needed.
    expect(calls.count).toBe(3);
  });

  it('an empty list costs one call', async () => {
    const calls = api();
    const fetchPage = jest.fn((page: number, limit: number): Promise<Page<Rec>> =>
      Promise.resolve({ items: [], pagination: { page, limit, total: 0, totalPages: 0 } }),
    );
    await expect(calls.all('GET /things', fetchPage)).resolves.toEqual([]);
    expect(calls.count).toBe(1);
  });
});
