import { BomLinesUnsettledError, LINE_LIST_READS, readLines } from '../../../connectors/bom-repair/lines';
import type { BomLine, TraceabilityClient } from '../../../connectors/traceability';
import { line } from './fixtures';

type ListLines = TraceabilityClient['boms']['listLines'];

/** A client whose GET /bom-lines pages `lines` (ids sorted) as `order` arranges them for each query. */
function pagedClient(lines: BomLine[], order: (lines: BomLine[], call: number) => BomLine[] = (l) => l) {
  const queries: Array<{ page: number; limit: number }> = [];
  const listLines: ListLines = async (query) => {
    const page = query?.page ?? 1;
    const limit = query?.limit ?? 20;
    queries.push({ page, limit });
    const arranged = order(lines, queries.length);
    return {
      items: arranged.slice((page - 1) * limit, page * limit),
      pagination: { page, limit, total: lines.length, totalPages: Math.ceil(lines.length / limit) },
    };
  };
  const client = { boms: { listLines } } as unknown as TraceabilityClient;
  return { client, queries };
}

const fork = (count: number): BomLine[] =>
  Array.from({ length: count }, (_, i) => ({ ...line({ quantity: i + 1 }), updatedAt: null }));

describe('readLines (spec 01: "Iterate until `page` reaches `totalPages`")', () => {
  it('without ties reads each page once: as many calls as pages', async () => {
    const lines = fork(150);
    const { client, queries } = pagedClient(lines);
    expect((await readLines(client, 'bomhdr_fork')).map((l) => l.id)).toEqual(lines.map((l) => l.id));
    expect(queries).toEqual([
      { page: 1, limit: 100 },
      { page: 2, limit: 100 },
    ]);
  });

  it('ties answered in another order per page: every line once, reading the pages again until all are met', async () => {
    const lines = fork(150);
    // Lines that all share `createdAt`: the second query answers them reversed, so its page 2 repeats page 1's.
    const { client, queries } = pagedClient(lines, (l, call) => (call === 2 ? [...l].reverse() : l));
    const read = await readLines(client, 'bomhdr_fork');
    expect(read).toHaveLength(150);
    expect(new Set(read.map((l) => l.id)).size).toBe(150);
    expect(queries.map((q) => q.page)).toEqual([1, 2, 1, 2]);
  });

  it('a line the total counts but no page ever lists: one clear error naming the header and the counts', async () => {
    const lines = fork(120);
    const { client, queries } = pagedClient(lines, (l) => [...l.slice(0, 119), l[0]!]);
    const error = await readLines(client, 'bomhdr_fork').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BomLinesUnsettledError);
    expect((error as Error).message).toContain(
      `BOM bomhdr_fork: the API counts 120 lines but ${LINE_LIST_READS} reads of its pages listed 119`,
    );
    expect(queries).toHaveLength(2 * LINE_LIST_READS);
  });
});
