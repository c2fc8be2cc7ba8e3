/**
 * A line delete whose answer was lost is settled by a re-read only when the re-read shows it committed (spec 02:
 * "404 `bom_lines_not_found` | POST /bom-lines/delete | At least one requested line missing; nothing deleted", and
 * through an inherited link "deletion yields a copy without the deleted lines"). Otherwise the write's own
 * maybe-committed error stands.
 */
import { safeBomWrite } from '../../../connectors/bom-repair/safe-write';
import {
  TraceabilityApiError,
  type BomHeader,
  type BomLine,
  type TraceabilityClient,
} from '../../../connectors/traceability';
import { copyOf, line } from './fixtures';

const lostDelete = new TraceabilityApiError({
  statusCode: 404,
  code: 'bom_lines_not_found',
  message: 'POST /bom-lines/delete failed with 404 bom_lines_not_found',
  method: 'POST',
  path: '/bom-lines/delete',
  retryable: false,
  attempts: 2,
  maybeCommitted: true,
});

const header = (id: string, name: string, isOwner: boolean): BomHeader => ({
  id,
  name,
  link: { styleId: 'sku_1', isOwner },
});
const withTimes = (lines: ReturnType<typeof line>[]): BomLine[] =>
  lines.map((l) => ({ ...l, updatedAt: null }));

/** A client whose delete always fails as a lost answer would, reading `headers` (after the write) and `lines`. */
function client(before: BomHeader, after: BomHeader[], lines: Record<string, BomLine[]>): TraceabilityClient {
  let deleted = false;
  const boms = {
    listHeaders: async () => ({
      items: deleted ? after : [before],
      pagination: { page: 1, limit: 100, total: 1, totalPages: 1 },
    }),
    iterateHeaders: async function* () {
      yield* after;
    },
    listLines: async (query?: { bomHeaderId?: string }) => {
      const items = lines[query?.bomHeaderId ?? ''] ?? [];
      return { items, pagination: { page: 1, limit: 100, total: items.length, totalPages: 1 } };
    },
    replaceLine: async (id: string) => ({ ...(lines['bomhdr_fork'] ?? []).find((l) => l.id === id) }),
    deleteLines: async () => {
      deleted = true;
      throw lostDelete;
    },
  };
  return { boms } as unknown as TraceabilityClient;
}

describe('safeBomWrite: a line delete whose answer was lost', () => {
  const source = withTimes([line({ styleId: 'style_a' }), line({ styleId: 'style_b', quantity: 2 })]);
  const [kept, doomed] = source as [BomLine, BomLine];
  const edit = { kind: 'delete' as const, lineIds: [doomed.id] };

  it('the one copy of the source’s name holding the snapshot less the line: settled as the delete’s fork', async () => {
    const inherited = header('bomhdr_src', 'Tee', false);
    const fork = header('bomhdr_fork', 'Tee (Copy)', true);
    const copy = { ...copyOf(kept), updatedAt: null };
    const result = await safeBomWrite(
      client(inherited, [fork], { bomhdr_src: source, bomhdr_fork: [copy] }),
      { entityStyleId: 'sku_1', bomHeaderId: 'bomhdr_src', edit },
    );
    expect(result).toMatchObject({ bomHeaderId: 'bomhdr_fork', forked: true, problems: [] });
    expect(result.repairs).toEqual([expect.objectContaining({ lineId: copy.id, sourceLineId: kept.id })]);
  });

  it('through the owner, a line still on the header: the maybe-committed error stands', async () => {
    const owned = header('bomhdr_src', 'Tee', true);
    const write = safeBomWrite(client(owned, [owned], { bomhdr_src: source }), {
      entityStyleId: 'sku_1',
      bomHeaderId: 'bomhdr_src',
      edit,
    });
    await expect(write).rejects.toBe(lostDelete);
  });

  it('through an inherited link the product still links: no copy was made, the error stands', async () => {
    const inherited = header('bomhdr_src', 'Tee', false);
    const write = safeBomWrite(client(inherited, [inherited], { bomhdr_src: source }), {
      entityStyleId: 'sku_1',
      bomHeaderId: 'bomhdr_src',
      edit,
    });
    await expect(write).rejects.toBe(lostDelete);
  });

  it('a copy that still holds the line’s values (someone else’s fork): the error stands', async () => {
    const inherited = header('bomhdr_src', 'Tee', false);
    const fork = header('bomhdr_fork', 'Tee (Copy)', true);
    const lines = { bomhdr_src: source, bomhdr_fork: withTimes([copyOf(kept), copyOf(doomed)]) };
    const write = safeBomWrite(client(inherited, [fork], lines), {
      entityStyleId: 'sku_1',
      bomHeaderId: 'bomhdr_src',
      edit,
    });
    await expect(write).rejects.toBe(lostDelete);
  });

  it('two copies of that name: which one is the delete’s is not known, the error stands', async () => {
    const inherited = header('bomhdr_src', 'Tee', false);
    const forks = [header('bomhdr_fork', 'Tee (Copy)', true), header('bomhdr_fork2', 'Tee (Copy)', true)];
    const lines = {
      bomhdr_src: source,
      bomhdr_fork: withTimes([copyOf(kept)]),
      bomhdr_fork2: withTimes([copyOf(kept)]),
    };
    const write = safeBomWrite(client(inherited, forks, lines), {
      entityStyleId: 'sku_1',
      bomHeaderId: 'bomhdr_src',
      edit,
    });
    await expect(write).rejects.toBe(lostDelete);
  });
});
