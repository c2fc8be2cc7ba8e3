import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  openFetchJournal,
  type CertificatePageFetcher,
  type CertificatePageQuery,
} from '../../../activities/certificate-fetch-journal';
import { StagingStore } from '../../../connectors/staging';
import type { Certificate } from '../../../connectors/traceability';

const FOLDER = 'certificate-report/run-1/fetch';

/** A live API whose answers name the call that made them (`read <n>`), counting the calls. */
function liveApi() {
  const asked: CertificatePageQuery[] = [];
  const fetchPage: CertificatePageFetcher = async (query) => {
    asked.push(query);
    const certificate: Certificate = {
      id: `cert_${query.order}_${query.page}`,
      name: `read ${asked.length}`,
      type: 'SCOPE',
      companyId: 'company_1',
      status: 'APPROVED',
      fileUrl: 'https://files.example/signed?token=secret',
    };
    return { items: [certificate], pagination: { page: query.page, limit: 100, total: 3, totalPages: 3 } };
  };
  return { asked, fetchPage };
}

describe('the certificate fetch journal', () => {
  let staging: StagingStore;
  let dataDir: string;
  const open = (attempt: number, previous: unknown, live: CertificatePageFetcher) =>
    openFetchJournal({
      staging,
      folder: FOLDER,
      attempt,
      previous,
      live,
      stop: new AbortController().signal,
    });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cert-fetch-journal-'));
    staging = new StagingStore(join(dataDir, 'staging'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('an attempt named by the heartbeat reads on from the journal: the answers the killed one got, then the API', async () => {
    const first = liveApi();
    const killed = await open(1, undefined, first.fetchPage);
    await killed.fetchPage({ order: 'desc', page: 1, limit: 100 });
    await killed.fetchPage({ order: 'asc', page: 1, limit: 100 });

    const second = liveApi();
    const resumed = await open(2, killed.details(), second.fetchPage);
    const marker = await resumed.fetchPage({ order: 'desc', page: 1, limit: 100 });
    const page1 = await resumed.fetchPage({ order: 'asc', page: 1, limit: 100 });
    const page2 = await resumed.fetchPage({ order: 'asc', page: 2, limit: 100 });

    expect([marker, page1, page2].map((page) => page.items[0]?.name)).toEqual(['read 1', 'read 2', 'read 1']);
    expect(second.asked).toEqual([{ order: 'asc', page: 2, limit: 100 }]);
    expect({ calls: resumed.calls, replayed: resumed.replayed }).toEqual({ calls: 3, replayed: 2 });
    // The signed file link is never kept, and the journal stays the one the killed attempt began.
    expect(marker.items[0]).not.toHaveProperty('fileUrl');
    expect(resumed.details()).toEqual({ journal: `${FOLDER}/1`, calls: 3 });
  });

  it('an attempt the heartbeat names no journal for reads from the API, never an earlier attempt’s answers', async () => {
    const killed = await open(1, undefined, liveApi().fetchPage);
    await killed.fetchPage({ order: 'desc', page: 1, limit: 100 });

    const fresh = liveApi();
    const next = await open(2, {}, fresh.fetchPage);
    await next.fetchPage({ order: 'desc', page: 1, limit: 100 });
    expect(fresh.asked).toHaveLength(1);
    expect(next.details().journal).toBe(`${FOLDER}/2`);

    // Nor does a later attempt, named the dropped journal, find its answers.
    const later = liveApi();
    const third = await open(3, { journal: `${FOLDER}/1`, calls: 1 }, later.fetchPage);
    await third.fetchPage({ order: 'desc', page: 1, limit: 100 });
    expect(later.asked).toHaveLength(1);
  });

  it('a journal that asked other queries (the code changed between attempts) is dropped from the first difference', async () => {
    const killed = await open(1, undefined, liveApi().fetchPage);
    await killed.fetchPage({ order: 'desc', page: 1, limit: 100 });
    await killed.fetchPage({ order: 'asc', page: 1, limit: 100 });
    await killed.fetchPage({ order: 'asc', page: 2, limit: 100 });

    const second = liveApi();
    const changed = await open(2, killed.details(), second.fetchPage);
    await changed.fetchPage({ order: 'desc', page: 1, limit: 100 });
    await changed.fetchPage({ status: 'REQUESTED', order: 'asc', page: 1, limit: 100 });
    expect(second.asked).toEqual([{ status: 'REQUESTED', order: 'asc', page: 1, limit: 100 }]);

    // The next attempt replays none of it: the journal it is named lacks the first call, the marker.
    const third = liveApi();
    const next = await open(3, changed.details(), third.fetchPage);
    await next.fetchPage({ order: 'desc', page: 1, limit: 100 });
    await next.fetchPage({ status: 'REQUESTED', order: 'asc', page: 1, limit: 100 });
    await next.fetchPage({ order: 'asc', page: 2, limit: 100 });
    expect(third.asked).toHaveLength(3);
  });
});
